package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/clusters"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/clusterref"

	"github.com/stormlab/stormlab/reports"
)

// Report is one finished experiment run.
type Report struct {
	Spec      *Spec
	Results   *Results
	Aggregate *Aggregate
	Claims    []Claim // judged (JudgeClaims)
	Scale     string  // scale the experiment ran under
	Start     time.Time
	Wall      time.Duration // time of Spec.Run (without writing files)
	Dir       string        // output folder, after Output
	Files     []string      // files written, after Output
	Asked     Env           // the settings the run was given (seed, instances, repetitions), for the manifest
}

// Table is the experiment's results table (mean ± 95% CI).
func (rep *Report) Table() *reports.Table {
	s := rep.Spec
	title := s.Name
	if s.Source != "" {
		title += " (" + s.Source + ")"
	}
	if where, sim := rep.where(); sim != nil {
		title += simulatedTitle(where, sim)
	}
	t := rep.Aggregate.TableWithPanels(title, s.PanelLabel, s.SeriesLabel, s.XName)
	t.Label = "tab:" + slug(s.Name)
	return t
}

// SummaryWidth is the widest line of the terminal summaries (WriteSummary,
// WriteSuiteSummary).
const SummaryWidth = 120

// WriteSummary prints the results table and the claims for a terminal or a
// test log, no line wider than SummaryWidth (the paper cited short).
func (rep *Report) WriteSummary(w io.Writer) error {
	s := rep.Spec
	title := s.Name
	if s.Paper != "" {
		title += " (" + CiteShort(s.Paper, SourceWhere(s.Paper, s.Source)) + ")"
	}
	if err := rep.Aggregate.TableWithPanels(title, s.PanelLabel, s.SeriesLabel, s.XName).WriteTextWidth(w, SummaryWidth); err != nil {
		return err
	}
	var b strings.Builder
	writeClaimLines(&b, rep.Claims, "")
	if rep.Dir != "" {
		b.WriteString(Wrap(fmt.Sprintf("files in %s: %s", rep.Dir, strings.Join(rep.Files, ", ")), SummaryWidth, "    ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeClaimLines writes each claim's line and measurement, wrapped to
// SummaryWidth after indent.
func writeClaimLines(b *strings.Builder, claims []Claim, indent string) {
	for _, c := range claims {
		b.WriteString(Wrap(indent+c.Line(), SummaryWidth, indent+"    ") + "\n")
		b.WriteString(Wrap(indent+"    measured: "+c.Evidence, SummaryWidth, indent+"      ") + "\n")
	}
}

// WriteSuiteSummary prints, per experiment of a suite, its short citation,
// folder and claim lines, then the suite's table; no line is wider than
// SummaryWidth.
func WriteSuiteSummary(w io.Writer, title string, reps []*Report) error {
	var b strings.Builder
	for _, r := range reps {
		head := r.Spec.Name
		if r.Spec.Paper != "" {
			head += " (" + CiteShort(r.Spec.Paper, SourceWhere(r.Spec.Paper, r.Spec.Source)) + ")"
		}
		b.WriteString("\n" + Wrap(head+": "+r.Dir, SummaryWidth, "    ") + "\n")
		writeClaimLines(&b, r.Claims, "  ")
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return SummaryTable(title, reps).WriteTextWidth(w, SummaryWidth)
}

// Wrap breaks s at spaces into lines of at most width characters, the
// second and later lines starting with indent; a word longer than a line
// is cut.
func Wrap(s string, width int, indent string) string {
	if len(indent) >= width/2 {
		indent = ""
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			if len(lines) > 0 {
				line = indent
			} else {
				line = leadingSpace(s)
			}
			line += word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = indent + word
		}
		for len([]rune(line)) > width {
			r := []rune(line)
			lines = append(lines, string(r[:width]))
			line = indent + string(r[width:])
		}
	}
	return strings.Join(append(lines, line), "\n")
}

func leadingSpace(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " "))] }

// Options configure Run.
type Options struct {
	// Out is the results base folder; files go to Out/<experiment>/. Empty
	// means do not write files.
	Out string
	Log io.Writer // progress; nil discards
	// Scale is the cluster experiments' scale (ci, quick, full); "" means
	// DefaultScale.
	Scale string
	// Cluster is where the cluster experiments run: containers (the zero
	// value) or an existing cluster through its target file, resolved where
	// the program starts (clusterref.Resolve).
	Cluster clusterref.Ref
	// Kinds is the registry of cluster kinds; nil means clusters.Kinds()
	// (tests give one with a fake kind).
	Kinds harness.Kinds
	// Args is the command line recorded in manifest.json (nil: os.Args).
	Args []string
	// PaperExperiments lists the experiments that reproduce a paper (for
	// the paper's summary); nil writes no summary.
	PaperExperiments func(paper string) []string
	// Progress hears of long runs (cluster experiments: run i of N, phase);
	// nil means none.
	Progress reports.Progress
	// Resume reads back the runs an interrupted run of the experiment kept
	// under Out/<experiment>/runs/ instead of running them again.
	Resume bool
	// Reps, when > 0, replaces the scale's repetitions per cell of the
	// cluster experiments (observer: pairs of each comparison). With Resume, the kept runs
	// count towards them, so a finished experiment can be extended.
	Reps int
	// Calibration, when > 0, is the reference rate (tuples/s) the open-loop
	// cells offer fractions of, stated instead of measured (Env.Calibration).
	Calibration float64
	// Seed and Instances re-run a graph experiment on other or more
	// generated instances (Env.Seed, Env.Instances); cluster experiments
	// have none and ignore them, saying so in the log.
	Seed      uint64
	Instances int
	// TopologyConf are Storm settings every topology of the cluster experiments gets
	// (Env.TopologyConf).
	TopologyConf []string
}

// Scales of the experiments: how many runs and how long each (the cluster
// experiments; the graph experiments are the same at every scale). The lab
// knows their names, the default and the rule for verdicts; what each scale
// sets is the experiments' business (their Spec's Scales).
const (
	// DefaultScale is the scale of `stormlab experiment` and of Run when
	// Options.Scale is empty. Tests run at ci (the test settings,
	// internal/testsettings).
	DefaultScale   = "quick"
	MinVerdictReps = 3 // repetitions per cell a verdict needs
)

// ScaleNames lists the scales.
var ScaleNames = []string{"ci", "quick", "full"}

// ResolveScale is the one place a scale is resolved: name, else
// DefaultScale; an unknown name is an error.
func ResolveScale(name string) (string, error) {
	if name = strings.TrimSpace(name); name == "" {
		name = DefaultScale
	}
	if err := CheckScale(name); err != nil {
		return "", err
	}
	return name, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// removeIfEmpty removes dir when it holds no file (only empty folders, as a run's raw folder before its
// first run is kept), so a failed or interrupted experiment leaves no empty folder behind.
func removeIfEmpty(dir string) {
	files := 0
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if files == 0 {
		_ = os.RemoveAll(dir)
	}
}

// instancesOf puts o's seed, instances and repetitions in env where spec takes them, and says in the
// log where it does not (a suite passes them to every experiment).
func instancesOf(spec *Spec, o Options, env *Env) error {
	if o.Instances < 0 {
		return fmt.Errorf("instances %d: give a number of generated instances >= 1, or 0 for the experiment's", o.Instances)
	}
	if spec.Needs.Docker() {
		if o.Seed != 0 || o.Instances != 0 {
			fmt.Fprintf(env.Log, "%s: --seed and --instances ignored: a cluster experiment has no generated instances (--reps sets its runs per cell)\n", spec.Name)
		}
		return nil
	}
	env.Seed, env.Instances = o.Seed, o.Instances
	if o.Reps > 0 && spec.FixedReps != "" {
		fmt.Fprintf(env.Log, "%s: --reps ignored: %s\n", spec.Name, spec.FixedReps)
		env.Reps = 0
	}
	return nil
}

// Run runs spec, checks its rows (every metric present and finite),
// aggregates them, checks the claims and, when o.Out is set, writes the
// files. Any error means no result folder was (re)written by this run.
func Run(ctx context.Context, spec *Spec, o Options) (*Report, error) {
	if spec.Run == nil {
		return nil, fmt.Errorf("experiment %s has no Run function", spec.Name)
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	prof, err := ResolveScale(o.Scale)
	if err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	rep := &Report{Spec: spec, Start: time.Now(), Scale: prof}
	where, err := paperCluster(spec, o.Cluster)
	if err != nil {
		return nil, err
	}
	env := Env{Log: log, Scale: prof, Cluster: where, Kinds: o.Kinds, Progress: o.Progress, Resume: o.Resume, Reps: o.Reps, Calibration: o.Calibration,
		TopologyConf: o.TopologyConf}
	if err := instancesOf(spec, o, &env); err != nil {
		return nil, err
	}
	rep.Asked = env
	if o.Out != "" {
		env.RawDir = filepath.Join(o.Out, spec.Name, "runs")
	}
	if c := spec.Cost.For(prof); c != "" && c != "?" {
		fmt.Fprintf(log, "%s: expected wall time at scale %s: %s\n", spec.Name, prof, c)
	}
	existed := o.Out != "" && exists(filepath.Join(o.Out, spec.Name))
	res, err := spec.Run(ctx, env)
	if err != nil {
		if o.Out != "" && !existed {
			removeIfEmpty(filepath.Join(o.Out, spec.Name)) // a failed or interrupted run keeps its finished runs only
		}
		return nil, fmt.Errorf("experiment %s: %w", spec.Name, err)
	}
	rep.Wall = time.Since(rep.Start)
	if b, ok := spec.Cost.Budget(prof); ok && rep.Wall.Seconds() > OverBudget*b.Seconds() {
		fmt.Fprintf(log, "%s: took %s, over its declared cost at scale %s (%s) by more than x%.1f: update the spec's Cost or find what got slower\n",
			spec.Name, rep.Wall.Round(time.Second), prof, spec.Cost.For(prof), OverBudget)
	}
	if res.Experiment == "" {
		res.Experiment = spec.Name
	}
	if res.Metrics == nil {
		res.Metrics = spec.Metrics
	}
	res.Unit = spec.Unit
	if err := res.Validate(); err != nil {
		return nil, err
	}
	rep.Results = res
	if rep.Aggregate, err = SummarisePanels(res, spec.Panel); err != nil {
		return nil, err
	}
	rep.Aggregate.XName = spec.XName
	if spec.Claims != nil {
		rep.Claims = spec.Claims(res, rep.Aggregate)
		JudgeClaims(rep.Claims, res.NoVerdict)
	}
	if o.Out != "" {
		if err := rep.Output(ctx, filepath.Join(o.Out, spec.Name), o.Args, o.PaperExperiments); err != nil {
			return nil, fmt.Errorf("experiment %s: %w", spec.Name, err)
		}
	}
	return rep, nil
}

// SummaryTable is one line per experiment: runs, wall time, paper claims
// that hold / do not hold / are inconclusive (and in parentheses this project's own claims, where an
// experiment has them), sanity checks, output folder.
func SummaryTable(title string, reps []*Report) *reports.Table {
	t := &reports.Table{Title: title, Columns: []string{"experiment", "reproduces", "scale", "rows", "wall (s)",
		"paper claims: holds / not / inconclusive (this project's)", "sanity checks holding", "output"}}
	for _, r := range reps {
		h, n, i, san := CountVerdicts(r.Claims)
		claims := fmt.Sprintf("%d / %d / %d", h, n, i)
		if h, n, i := Tally(r.Claims, ProjectClaim); h+n+i > 0 {
			claims += fmt.Sprintf(" (%d / %d / %d)", h, n, i)
		}
		sanOK := 0
		for _, c := range r.Claims {
			if c.Kind == SanityCheck && c.Holds() {
				sanOK++
			}
		}
		src := r.Spec.Source
		if r.Spec.Paper != "" {
			src = CiteShort(r.Spec.Paper, SourceWhere(r.Spec.Paper, r.Spec.Source))
		}
		t.AddRow(reports.Text(r.Spec.Name), reports.Text(src), reports.Text(r.Scale), reports.Textf("%d", len(r.Results.Rows)),
			reports.Textf("%.1f", r.Wall.Seconds()), reports.Text(claims), reports.Textf("%d/%d", sanOK, san), reports.Text(r.Dir))
	}
	return t
}

// paperCluster is where: sim:paper is the simulated cluster of spec's paper's testbed.
func paperCluster(spec *Spec, where clusterref.Ref) (clusterref.Ref, error) {
	if where.Kind != simcluster.KindName || where.Arg != simcluster.Paper || spec.Needs.Need < NeedsCluster {
		return where, nil
	}
	if spec.PaperCluster == "" {
		return where, fmt.Errorf("%s has no paper's cluster to simulate (--cluster sim:paper): give one, e.g. --cluster sim:nodes-16 (stormlab sim clusters)", spec.Name)
	}
	where.Arg = spec.PaperCluster
	return where, nil
}

// check refuses options no run can take (an unknown kind of cluster, a target not loaded, negative
// repetitions, a topology setting that is not key=value), and sets the default registry of kinds.
func (o *Options) check() error {
	if o.Kinds == nil {
		o.Kinds = clusters.Kinds()
	}
	if _, err := o.Kinds.Kind(o.Cluster); err != nil {
		return err
	}
	if o.Cluster.IsTarget() && o.Cluster.Target == nil {
		return fmt.Errorf("cluster %s: the target file is not loaded (clusterref.Resolve loads it)", o.Cluster)
	}
	if o.Reps < 0 {
		return fmt.Errorf("repetitions %d: give a number of runs per cell >= 1, or 0 for the scale's", o.Reps)
	}
	return CheckTopologyConf(o.TopologyConf)
}

// CheckTopologyConf refuses a topology setting that is not key=value (Env.TopologyConf).
func CheckTopologyConf(conf []string) error {
	for _, kv := range conf {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(k, " \t") {
			return fmt.Errorf("topology setting %q: give KEY=VALUE, a Storm setting such as topology.bolt.wait.progressive.level2.count=0", kv)
		}
	}
	return nil
}

// WaitConf says whether a topology setting ("key=value") is one of Storm's wait strategies' (the
// bolts' or the spouts'): whether idle executors park or sleep, which a run's costs depend on.
func WaitConf(kv string) bool {
	return strings.HasPrefix(kv, "topology.bolt.wait.") || strings.HasPrefix(kv, "topology.spout.wait.")
}
