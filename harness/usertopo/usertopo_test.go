package usertopo

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The merged jar takes each entry from the first part that holds it (the user's jar first), keeps
// only the filtered entries of a filtered part, and drops manifests and signatures.
func TestMergeJars(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, entries map[string]string) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		zw := zip.NewWriter(f)
		for n, body := range entries {
			w, _ := zw.Create(n)
			w.Write([]byte(body))
		}
		zw.Close()
		f.Close()
		return p
	}
	user := write("user.jar", map[string]string{"a/A.class": "user", "META-INF/MANIFEST.MF": "m", "META-INF/X.SF": "sig"})
	topo := write("topo.jar", map[string]string{"a/A.class": "topo", "org/stormlab/instrument/H.class": "hook",
		"org/stormlab/net/D.class": "delay", "org/stormlab/topologies/W.class": "ours"})
	dst := filepath.Join(dir, "merged.jar")
	if err := mergeJars(dst, []jarPart{{file: user}, {file: topo, keep: instrumentEntry}, {name: "r/t.yaml", data: []byte("y")}}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string]string{}
	for _, f := range zr.File {
		r, _ := f.Open()
		b, _ := io.ReadAll(r)
		r.Close()
		got[f.Name] = string(b)
	}
	want := map[string]string{"a/A.class": "user", "org/stormlab/instrument/H.class": "hook", "org/stormlab/net/D.class": "delay", "r/t.yaml": "y"}
	if len(got) != len(want) {
		t.Errorf("merged entries %v, want %v", got, want)
	}
	for n, b := range want {
		if got[n] != b {
			t.Errorf("entry %s = %q, want %q", n, got[n], b)
		}
	}
}

// Flux hooks of the file's config are kept; a non-list is refused.
func TestFluxHooks(t *testing.T) {
	h, err := fluxHooks(fluxDoc{Config: map[string]any{"topology.auto.task.hooks": []any{"x.Hook"}}}, "f")
	if err != nil || len(h) != 1 || h[0] != "x.Hook" {
		t.Errorf("hooks %v %v: want [x.Hook]", h, err)
	}
	if _, err := fluxHooks(fluxDoc{Config: map[string]any{"topology.auto.task.hooks": "x.Hook"}}, "f"); err == nil {
		t.Error("a string for the hook list: want an error")
	}
}
