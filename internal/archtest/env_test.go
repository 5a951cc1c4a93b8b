package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// envReaders may touch the process environment: programs' main packages (cmd/), the one place that
// reads the test settings, STORMLAB_HOME's lookup, testcontainers-go's own variables and the SSH test
// server's helper. Everywhere else a setting travels as a value.
var envReaders = []string{
	"cmd/",
	"internal/testsettings/",
	"infra/assets/assets.go",        // STORMLAB_HOME
	"infra/docker/cluster.go",       // TESTCONTAINERS_* (read by testcontainers-go)
	"infra/control/sshtest/",        // a test server's set-up
	"infra/service/cmd/",            // none today; a server binary would be a main
	"infra/images/cmd/",             // main
	"infra/docker/cmd/",             // main
	"internal/archtest/env_test.go", // names the functions
}

var envFuncs = map[string]bool{"Setenv": true, "Getenv": true, "LookupEnv": true, "Unsetenv": true}

// TestNoSettingsThroughTheEnvironment fails on any call of os.Setenv, os.Getenv, os.LookupEnv,
// or os.Unsetenv in a non-test file (os.Environ handed to a child process is not a setting) outside envReaders.
func TestNoSettingsThroughTheEnvironment(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "results") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed(filepath.ToSlash(rel)) {
			return nil
		}
		for _, call := range envCalls(t, path) {
			t.Errorf("%s:%d: os.%s passes a setting through the process environment: take it as a value (resolved in main, or in internal/testsettings for tests)", rel, call.line, call.name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func allowed(rel string) bool {
	for _, a := range envReaders {
		if strings.HasPrefix(rel, a) {
			return true
		}
	}
	return false
}

type envCall struct {
	name string
	line int
}

// envCalls lists the os environment calls in a Go file.
func envCalls(t *testing.T, path string) []envCall {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var out []envCall
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && envFuncs[sel.Sel.Name] {
			out = append(out, envCall{sel.Sel.Name, fset.Position(sel.Pos()).Line})
		}
		return true
	})
	return out
}
