package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// layerLine is one line of the layer list in docs/architecture.md: "N. `a` | `b`".
var layerLine = regexp.MustCompile("^([0-9]+)\\. (`[^`]+`( \\| `[^`]+`)*)\\s*$")

// readLayers maps each top folder to its layer, from docs/architecture.md's "Layers" section.
func readLayers(t *testing.T) map[string]int {
	t.Helper()
	data, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string]int{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "## ") {
			in = l == "## Layers"
			continue
		}
		m := layerLine.FindStringSubmatch(l)
		if !in || m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, f := range strings.Split(m[2], " | ") {
			layers[strings.Trim(f, "`")] = n
		}
	}
	if len(layers) == 0 {
		t.Fatal("docs/architecture.md has no layer list under \"## Layers\"")
	}
	return layers
}

// mayImport reports whether a package under top folder from may import one under to: a lower layer, or
// its own folder.
func mayImport(layers map[string]int, from, to string) bool {
	return layers[to] < layers[from] || to == from
}

type goPackage struct {
	ImportPath string
	Imports    []string
}

// modulePackages lists the module's packages with their non-test imports.
func modulePackages(t *testing.T) (module string, pkgs []goPackage) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	module = strings.TrimSpace(string(out))
	out, err = exec.Command("go", "list", "-json", "../../...").Output()
	if err != nil {
		t.Fatalf("go list -json: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return module, pkgs
}

// TestLayers fails when a package imports a package of a higher layer, or a peer of its layer in another
// top folder (docs/architecture.md, "Layers").
func TestLayers(t *testing.T) {
	layers := readLayers(t)
	module, pkgs := modulePackages(t)
	top := func(path string) (string, bool) {
		rel, ok := strings.CutPrefix(path, module+"/")
		if !ok {
			return "", false
		}
		return strings.Split(rel, "/")[0], true
	}
	for _, p := range pkgs {
		from, _ := top(p.ImportPath)
		lf, ok := layers[from]
		if !ok {
			t.Errorf("%s: its top folder %s is in no layer of docs/architecture.md", p.ImportPath, from)
			continue
		}
		for _, imp := range p.Imports {
			to, ours := top(imp)
			if !ours {
				continue
			}
			if !mayImport(layers, from, to) {
				t.Errorf("%s imports %s: layer %d (%s) must not import layer %d (%s)", p.ImportPath, imp, lf, from, layers[to], to)
			}
		}
	}
}

// TestLayerRule: the rule on the layer list as docs/architecture.md writes it.
func TestLayerRule(t *testing.T) {
	layers := readLayers(t)
	cases := []struct {
		from, to string
		want     bool
	}{
		{"harness", "infra", true},
		{"harness", "harness", true},
		{"harness", "reports", false}, // peers
		{"reports", "harness", false}, // peers
		{"infra", "harness", false},   // upward
		{"experiments", "harness", true},
		{"experiments", "reports", true},
		{"schedulers", "topologies", true},
		{"topologies", "schedulers", false},
		{"cmd", "experiments", true},
		{"experiments", "cmd", false},
	}
	for _, c := range cases {
		if got := mayImport(layers, c.from, c.to); got != c.want {
			t.Errorf("%s importing %s: allowed %v, want %v", c.from, c.to, got, c.want)
		}
	}
}
