package recorded

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
)

// Runs extracts the tar.gz of recorded run folders at path into a temporary folder and loads every
// run in it (a folder with run.json), in path order, as `stormlab sim costs --from` reads them.
func Runs(tb testing.TB, path string) []*harness.RunResult {
	tb.Helper()
	dirs, err := extract(path, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(dirs)
	var out []*harness.RunResult
	for _, d := range dirs {
		r, err := harness.Load(d)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// extract writes the regular files of the tar.gz at path under dir (names that would leave dir are
// skipped) and returns the folders that hold a run.json.
func extract(path, dir string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(z)
	var runs []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return runs, nil
		}
		if err != nil {
			return nil, err
		}
		name := filepath.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		if filepath.Base(name) == "run.json" {
			runs = append(runs, filepath.Dir(p))
		}
	}
}
