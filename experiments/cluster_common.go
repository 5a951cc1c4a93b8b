package experiments

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports"
)

// Profiles of the cluster experiments (comm-cost, kpart-cluster,
// deadline). STORMLAB_PROFILE=quick|full chooses one; quick is the default.
//
//   - quick fits the three experiments in CI on a 2-core machine (under
//     20 minutes together): one repetition, short windows, scaled-down
//     topologies and datasets; the shape of every figure is kept.
//   - full is the papers' durations and as much of their scale as a
//     single machine holds (see each experiment's Setup), 3 repetitions.
const ProfileEnv = "STORMLAB_PROFILE"

// ClusterProfile holds the knobs a profile sets.
type ClusterProfile struct {
	Name string
	Reps int

	// comm-cost
	CommWarmUp, CommMeasure time.Duration
	CommDelayMs             int

	// kpart-cluster
	KPartWarmUp, KPartMeasure, KPartStep time.Duration
	KPartWorkers, KPartParallelism       int
	KPartReschedule                      time.Duration

	// deadline
	DeadlineWorkers, DeadlineParallelism int
	WordCountMB, KMeansMB                []float64 // data sizes (full: two each; quick: one)
	LoadPercents                         []float64 // background CPU loads
	LoadMB                               float64   // dataset of the load runs (WordCount and k-means)
	DeadlineMs                           int
	DeadlineMaxRun                       time.Duration

	// WorkerOpts are extra worker JVM options. quick uses the C1 compiler
	// only (-XX:TieredStopAtLevel=1): worker start-up on 0.25-1 core
	// quotas is dominated by JIT compilation, and every scheduler gets
	// the same JVM.
	WorkerOpts string
}

// workerArgs are the topology flags for WorkerOpts.
func (p ClusterProfile) workerArgs() []string {
	if p.WorkerOpts == "" {
		return nil
	}
	return []string{"--worker-childopts", p.WorkerOpts}
}

// ClusterProfileNamed returns the named profile ("quick" or "full").
func ClusterProfileNamed(name string) (ClusterProfile, error) {
	switch name {
	case "", "quick":
		return ClusterProfile{
			Name: "quick", Reps: 1,
			CommWarmUp: 5 * time.Second, CommMeasure: 20 * time.Second, CommDelayMs: 2,
			KPartWarmUp: 5 * time.Second, KPartMeasure: 40 * time.Second, KPartStep: 10 * time.Second,
			KPartWorkers: 4, KPartParallelism: 2, KPartReschedule: 15 * time.Second,
			DeadlineWorkers: 4, DeadlineParallelism: 2,
			WordCountMB: []float64{0.5}, KMeansMB: []float64{0.5},
			LoadPercents: []float64{20, 80}, LoadMB: 0.5, // full adds 50%

			DeadlineMs: 1000, DeadlineMaxRun: 4 * time.Minute,
			WorkerOpts: "-XX:TieredStopAtLevel=1",
		}, nil
	case "full":
		return ClusterProfile{
			Name: "full", Reps: 3,
			CommWarmUp: 60 * time.Second, CommMeasure: 120 * time.Second, CommDelayMs: 2,
			KPartWarmUp: 30 * time.Second, KPartMeasure: 300 * time.Second, KPartStep: 10 * time.Second,
			KPartWorkers: 8, KPartParallelism: 4, KPartReschedule: 30 * time.Second,
			DeadlineWorkers: 8, DeadlineParallelism: 4,
			WordCountMB: []float64{8, 16}, KMeansMB: []float64{8, 16},
			LoadPercents: []float64{20, 50, 80}, LoadMB: 8,
			DeadlineMs: 1000, DeadlineMaxRun: 20 * time.Minute,
		}, nil
	}
	return ClusterProfile{}, fmt.Errorf("unknown profile %q in $%s: use quick or full", name, ProfileEnv)
}

// currentProfile reads $STORMLAB_PROFILE.
func currentProfile() (ClusterProfile, error) {
	return ClusterProfileNamed(strings.TrimSpace(os.Getenv(ProfileEnv)))
}

// expDir is the experiment's output folder (the parent of env.RawDir), or
// "" when no files are kept. Files written there besides the framework's
// (time series, per-node tables) are listed in notes.md, not in manifest.json.
func expDir(env Env) string {
	if env.RawDir == "" {
		return ""
	}
	return filepath.Dir(env.RawDir)
}

func logfOf(env Env) func(string, ...any) {
	return func(f string, a ...any) { fmt.Fprintf(env.Log, f+"\n", a...) }
}

