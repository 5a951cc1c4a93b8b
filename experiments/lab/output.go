package lab

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/reports"
)

// Manifest records what produced a result folder: enough to rerun it and
// to judge where its numbers came from.
type Manifest struct {
	Experiment    string         `json:"experiment"`
	Description   string         `json:"description"`
	Source        string         `json:"source"`
	Setup         string         `json:"setup"`
	CommandLine   []string       `json:"command_line"`
	Scale         string         `json:"profile"`                 // the key keeps the scale's former name, so earlier results still read
	Unit          string         `json:"unit"`                    // statistical unit of the design (Spec.Unit): run or instance; stormlab compare reads it
	SeedOffset    uint64         `json:"seed_offset,omitempty"`   // --seed: added to every instance seed of a graph experiment
	Instances     int            `json:"instances,omitempty"`     // --instances: generated instances per cell, instead of the experiment's
	RepsAsked     int            `json:"reps,omitempty"`          // --reps: repetitions per cell (cluster) or per instance (graph)
	TopologyConf  []string       `json:"topology_conf,omitempty"` // --topology-conf: Storm settings every topology got after its own
	Knobs         map[string]any `json:"knobs,omitempty"`         // every setting of the scale and run
	InstanceSeeds []uint64       `json:"instance_seeds"`
	Seeds         []uint64       `json:"algorithm_seeds"`
	Rows          int            `json:"rows"`
	Host          HostInfo       `json:"host"`
	VCSRevision   string         `json:"vcs_revision"` // from the build info, else the Makefile's -ldflags stamp, else "unknown"
	VCSModified   bool           `json:"vcs_modified,omitempty"`
	VCSFrom       string         `json:"vcs_from,omitempty"` // "buildinfo" or "ldflags"; empty when unknown
	GoVersion     string         `json:"go_version"`
	Started       string         `json:"started"` // RFC 3339, UTC
	WallSeconds   float64        `json:"wall_seconds"`
	// DeclaredCost is the spec's cost at the scale; BudgetRatio the wall time over it (0 when
	// the cost is not a duration).
	DeclaredCost  string   `json:"declared_cost,omitempty"`
	BudgetRatio   float64  `json:"budget_ratio,omitempty"`
	ClaimsHold    int      `json:"paper_claims_hold"`
	ClaimsNot     int      `json:"paper_claims_do_not_hold"`
	ClaimsUnknown int      `json:"paper_claims_inconclusive"`
	SanityChecks  int      `json:"sanity_checks"`
	Files         []string `json:"files"`
	// Cluster is where a cluster experiment's runs happened (--cluster); Simulated says what stands
	// behind them when that was a simulated cluster.
	Cluster   string             `json:"cluster,omitempty"`
	Simulated *simcluster.Source `json:"simulated,omitempty"`
}

// WriteAtomic writes path through a temp file in the same folder and a
// rename, so readers never see a half-written file.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
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

