package experiments

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Manifest records what produced a result folder.
type Manifest struct {
	Experiment    string   `json:"experiment"`
	Description   string   `json:"description"`
	Source        string   `json:"source"`
	Setup         string   `json:"setup"`
	InstanceSeeds []uint64 `json:"instance_seeds"`
	Seeds         []uint64 `json:"algorithm_seeds"`
	Rows          int      `json:"rows"`
	GitRevision   string   `json:"git_revision,omitempty"` // empty when git or the repository is not available
	GitDirty      bool     `json:"git_dirty,omitempty"`
	GoVersion     string   `json:"go_version"`
	Started       string   `json:"started"` // RFC 3339, UTC
	WallSeconds   float64  `json:"wall_seconds"`
	ClaimsHeld    int      `json:"claims_held"`
	Claims        int      `json:"claims"`
	Files         []string `json:"files"`
}

// writeAtomic writes path through a temp file in the same folder and a
// rename, so readers never see a half-written file.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// gitRevision returns HEAD's commit and whether tracked files differ from
// it; "" when git or a repository is not there (results must not depend on it).
func gitRevision(ctx context.Context) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), err == nil && len(bytes.TrimSpace(st)) > 0
}

// WriteRaw writes every row as CSV: experiment, series, x, instance,
// instance_seed, rep, seed, then one column per metric.
func (r *Results) WriteRaw(w io.Writer) error {
	cw := csv.NewWriter(w)
	hdr := []string{"experiment", "series", "x", "instance", "instance_seed", "rep", "seed"}
	for _, m := range r.Metrics {
		hdr = append(hdr, m.Name)
	}
	if err := cw.Write(hdr); err != nil {
		return err
	}
	for _, row := range r.Rows {
		rec := []string{row.Experiment, row.Series, FormatX(row.X), strconv.Itoa(row.Instance),
			strconv.FormatUint(row.InstanceSeed, 10), strconv.Itoa(row.Rep), strconv.FormatUint(row.Seed, 10)}
		for _, m := range r.Metrics {
			rec = append(rec, strconv.FormatFloat(row.Values[m.Name], 'g', -1, 64))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteNotes writes notes.md: what was run and, claim by claim, whether the
// paper's statement holds in our numbers.
func (rep *Report) WriteNotes(w io.Writer) error {
	s := rep.Spec
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", s.Name, s.Description)
	if s.Source != "" {
		fmt.Fprintf(&b, "Reproduces: %s.\n\n", s.Source)
	}
	if s.Setup != "" {
		fmt.Fprintf(&b, "Setup: %s\n\n", s.Setup)
	}
	fmt.Fprintf(&b, "Runs: %d rows, wall time %.1f s. Values in table.md are mean ± 95%% CI (Student's t) over all graphs and repetitions at each x.\n\n", len(rep.Results.Rows), rep.Wall.Seconds())
	if len(rep.Claims) > 0 {
		fmt.Fprintf(&b, "## The paper's claims, checked on these numbers (%d of %d hold)\n\n", rep.held(), len(rep.Claims))
		for i, c := range rep.Claims {
			fmt.Fprintf(&b, "%d. **%s** — %s.\n   - Test: %s\n   - Measured: %s\n", i+1, c.Statement, c.Verdict(), c.Test, c.Evidence)
		}
		b.WriteString("\nA claim that does not hold is a finding about our implementation or the paper, not a test failure.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (rep *Report) held() int {
	n := 0
	for _, c := range rep.Claims {
		if c.Holds {
			n++
		}
	}
	return n
}

// Output writes the report's files into dir (created if needed):
// raw.csv, table.md, table.csv, table.tex, <metric>.png and <metric>.svg for
// every metric, notes.md and, last, manifest.json.
func (rep *Report) Output(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output folder: %w", err)
	}
	tbl := rep.Table()
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"raw.csv", rep.Results.WriteRaw},
		{"table.md", tbl.WriteMarkdown},
		{"table.csv", tbl.WriteCSV},
		{"table.tex", tbl.WriteLaTeX},
	}
	for _, m := range rep.Spec.Metrics {
		lp := rep.Aggregate.Plot(fmt.Sprintf("%s: %s", rep.Spec.Name, m.Label), rep.Spec.XLabel, m)
		for _, format := range []string{"png", "svg"} {
			files = append(files, struct {
				name  string
				write func(io.Writer) error
			}{m.Name + "." + format, func(w io.Writer) error { return lp.Write(w, format) }})
		}
	}
	files = append(files, struct {
		name  string
		write func(io.Writer) error
	}{"notes.md", rep.WriteNotes})
	var names []string
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
		names = append(names, f.name)
	}
	ins, alg := rep.Results.Seeds()
	rev, dirty := gitRevision(ctx)
	man := Manifest{
		Experiment: rep.Spec.Name, Description: rep.Spec.Description, Source: rep.Spec.Source, Setup: rep.Spec.Setup,
		InstanceSeeds: ins, Seeds: alg, Rows: len(rep.Results.Rows),
		GitRevision: rev, GitDirty: dirty, GoVersion: runtime.Version(),
		Started: rep.Start.UTC().Format(time.RFC3339), WallSeconds: rep.Wall.Seconds(),
		ClaimsHeld: rep.held(), Claims: len(rep.Claims), Files: append(names, "manifest.json"),
	}
	if err := writeAtomic(filepath.Join(dir, "manifest.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(man)
	}); err != nil {
		return err
	}
	rep.Dir = dir
	rep.Files = man.Files
	return nil
}