// withSession starts one cluster for scheduler, hands it to fn and always
// tears it down.
func withSession(ctx context.Context, env Env, cs harness.ClusterSpec, scheduler string, fn func(*harness.Session) error) (err error) {
	start := time.Now()
	cs.Logf = logfOf(env)
	s, err := harness.StartSession(ctx, cs, scheduler)
	defer func() {
		if cerr := s.Close(ctx); cerr != nil {
			err = joinErr(err, cerr)
		}
		fmt.Fprintf(env.Log, "cluster for %s: %s in all\n", scheduler, time.Since(start).Round(time.Second))
	}()
	if err != nil {
		return fmt.Errorf("start cluster for %s: %w", scheduler, err)
	}
	return fn(s)
}

func joinErr(a, b error) error {
	if a == nil {
		return b
	}
	return fmt.Errorf("%w; %v", a, b)
}

// keepRun saves a run's raw reports and manifest under env.RawDir/name and
// checks it: an invalid run (bridge fallback, unassigned executors, zero
// throughput) is an error.
func keepRun(env Env, name string, r *harness.RunResult, runErr error) error {
	if r != nil && env.RawDir != "" {
		if err := harness.Save(filepath.Join(env.RawDir, name), r); err != nil && runErr == nil {
			runErr = err
		}
	}
	if runErr != nil {
		return fmt.Errorf("%s: %w", name, runErr)
	}
	if err := harness.Check(r); err != nil {
		return fmt.Errorf("%s: run does not count: %w", name, err)
	}
	return nil
}

// nodesUsed counts the distinct hosts of the topology's own executors.
func nodesUsed(r *harness.RunResult) int {
	hosts := map[string]bool{}
	for _, e := range r.Executors {
		if !strings.HasPrefix(e.Component, "__") && e.Host != "" {
			hosts[e.Host] = true
		}
	}
	return len(hosts)
}

// seriesFigure is one time-series figure: per series (scheduler) the
// values of one metric in each Step window, averaged over repetitions.
type seriesFigure struct {
	Metric Metric
	Get    func(harness.Measurement) float64
}

// writeTimeSeries writes series.csv (every window of every run) and, per
// figure, series-<metric>.png/.svg with the window means over repetitions.
// runs maps a series name to its repetitions' results (in order).
func writeTimeSeries(dir, exp string, order []string, runs map[string][]*harness.RunResult, step time.Duration, figs []seriesFigure) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	if err := writeAtomic(filepath.Join(dir, "series.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		hdr := []string{"series", "rep", "t_s"}
		for _, f := range figs {
			hdr = append(hdr, f.Metric.Name)
		}
		cw.Write(hdr)
		for _, s := range order {
			for rep, r := range runs[s] {
				for i, m := range r.Series {
					rec := []string{s, strconv.Itoa(rep), FormatX(float64(i+1) * step.Seconds())}
					for _, f := range figs {
						rec = append(rec, strconv.FormatFloat(f.Get(m), 'g', 6, 64))
					}
					cw.Write(rec)
				}
			}
		}
		cw.Flush()
		return cw.Error()
	}); err != nil {
		return nil, err
	}
	files = append(files, "series.csv")
	for _, f := range figs {
		tp := &reports.TimeSeriesPlot{Title: fmt.Sprintf("%s: %s every %s", exp, f.Metric.Label, step), XLabel: "time since measurement start (s)", YLabel: f.Metric.Label}
		for _, s := range order {
			var ts reports.TimeSeries
			ts.Name = s
			n := -1
			for _, r := range runs[s] {
				if n < 0 || len(r.Series) < n {
					n = len(r.Series)
				}
			}
			for i := 0; i < n; i++ {
				var vals []float64
				for _, r := range runs[s] {
					vals = append(vals, f.Get(r.Series[i]))
				}
				ts.T = append(ts.T, float64(i+1)*step.Seconds())
				ts.Y = append(ts.Y, mean(vals))
			}
			if len(ts.T) > 0 {
				tp.Series = append(tp.Series, ts)
			}
		}
		if len(tp.Series) == 0 {
			continue
		}
		for _, format := range []string{"png", "svg"} {
			name := "series-" + f.Metric.Name + "." + format
			if err := writeAtomic(filepath.Join(dir, name), func(w io.Writer) error { return tp.Write(w, format) }); err != nil {
				return files, err
			}
			files = append(files, name)
		}
	}
	return files, nil
}