// WriteRaw writes every row as CSV: experiment, series, x, instance,
// instance_seed, rep, seed, validity (valid, suspect or invalid), reasons
// ("kind: text; ..."), then one column per metric (empty where a run did
// not measure an optional metric). Invalid runs are written
// too: raw.csv is the record, and its readers (stormlab compare, the page)
// leave them out by the validity column.
func (r *Results) WriteRaw(w io.Writer) error {
	cw := csv.NewWriter(w)
	hdr := []string{"experiment", "series", "x", "instance", "instance_seed", "rep", "seed", "validity", "reasons"}
	for _, m := range r.Metrics {
		hdr = append(hdr, m.Name)
	}
	if err := cw.Write(hdr); err != nil {
		return err
	}
	for _, row := range r.Rows {
		rec := []string{row.Experiment, row.Series, FormatX(row.X), strconv.Itoa(row.Instance),
			strconv.FormatUint(row.InstanceSeed, 10), strconv.Itoa(row.Rep), strconv.FormatUint(row.Seed, 10),
			levelText(row.Validity), reasonsText(row.Validity)}
		for _, m := range r.Metrics {
			v, ok := row.Values[m.Name]
			if !ok {
				rec = append(rec, "") // an optional metric the run did not measure; readers skip it
				continue
			}
			rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
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
	_, sim := rep.where()
	if sim != nil {
		// First: the Setup below names the containers' shape, which the simulated cluster replaces.
		fmt.Fprintf(&b, "Simulated: every run ran on the simulated cluster %s (%s), charged by the cost model %s; validation: %s. Its verdicts are the model's, never pooled with real runs'.\n\n",
			sim.Cluster, sim.About, sim.CostSource, sim.Validation)
	}
	if s.Setup != "" && sim != nil {
		fmt.Fprintf(&b, "Setup (its cluster shape is the one above): %s\n\n", s.Setup)
	} else if s.Setup != "" {
		fmt.Fprintf(&b, "Setup: %s\n\n", s.Setup)
	}
	fmt.Fprintf(&b, "Runs: %d rows, wall time %.1f s. Values in table.md are mean ± 95%% CI (Student's t) over the statistical units at each x: graph instances (each the mean of its repetitions) in graph experiments, runs in cluster experiments; n counts them.\n\n", len(rep.Results.Rows), rep.Wall.Seconds())
	if c := CountRuns(rep.Results.Rows); c.String() != "" {
		fmt.Fprintf(&b, "Validity: %s (raw.csv names each with its reasons); invalid runs are in no table and no claim, suspect ones in no claim on the metrics they concern.\n\n", c)
	}
	if rep.Scale != "" {
		fmt.Fprintf(&b, "Scale: %s.\n\n", rep.Scale)
	}
	if len(rep.Claims) > 0 {
		fmt.Fprintf(&b, "## Claims, checked on these numbers (%s)\n\n", VerdictCounts(rep.Claims))
		b.WriteString("Rules (reports/inference.go): one level for every check, the 95% CI (each one-sided test at 0.025): a difference by Welch's t-test (the paired t-test when both sides are the same graphs), one-sided in the claimed direction, Holm-corrected over the experiment's difference checks; a trend by Spearman's rho with a 95% CI (Fisher z), n >= 5; a threshold by the 95% CI lying wholly on one side; a claim of no or small effect by equivalence (TOST) against the margin the claim states. At least 3 units per side. \"does not hold\" needs significant evidence against the claim; anything else is inconclusive. Units: a graph instance (mean over its repetitions) in graph experiments, one run in cluster experiments.\n\n")
		for i, c := range rep.Claims {
			kind := ""
			switch c.Kind {
			case SanityCheck:
				kind = " (sanity check, not a paper claim)"
			case ProjectClaim:
				kind = " (this project's claim, not a paper's)"
			}
			fmt.Fprintf(&b, "%d. **%s**%s — **%s**.\n", i+1, c.Statement, kind, c.Verdict)
			if c.Source != "" {
				fmt.Fprintf(&b, "   - Source: %s\n", c.Source)
			}
			if c.Forced != "" {
				fmt.Fprintf(&b, "   - FORCED: %s\n", c.Forced)
			}
			fmt.Fprintf(&b, "   - Rule: %s\n   - Effect: %s\n   - Reason: %s\n   - Measured: %s\n", c.Rule(), effectText(c.Decider()), c.Reason, c.Evidence)
			if c.Screen.Why != "" {
				fmt.Fprintf(&b, "   - Why: %s\n", c.Screen.Why)
			}
		}
		b.WriteString("\nA claim that does not hold is a finding about our implementation or the paper, not a test failure.\n")
	}
	writeLimits(&b, rep.Results.Rows)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTableTeX writes the LaTeX table; an experiment split into panels
// gets one table per panel (each fits a page; together they would not).
func (rep *Report) writeTableTeX(w io.Writer) error {
	panels := rep.Aggregate.Panels()
	if len(panels) < 2 {
		return rep.Table().WriteLaTeX(w)
	}
	s := rep.Spec
	for i, p := range panels {
		sub := *rep.Aggregate
		sub.Series = nil
		for _, sa := range rep.Aggregate.Series {
			if sa.Panel == p {
				sub.Series = append(sub.Series, sa)
			}
		}
		title := s.Name + ", " + p
		if s.Source != "" {
			title += " (" + s.Source + ")"
		}
		t := sub.Table(title, s.SeriesLabel, s.XName)
		t.Label = "tab:" + slug(s.Name+" "+p)
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := t.WriteLaTeX(w); err != nil {
			return fmt.Errorf("table of %s: %w", p, err)
		}
	}
	return nil
}

// outFile is one file of a result folder and its writer.
type outFile struct {
	name  string
	write func(io.Writer) error
}

// figureFiles are every figure's files: per metric (and panel) that
// varies, and the run's extra figures; each in every reports.FigureFiles
// format, with its caption in a .txt and a .tex beside it.
func (rep *Report) figureFiles() []outFile {
	var figs []Figure
	for _, panel := range rep.Aggregate.Panels() {
		for _, m := range rep.Spec.Metrics {
			lp := rep.Aggregate.PanelPlot(panel, rep.Spec.XLabel, m)
			lp.NoLines = rep.Spec.XConditions
			lp.NonNegative = !m.Signed
			if lp.Constant() {
				continue // a flat metric: the table has its one value, a figure would show nothing
			}
			name, what := m.Name, m.Label
			if panel != "" {
				name += "-" + slug(panel)
				what += ", " + panel
			}
			lp.Title = fmt.Sprintf("%s: %s over %s", rep.Spec.Name, what, rep.Spec.XLabel)
			figs = append(figs, Figure{Name: name, Plot: lp})
		}
	}
	figs = append(figs, rep.Results.Figures...)
	var out []outFile
	for _, f := range figs {
		for _, ff := range reports.FigureFiles {
			out = append(out, outFile{f.Name + ff.Suffix, func(w io.Writer) error { return f.Plot.WriteSize(w, ff.Format, ff.Width, ff.Height) }})
		}
		caption := f.Plot.CaptionText()
		out = append(out, outFile{f.Name + ".txt", func(w io.Writer) error { return reports.WriteCaptionText(w, caption) }},
			outFile{f.Name + ".tex", func(w io.Writer) error {
				return reports.WriteFigureTeX(w, f.Name, caption, "fig:"+rep.Spec.Name+"-"+f.Name)
			}})
	}
	return out
}

// CaptionFiles are a figure's captions beside it: name.txt (plain
// text) and name.tex (a LaTeX figure including name, labelled label).
func CaptionFiles(name, label, caption string) []File {
	return []File{
		{name + ".txt", func(w io.Writer) error { return reports.WriteCaptionText(w, caption) }},
		{name + ".tex", func(w io.Writer) error { return reports.WriteFigureTeX(w, name, caption, label) }},
	}
}

// slug is s in lower-case letters, digits and dashes (a file name part).
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// Output writes the report's files into dir (created if needed):
// raw.csv, table.md, table.csv, table.tex, refs.bib, the figures of every
// metric (per panel) that varies and the run's extra figures, each with
// its caption in <figure>.txt and <figure>.tex, claims.json, notes.md and, last,
// manifest.json. When the experiment reproduces a paper, it then rebuilds
// the paper's summary <dir>/../summary-<paper>.md from the claims.json of
// every experiment of that paper found there.
func (rep *Report) Output(ctx context.Context, dir string, args []string, paperExps func(string) []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output folder: %w", err)
	}
	tbl := rep.Table()
	files := []outFile{
		{"raw.csv", rep.Results.WriteRaw},
		{"table.md", tbl.WriteMarkdown},
		{"table.csv", tbl.WriteCSV},
		{"table.tex", rep.writeTableTeX},
		{"refs.bib", WriteBib},
	}
	files = append(files, rep.figureFiles()...)
	for _, f := range rep.Results.Files {
		files = append(files, outFile{f.Name, f.Write})
	}
	files = append(files, outFile{"notes.md", rep.WriteNotes}, outFile{"claims.json", rep.claimsFile().Write})
	var names []string
	for _, f := range files {
		if err := WriteAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
		names = append(names, f.name)
	}
	ins, alg := rep.Results.Seeds()
	rev, dirty, from := vcsRevision()
	if args == nil {
		args = os.Args
	}
	h, n, i, san := CountVerdicts(rep.Claims)
	man := Manifest{
		Experiment: rep.Spec.Name, Description: rep.Spec.Description, Source: rep.Spec.Source, Setup: rep.Spec.Setup,
		CommandLine: args, Scale: rep.Scale, Unit: OrStr(rep.Results.Unit, UnitRun), Knobs: rep.Results.Knobs,
		InstanceSeeds: ins, Seeds: alg, Rows: len(rep.Results.Rows), Host: hostInfo(ctx),
		VCSRevision: rev, VCSModified: dirty, VCSFrom: from, GoVersion: runtime.Version(),
		Started: rep.Start.UTC().Format(time.RFC3339), WallSeconds: rep.Wall.Seconds(),
		ClaimsHold: h, ClaimsNot: n, ClaimsUnknown: i, SanityChecks: san, Files: append(names, "manifest.json"),
		DeclaredCost: rep.Spec.Cost.For(rep.Scale),
	}
	if b, ok := rep.Spec.Cost.Budget(rep.Scale); ok {
		man.BudgetRatio = rep.Wall.Seconds() / b.Seconds()
	}
	man.SeedOffset, man.Instances, man.RepsAsked = rep.Asked.Seed, rep.Asked.Instances, rep.Asked.Reps
	man.TopologyConf = rep.Asked.TopologyConf
	man.Cluster, man.Simulated = rep.where()
	if err := WriteAtomic(filepath.Join(dir, "manifest.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(man)
	}); err != nil {
		return err
	}
	rep.Dir = dir
	rep.Files = man.Files
	if rep.Spec.Paper != "" && paperExps != nil {
		if _, err := WritePaperSummary(filepath.Dir(dir), rep.Spec.Paper, paperExps(rep.Spec.Paper)); err != nil {
			return fmt.Errorf("paper summary: %w", err)
		}
	}
	return nil
}

// claimsFile is claims.json, marked when the runs were simulated.
func (rep *Report) claimsFile() reports.ClaimsFile {
	f := claimsFile(rep.Spec.Name, rep.Scale, rep.Claims)
	if where, sim := rep.where(); sim != nil {
		f.Simulated = fmt.Sprintf("%s, cost model %s; validation: %s", where, sim.CostSource, sim.Validation)
		f.SimulatedStanding = sim.Standing
	}
	return f
}

// describeSim is what stands behind a simulated cluster (a variable: tests give it a validation).
var describeSim = simcluster.Describe

// simulatedTitle is what a table's title adds for a simulated cluster: where, and what its figures are
// worth when the model is not validated, or the cluster is larger than any validated one.
func simulatedTitle(where string, sim *simcluster.Source) string {
	t := ", simulated on " + where
	switch sim.Standing {
	case simcluster.Extrapolated:
		t += fmt.Sprintf(", extrapolated beyond the validated %d nodes", sim.ValidatedNodes)
	case simcluster.NotValidated:
		t += ", not validated"
	}
	return t
}

// where is the cluster a cluster experiment ran on, and what stands behind a simulated one.
func (rep *Report) where() (string, *simcluster.Source) {
	where := rep.Asked.Cluster
	if rep.Spec.Needs.Need < NeedsCluster {
		return "", nil
	}
	if where.Kind != simcluster.KindName {
		return where.String(), nil
	}
	src, err := describeSim(where)
	if err != nil {
		return where.String(), nil
	}
	return where.String(), &src
}

// writeLimits adds what limited the runs, per series and x: how many of its runs each precedence step
// named, with the first run's figure (docs/statistics.md, "What limited a run"). Nothing when no run
// was diagnosed (graph experiments).
func writeLimits(b *strings.Builder, rows []Row) {
	type cell struct {
		series string
		x      float64
	}
	type count struct {
		n       int
		example string
	}
	var order []cell
	limits := map[cell]map[string]*count{}
	runs := map[cell]int{}
	for _, r := range rows {
		if r.Limit == "" {
			continue
		}
		c := cell{r.Series, r.X}
		if limits[c] == nil {
			limits[c] = map[string]*count{}
			order = append(order, c)
		}
		runs[c]++
		if limits[c][r.Limit] == nil {
			limits[c][r.Limit] = &count{example: r.Bottleneck}
		}
		limits[c][r.Limit].n++
	}
	if len(order) == 0 {
		return
	}
	b.WriteString("\n## What limited the runs\n\nPer series and x, the runs whose diagnosis named each step of the precedence in docs/statistics.md, with the first such run's figure:\n\n")
	for _, c := range order {
		var parts []string
		for _, l := range slices.Sorted(maps.Keys(limits[c])) {
			parts = append(parts, fmt.Sprintf("%s %d of %d (%s)", l, limits[c][l].n, runs[c], limits[c][l].example))
		}
		fmt.Fprintf(b, "- %s, x = %s: %s\n", c.series, FormatX(c.x), strings.Join(parts, "; "))
	}
}
