package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stormlab/stormlab/reports"
)

// Report is one finished experiment run.
type Report struct {
	Spec      *Spec
	Results   *Results
	Aggregate *Aggregate
	Claims    []Claim // judged (JudgeClaims)
	Profile   string  // profile name the experiment ran under
	Start     time.Time
	Wall      time.Duration // time of Spec.Run (without writing files)
	Dir       string        // output folder, after Output
	Files     []string      // files written, after Output
}

// Table is the experiment's results table (mean ± 95% CI).
func (rep *Report) Table() *reports.Table {
	s := rep.Spec
	title := s.Name
	if s.Source != "" {
		title += " (" + s.Source + ")"
	}
	return rep.Aggregate.TableWithPanels(title, s.PanelLabel, s.SeriesLabel, s.XName)
}

// WriteSummary prints the results table and the claims for a terminal or a
// test log.
func (rep *Report) WriteSummary(w io.Writer) error {
	if err := rep.Table().WriteText(w); err != nil {
		return err
	}
	for _, c := range rep.Claims {
		if _, err := fmt.Fprintf(w, "%s\n    measured: %s\n", c.Line(), c.Evidence); err != nil {
			return err
		}
	}
	if rep.Dir != "" {
		_, err := fmt.Fprintf(w, "files: %s/{%s}\n", rep.Dir, strings.Join(rep.Files, ","))
		return err
	}
	return nil
}

// Options configure Run.
type Options struct {
	// Out is the results base folder; files go to Out/<experiment>/. Empty
	// means do not write files.
	Out string
	Log io.Writer // progress; nil discards
	// Profile is the cluster experiments' profile (ci, quick, full); ""
	// means $STORMLAB_PROFILE, else DefaultProfile.
	Profile string
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
	// Reps, when > 0, replaces the profile's repetitions per cell of the
	// cluster experiments (observer: pairs). With Resume, the kept runs
	// count towards them, so a finished experiment can be extended.
	Reps int
}

// Profiles of the experiments. The lab knows their names and the rule for
// verdicts; what each profile sets is the experiments' business.
const (
	ProfileEnv     = "STORMLAB_PROFILE" // environment variable choosing a profile
	DefaultProfile = "ci"               // under go test and make test
	MinVerdictReps = 3                  // repetitions per cell a verdict needs
)

// ProfileNames lists the profiles.
var ProfileNames = []string{"ci", "quick", "full"}

// ResolveProfile picks the profile: name, else $STORMLAB_PROFILE, else
// DefaultProfile; an unknown name is an error.
func ResolveProfile(name string) (string, error) {
	if name = strings.TrimSpace(name); name == "" {
		name = strings.TrimSpace(os.Getenv(ProfileEnv))
	}
	if name == "" {
		name = DefaultProfile
	}
	for _, p := range ProfileNames {
		if p == name {
			return name, nil
		}
	}
	return "", fmt.Errorf("unknown profile %q: use ci, quick or full (in $%s or --profile)", name, ProfileEnv)
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
	prof, err := ResolveProfile(o.Profile)
	if err != nil {
		return nil, err
	}
	rep := &Report{Spec: spec, Start: time.Now(), Profile: prof}
	if o.Reps < 0 {
		return nil, fmt.Errorf("repetitions %d: give a number of runs per cell >= 1, or 0 for the profile's", o.Reps)
	}
	env := Env{Log: log, Profile: prof, Progress: o.Progress, Resume: o.Resume, Reps: o.Reps}
	if o.Out != "" {
		env.RawDir = filepath.Join(o.Out, spec.Name, "runs")
	}
	res, err := spec.Run(ctx, env)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", spec.Name, err)
	}
	rep.Wall = time.Since(rep.Start)
	if res.Experiment == "" {
		res.Experiment = spec.Name
	}
	if res.Metrics == nil {
		res.Metrics = spec.Metrics
	}
	if err := res.Validate(); err != nil {
		return nil, err
	}
	rep.Results = res
	if rep.Aggregate, err = SummarisePanels(res, spec.Panel); err != nil {
		return nil, err
	}
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
// that hold / do not hold / are inconclusive, sanity checks, output folder.
func SummaryTable(title string, reps []*Report) *reports.Table {
	t := &reports.Table{Title: title, Columns: []string{"experiment", "reproduces", "profile", "rows", "wall (s)",
		"paper claims: holds / does not hold / inconclusive", "sanity checks holding", "output"}}
	for _, r := range reps {
		h, n, i, san := CountVerdicts(r.Claims)
		sanOK := 0
		for _, c := range r.Claims {
			if c.Kind == SanityCheck && c.Holds() {
				sanOK++
			}
		}
		t.AddRow(reports.Text(r.Spec.Name), reports.Text(r.Spec.Source), reports.Text(r.Profile), reports.Textf("%d", len(r.Results.Rows)),
			reports.Textf("%.1f", r.Wall.Seconds()), reports.Textf("%d / %d / %d", h, n, i), reports.Textf("%d/%d", sanOK, san), reports.Text(r.Dir))
	}
	return t
}
