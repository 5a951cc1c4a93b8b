package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The house limits: a non-test Go file has at most maxFileLines lines and a function at most
// maxFuncCode lines of code (lines that are neither blank nor a // comment), so that a reader finds
// one concern per file and one step per function. schedulers/ and topologies/ are exempt: an
// algorithm there may be one procedure, as its paper gives it.
const (
	maxFileLines = 700
	maxFuncCode  = 80
)

var sizeExempt = []string{"schedulers/", "topologies/"}

// sizeAllowed are files allowed over a limit (each entry a path or a folder prefix): none. A file that
// has to grow past one is split along its seams instead.
var sizeAllowed []string

// TestSizes fails on any non-test Go file over maxFileLines lines, or function over maxFuncCode
// lines of code, outside schedulers/, topologies/ and sizeAllowed.
func TestSizes(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "results") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			hasPrefix(rel, sizeExempt) || hasPrefix(rel, sizeAllowed) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		problems, err := sizeProblems(rel, src)
		if err != nil {
			return err
		}
		for _, p := range problems {
			t.Error(p)
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files: the walk from %s missed the module", checked, root)
	}
}

// sizeProblems lists how the Go source src (named rel) breaks the limits, one message each.
func sizeProblems(rel string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", rel, err)
	}
	lines := strings.Split(string(src), "\n")
	if strings.HasSuffix(string(src), "\n") {
		lines = lines[:len(lines)-1]
	}
	var out []string
	if len(lines) > maxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines, over %d: split it into a file per concern", rel, len(lines), maxFileLines))
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		from, to := fset.Position(fd.Body.Lbrace).Line, fset.Position(fd.Body.Rbrace).Line
		if n := codeLines(lines, from, to); n > maxFuncCode {
			out = append(out, fmt.Sprintf("%s:%d: %s has %d lines of code, over %d: move its steps into functions of their own",
				rel, fset.Position(fd.Pos()).Line, fd.Name.Name, n, maxFuncCode))
		}
	}
	return out, nil
}

// codeLines counts the lines from line from to line to (1-based, inclusive) that are neither blank
// nor a // comment.
func codeLines(lines []string, from, to int) int {
	n := 0
	for i := from - 1; i < to && i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); t != "" && !strings.HasPrefix(t, "//") {
			n++
		}
	}
	return n
}

func hasPrefix(rel string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// TestSizeProblems checks the counting on made-up sources: the expected counts are by hand (a
// function's code lines run from its opening brace's line to its closing brace's).
func TestSizeProblems(t *testing.T) {
	body := func(code, comments, blanks int) string {
		var b strings.Builder
		b.WriteString("package p\n\nfunc f() {\n")
		for range code - 2 { // the braces' lines count
			b.WriteString("\t_ = 1\n")
		}
		for range comments {
			b.WriteString("\t// a comment\n")
		}
		for range blanks {
			b.WriteString("\n")
		}
		b.WriteString("}\n")
		return b.String()
	}
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"80 lines of code", body(80, 0, 0), nil},
		{"81 lines of code", body(81, 0, 0), []string{"f has 81 lines of code, over 80"}},
		{"comments and blanks not counted", body(80, 30, 30), nil},
		{"700 lines", "package p\n" + strings.Repeat("\n", 698) + "var x = 1\n", nil},
		{"701 lines", "package p\n" + strings.Repeat("\n", 699) + "var x = 1\n", []string{"701 lines, over 700"}},
		{"701 lines, no final newline", "package p\n" + strings.Repeat("\n", 699) + "var x = 1", []string{"701 lines, over 700"}},
	} {
		got, err := sizeProblems("p.go", []byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: problems %q, want %d", tc.name, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: %q lacks %q", tc.name, got[i], w)
			}
		}
	}
}

// maxHarnessTop bounds the run loop's room: the top level of package harness (non-blank, non-test
// lines). Measurement, validity, faults and the service live in rooms of their own.
const maxHarnessTop = 3000

// TestHarnessTopLevel fails when the top level of harness grows past maxHarnessTop lines.
func TestHarnessTopLevel(t *testing.T) {
	files, err := filepath.Glob("../../harness/*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
	}
	t.Logf("harness top level: %d non-blank lines", n)
	if n > maxHarnessTop {
		t.Errorf("the top level of harness has %d non-blank non-test lines, over %d: move what is not the run loop to a room of its own (harness/measure, harness/nemesis, ...)", n, maxHarnessTop)
	}
}
