package experiments

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/harness/usertopo"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/topologies"
)

// simValMetrics are the per-run values sim-validation compares. The analytic baseline predicts the
// mean latency only, so the percentiles are optional (its rows leave them out).
var simValMetrics = []lab.Metric{
	{Name: "throughput", Label: "throughput (acked tuples/s)"},
	{Name: "latency_mean_ms", Label: "complete latency mean (ms)"},
	{Name: "latency_p50_ms", Label: "complete latency p50 (ms)", Optional: true},
	{Name: "latency_p99_ms", Label: "complete latency p99 (ms)", Optional: true},
	{Name: svCPUPerTuple, Label: "CPU per acked tuple (µs, all nodes)", Optional: true},
	{Name: svBytesPerTuple, Label: "bytes sent by the nodes per acked tuple", Optional: true},
}

// svCPUPerTuple is what a run's nodes used per acked tuple: the CPU of all its workers (cores, the
// reports' node_cpu) over its throughput, in µs. No goal judges it; it says why a cell's throughput is
// off: a saturated simulated cluster whose CPU per tuple is twice the real one's runs at half its rate.
const svCPUPerTuple = "cpu_us_per_tuple"

// svBytesPerTuple is what a run's nodes sent per acked tuple: the bytes their interfaces sent over the
// window (the diagnosis's links; a simulated node's messages to other nodes as full frames) over its
// throughput. No goal judges it; it checks the cost model's bytes on a link (tuple sizes, msg_bytes,
// ack_bytes) in every cell, limited or not. A real node also sends what the model has no part for (its
// heartbeats, the workers' reports, TCP's acknowledgements and partly filled frames), so the real figure
// is the higher by that. A run with a node's counters unread has none (it would read low).
const svBytesPerTuple = "link_bytes_per_tuple"

// svValues are the metrics of a run (real or simulated) that sim-validation compares.
func svValues(r *harness.RunResult) map[string]float64 {
	m := r.Measurement
	v := map[string]float64{"throughput": m.Throughput, "latency_mean_ms": m.LatencyMean, "latency_p50_ms": m.LatencyP50, "latency_p99_ms": m.LatencyP99}
	if cores := sumCores(m.NodeCPU); cores > 0 && m.Throughput > 0 {
		v[svCPUPerTuple] = 1e6 * cores / m.Throughput
	}
	if d := r.Diagnosis; d != nil && len(d.Links) > 0 && len(diagnose.LinksUnread(r.NodeStats, d.Links)) == 0 && m.Throughput > 0 {
		sent := 0.0
		for _, l := range d.Links {
			sent += l.SentMbit * 1e6 / 8
		}
		v[svBytesPerTuple] = sent / m.Throughput
	}
	return v
}

// sumCores is the cores of node CPU figures in percent of a core.
func sumCores(nodeCPU map[string]float64) float64 {
	s := 0.0
	for _, pct := range nodeCPU {
		s += pct / 100
	}
	return s
}

// Where a run's figures come from: the real cluster, the simulator, or the analytic baseline.
const (
	svReal     = "real"
	svSim      = "sim"
	svAnalytic = "analytic"
)

// valConfig is one configuration of sim-validation: a topology on a cluster shape at one offered load
// and emulated delay, run under each of its schedulers.
type valConfig struct {
	Topology string  // the project's topology: throughput, wordcount or kmeans; "replay" for File
	File     string  // a topology captured with stormlab capture, replayed (Topology "replay")
	Shape    string  // the container shape (on a target: the target's cluster)
	Load     float64 // fraction of the reference rate, open loop; 0: saturation (unpaced, closed loop)
	DelayMs  int     // emulated delay per inter-node message (0: none)
	LinkMbit float64 // every supervisor's outgoing link limited to this rate (docker.WithLinkRate; 0: unlimited)
	// Schedulers run the configuration; the first is storm-even wherever Load is 0, since that run's
	// throughput is the reference the open-loop configurations of its topology and shape offer a
	// fraction of.
	Schedulers []string
}

// key names the reference rate a configuration shares: its topology on its cluster.
func (c valConfig) key() string { return cmp.Or(c.File, c.Topology) + " on " + c.cluster() }

// cluster names the cluster a configuration runs on: its shape, with its links' limit.
func (c valConfig) cluster() string {
	if c.LinkMbit > 0 {
		return fmt.Sprintf("%s, links %g Mbit/s", c.Shape, c.LinkMbit)
	}
	return c.Shape
}

// String is the configuration in a table's offered-load column and the log.
func (c valConfig) String() string {
	load := "saturation (unpaced)"
	switch {
	case c.File != "":
		load = fmt.Sprintf("open loop at %.0f%% of the captured rate", 100*c.Load)
	case c.Load > 0:
		load = fmt.Sprintf("open loop at %.0f%% of capacity", 100*c.Load)
	}
	s := c.Topology + ", " + c.cluster() + ", " + load
	if c.File != "" {
		s = "replay of " + filepath.Base(c.File) + ", " + c.cluster() + ", " + load
	}
	if c.DelayMs > 0 {
		s += fmt.Sprintf(", delay %d ms", c.DelayMs)
	}
	return s
}

// simValKnobs are sim-validation's settings at one scale.
type simValKnobs struct {
	Scale           string
	Reps            int
	WarmUp, Measure time.Duration
	WorkerOpts      string
	Configs         []valConfig
}

func (k *simValKnobs) reps() *int { return &k.Reps }

// Manifest lists the knobs for manifest.json.
func (k simValKnobs) Manifest() map[string]any {
	var cs []string
	for i, c := range k.Configs {
		cs = append(cs, fmt.Sprintf("c%d: %s under %v", i+1, c, c.Schedulers))
	}
	return map[string]any{"profile": k.Scale, "reps": k.Reps, "sv_warmup": k.WarmUp.String(), "sv_measure": k.Measure.String(),
		"worker_opts": k.WorkerOpts, "sv_configurations": cs}
}

// The schedulers sim-validation covers: Storm's EvenScheduler, R-Storm, K-PART, Aniello's online
// scheduler and the deadline scheduler, three per configuration, turned so each meets every topology.
var (
	svEKR = []string{"storm-even", "rstorm", "kpart"}
	svEKO = []string{"storm-even", "kpart", "online"}
	svERO = []string{"storm-even", "rstorm", "online"}
	svERD = []string{"storm-even", "rstorm", "deadline"}
	svEDO = []string{"storm-even", "deadline", "online"}
	svEDK = []string{"storm-even", "deadline", "kpart"}
)

// simValQuick is the quick scale's 13 configurations: three topologies, both 2-node shapes (the
// 4-node shapes overcommit this host's 2 cores), saturation and 25-90% of capacity, with and without
// delay, and one whose links bind. Each open-loop configuration follows the saturated one it takes its reference from.
var simValQuick = []valConfig{
	{Topology: "wordcount", Shape: "heterogeneous-2", Schedulers: svEKR},
	{Topology: "wordcount", Shape: "heterogeneous-2", Load: 0.5, Schedulers: svEKR},
	{Topology: "wordcount", Shape: "heterogeneous-2", Load: 0.9, Schedulers: svEKO},
	{Topology: "wordcount", Shape: "heterogeneous-2", Load: 0.5, DelayMs: 5, Schedulers: svERD},
	{Topology: "throughput", Shape: "heterogeneous-2", Schedulers: svEKO},
	{Topology: "throughput", Shape: "heterogeneous-2", Load: 0.5, Schedulers: svERD},
	{Topology: "kmeans", Shape: "heterogeneous-2", Schedulers: svEKR},
	{Topology: "kmeans", Shape: "heterogeneous-2", Load: 0.5, Schedulers: svEDO},
	{Topology: "wordcount", Shape: "homogeneous-2", Schedulers: svERO},
	{Topology: "wordcount", Shape: "homogeneous-2", Load: 0.25, Schedulers: svEDK},
	{Topology: "throughput", Shape: "homogeneous-2", Schedulers: svEKR},
	{Topology: "throughput", Shape: "homogeneous-2", Load: 0.9, DelayMs: 5, Schedulers: svEKO},
	// Links bind: the saturated chain sends about 60 KB/s between the nodes at 100-byte payloads.
	{Topology: "throughput", Shape: "heterogeneous-2", LinkMbit: 0.25, Schedulers: svEKR},
}

// simValCI is the ci scale's two configurations, make test's real-against-simulated check: WordCount
// saturated, and open loop at half of that configuration's throughput (its reference).
var simValCI = []valConfig{
	{Topology: "wordcount", Shape: "heterogeneous-2", Schedulers: []string{"storm-even"}},
	{Topology: "wordcount", Shape: "heterogeneous-2", Load: 0.5, Schedulers: []string{"storm-even"}},
}

// simValScales: ci is a walking check for make test (two configurations, one run each, no verdict);
// quick is the 13 configurations x 3 schedulers x 3 runs; full adds the 4-node shapes and longer
// windows, for a user's cluster (a target) or a larger host.
var simValScales = map[string]simValKnobs{
	"ci":    {Scale: "ci", Reps: 1, WarmUp: 20 * time.Second, Measure: 15 * time.Second, WorkerOpts: c1Only, Configs: simValCI},
	"quick": {Scale: "quick", Reps: 3, WarmUp: 20 * time.Second, Measure: 30 * time.Second, WorkerOpts: c1Only, Configs: simValQuick},
	"full":  {Scale: "full", Reps: 3, WarmUp: 60 * time.Second, Measure: 120 * time.Second, Configs: simValFull()},
}

// simValFull is quick's configurations and the same on the 4-node shapes: 24, and 6 more loads.
func simValFull() []valConfig {
	out := slices.Clone(simValQuick)
	for _, c := range simValQuick {
		c.Shape = map[string]string{"heterogeneous-2": "heterogeneous-4", "homogeneous-2": "homogeneous-4"}[c.Shape]
		out = append(out, c)
	}
	for _, c := range []valConfig{
		{Topology: "wordcount", Shape: "heterogeneous-4", Load: 0.25, Schedulers: svERO},
		{Topology: "throughput", Shape: "heterogeneous-4", Load: 0.9, Schedulers: svEDK},
		{Topology: "kmeans", Shape: "heterogeneous-4", Load: 0.9, Schedulers: svEKO},
		{Topology: "kmeans", Shape: "homogeneous-4", Schedulers: svERD},
		{Topology: "kmeans", Shape: "homogeneous-4", Load: 0.25, Schedulers: svEKR},
		{Topology: "wordcount", Shape: "homogeneous-4", Load: 0.5, DelayMs: 5, Schedulers: svEDO},
	} {
		out = append(out, c)
	}
	return out
}

// SimValidation runs configurations on a real cluster and on its simulated twin, and compares them.
func SimValidation() *lab.Spec {
	return &lab.Spec{
		Name:        "sim-validation",
		Description: "the simulator against real runs it was not fitted to: throughput and latency per configuration, beside an analytic queueing model",
		Setup: "configurations of a topology (Throughput chain, WordCount, k-means) on a cluster shape at one offered load " +
			"(saturation, or open loop at 25-90% of the saturated EvenScheduler throughput measured in the same experiment) " +
			"with or without an emulated delay, each under three schedulers (Storm's EvenScheduler and two of R-Storm, K-PART, " +
			"online and the deadline scheduler), each run on the real cluster and then in the simulator on the cluster's " +
			"twin (the same shape, the project's shipped cost model, seeded per run), with the same topology flags (every component declaring 5% of a core and 64 MB, so that R-Storm's " +
			"admission fits the 2-node shapes); the " +
			"analytic baseline is a Jackson network of the same costs (sim.Jackson). None of these runs measured the costs " +
			"(those are runs of the default topology flags under EvenScheduler). Scale ci: WordCount saturated on " +
			"heterogeneous-2 under EvenScheduler, 1 run, no verdict; quick: 13 configurations on the 2-node shapes (one with links limited to 0.25 Mbit/s) x 3 " +
			"schedulers x 3 runs, at most 20 s warm-up (the window opens once throughput is steady) and 30 s measurement; " +
			"full: 32 configurations (the 4-node shapes too), 60 s + 120 s. The unit of a goal is a configuration under one " +
			"scheduler (a cell); a run is its cell's repetition.",
		SeriesLabel: "scheduler, where",
		XName:       "configuration",
		XLabel:      "configuration",
		XConditions: true,
		Metrics:     simValMetrics,
		Cost:        lab.Cost{CI: "~3 min", Quick: "~150 min", Full: "~10 h"},
		Needs: lab.Needs{Need: lab.NeedsCluster,
			Why:       "it compares the simulator with real runs: it runs the project's topologies on a Storm cluster (its own containers of the 2-node and 4-node shapes, or a target) and the same runs in the simulator",
			RealStorm: "it validates the simulator against a real Storm cluster"},
		Scales:   scales(simValScales),
		Extra:    []string{"validation.csv (errors per configuration and metric)", "validation.json (the validation record a cost model ships beside it)", "validation-*.png/svg (simulated and analytic against real, y = x)"},
		OnReplay: simValidationOn,
		Run: func(ctx context.Context, env lab.Env) (*lab.Results, error) {
			return runSimValidation(ctx, env, simValScales)
		},
		Claims: simValClaims,
	}
}

// simValidationOn is sim-validation on a captured topology (--topology replay:FILE): the replay on each
// shape of the scale, open loop at 50%, 100% and 150% of the captured rate (the spouts scaled
// together), under three schedulers (ci: 50% and 100% under EvenScheduler).
func simValidationOn(file string, warnings []string) *lab.Spec {
	s := SimValidation()
	table := map[string]simValKnobs{}
	for scale, k := range simValScales {
		k.Configs = nil
		loads := []float64{0.5, 1, 1.5}
		if scale == "ci" {
			loads = []float64{0.5, 1} // the walking check: EvenScheduler alone
		}
		for i, shape := range valShapes(simValScales[scale].Configs) {
			for j, load := range loads {
				sched := [][]string{svEKR, svERO, svEDK}[(i+j)%3]
				if scale == "ci" {
					sched = []string{"storm-even"}
				}
				k.Configs = append(k.Configs, valConfig{Topology: "replay", File: file, Shape: shape, Load: load, Schedulers: sched})
			}
		}
		table[scale] = k
	}
	s.Scales = scales(table)
	s.Setup = "the topology captured in " + file + ", replayed (its components, parallelism, groupings, CPU per tuple " +
		"and sizes as captured; the simulator runs the same capture) on each shape of the scale, open loop at 50%, 100% " +
		"and 150% of its captured rate, under three schedulers; otherwise as sim-validation: " + s.Setup
	if len(warnings) > 0 {
		s.Setup += "; what the replay changes: " + strings.Join(warnings, "; ")
	}
	s.Run = func(ctx context.Context, env lab.Env) (*lab.Results, error) { return runSimValidation(ctx, env, table) }
	return s
}

// simValRunner runs sim-validation's pairs of runs.
type simValRunner struct {
	runBase
	k     simValKnobs
	refs  map[string]float64                // valConfig.key -> reference rate (tuples/s)
	sizes map[string]simcluster.ClusterSize // valConfig.cluster -> its twin's nodes and cores
	twins map[string]*simcluster.Cluster    // valConfig.cluster -> its twin
}

func runSimValidation(ctx context.Context, env lab.Env, table map[string]simValKnobs) (*lab.Results, error) {
	_, k, _, err := knobsOf(env, table)
	if err != nil {
		return nil, err
	}
	if err := checkValConfigs(k.Configs); err != nil {
		return nil, err
	}
	res := &lab.Results{Experiment: "sim-validation", Metrics: simValMetrics, Scale: k.Scale, NoVerdict: noVerdict(k.Scale, k.Reps), Knobs: knobsManifest(k)}
	res.Knobs["sv_skipped"] = []string{}
	n := 0
	for _, c := range k.Configs {
		n += len(c.Schedulers) * k.Reps
	}
	vr := &simValRunner{runBase: runBase{env: env, res: res, counter: newRunCounter(env, n)}, k: k, refs: map[string]float64{}, sizes: map[string]simcluster.ClusterSize{}, twins: map[string]*simcluster.Cluster{}}
	for _, cluster := range valClusters(k.Configs) {
		if err := vr.cluster(ctx, cluster); err != nil {
			return nil, err
		}
	}
	return res, vr.files()
}

// files adds validation.csv, validation.json and the figures to the results.
func (vr *simValRunner) files() error {
	model, err := simcluster.ContainersCosts()
	if err != nil {
		return err
	}
	cells := valCells(vr.res)
	vr.res.Files = append(vr.res.Files, lab.File{Name: "validation.csv", Write: func(w io.Writer) error { return writeValidationCSV(w, cells) }})
	vr.res.Figures = validationFigures(cells)
	real := "containers:" + strings.Join(valShapes(vr.k.Configs), ",")
	if t := vr.env.Cluster.Target; t != nil {
		real = "target " + cmp.Or(t.Name, "cluster")
	}
	addValidationFile(vr.res, cells, valRecordMeta{model: model, realCluster: real, describe: func(x int) (simcluster.ValidatedConfiguration, bool) {
		if x < 1 || x > len(vr.k.Configs) {
			return simcluster.ValidatedConfiguration{}, false
		}
		c, _ := configRecord(vr.k.Configs[x-1])
		size, ok := vr.sizes[vr.k.Configs[x-1].cluster()]
		c.Size = size
		return c, ok
	}})
	return nil
}

// valClusters are the first configuration of each cluster of configs (valConfig.cluster), in order.
func valClusters(configs []valConfig) []valConfig {
	var out []valConfig
	for _, c := range configs {
		if !slices.ContainsFunc(out, func(o valConfig) bool { return o.cluster() == c.cluster() }) {
			out = append(out, c)
		}
	}
	return out
}

// valShapes are the shapes of configs in order of first appearance.
func valShapes(configs []valConfig) []string {
	var out []string
	for _, c := range configs {
		if !slices.Contains(out, c.Shape) {
			out = append(out, c.Shape)
		}
	}
	return out
}

// checkValConfigs refuses a configuration list whose open-loop configuration has no saturated
// EvenScheduler configuration of its topology and shape before it (its reference rate).
func checkValConfigs(configs []valConfig) error {
	saturated := map[string]bool{}
	for i, c := range configs {
		if len(c.Schedulers) == 0 {
			return fmt.Errorf("sim-validation: configuration %d (%s) has no scheduler", i+1, c)
		}
		switch {
		case c.File != "":
			if !(c.Load > 0) {
				return fmt.Errorf("sim-validation: configuration %d (%s): a replay is open loop, at a fraction of its captured rate above 0", i+1, c)
			}
		case c.Load == 0:
			if c.Schedulers[0] != "storm-even" {
				return fmt.Errorf("sim-validation: saturated configuration %d (%s) must run storm-even first: it measures the reference", i+1, c)
			}
			saturated[c.key()] = true
		case !saturated[c.key()]:
			return fmt.Errorf("sim-validation: configuration %d (%s) offers a fraction of the saturated throughput of %s, but no saturated configuration of it comes before", i+1, c, c.key())
		}
	}
	return nil
}

// cluster runs every configuration on first's cluster: on the real cluster (the experiment's own
// containers of that shape and link limit, or the target) and on its simulated twin. A target's links
// are its own: configurations that limit them are skipped there, and the manifest says so.
func (vr *simValRunner) cluster(ctx context.Context, first valConfig) error {
	cs := harness.ClusterSpec{Shape: first.Shape, Seed: 1, Mul: 5}
	if first.LinkMbit > 0 {
		if vr.env.Cluster.Target != nil {
			vr.res.Knobs["sv_skipped"] = append(vr.res.Knobs["sv_skipped"].([]string), first.cluster()+": a target's links are its own")
			fmt.Fprintf(vr.env.Log, "sim-validation: %s skipped: a target's links are its own\n", first.cluster())
			return nil
		}
		cs.Options = []docker.Option{docker.WithLinkRate(first.LinkMbit)}
	}
	return withCluster(ctx, vr.env, cs, "storm-even", func(real *clusterView) error {
		twin, err := vr.twin(real, cs, first.cluster())
		if err != nil {
			return err
		}
		for i, c := range vr.k.Configs {
			if c.cluster() != first.cluster() {
				continue
			}
			if err := vr.config(ctx, real, twin, i, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// twin is the simulated cluster of real (named name): on containers the twin of the same shape and
// link limits (simcluster.TwinOf), on a target one node per supervisor with its CPU capacity.
func (vr *simValRunner) twin(real *clusterView, cs harness.ClusterSpec, name string) (*clusterView, error) {
	n, err := simcluster.TwinOf(cs)
	if vr.env.Cluster.Target != nil {
		capacity, cerr := real.Capacity()
		if cerr != nil {
			return nil, cerr
		}
		n, err = simcluster.FromCapacity("target "+cmp.Or(vr.env.Cluster.Target.Name, "cluster"), capacity, 4, 4096)
	}
	if err != nil {
		return nil, err
	}
	c, err := simcluster.OpenTwin(n, cs, "storm-even", nil)
	if err != nil {
		return nil, err
	}
	size := simcluster.ClusterSize{Nodes: len(n.Nodes)}
	for _, node := range n.Nodes {
		size.Cores += node.Cores
	}
	vr.sizes[name] = size
	vr.twins[name] = c
	return &clusterView{shared: &shared{ctx: real.ctx, env: vr.env, cs: cs, s: c, started: time.Now()}, scheduler: "storm-even"}, nil
}

// config runs configuration i (0-based) under each of its schedulers, repetitions outermost and the
// schedulers' order turned each time; a saturated configuration's EvenScheduler runs set its key's
// reference rate.
func (vr *simValRunner) config(ctx context.Context, real, twin *clusterView, i int, c valConfig) error {
	rate := 0.0
	if c.File != "" {
		cp, _, err := topologies.ReadReplay(c.File)
		if err != nil {
			return err
		}
		rate = c.Load * cp.OfferedRate()
	} else if c.Load > 0 {
		ref, ok := vr.refs[c.key()]
		if !ok {
			return fmt.Errorf("sim-validation: no reference rate for %s (its saturated EvenScheduler runs acked nothing)", c.key())
		}
		rate = c.Load * ref
	}
	var evenTput []float64
	for rep := range vr.k.Reps {
		for _, sched := range rotated(c.Schedulers, rep) {
			r, err := vr.pair(ctx, real.as(sched), twin.as(sched), i, c, sched, rep, rate)
			if err != nil {
				return err
			}
			if sched == "storm-even" && c.Load == 0 && r.Measurement.Throughput > 0 {
				evenTput = append(evenTput, r.Measurement.Throughput)
			}
		}
	}
	if c.Load == 0 && len(evenTput) > 0 {
		ref, _ := stats.Median(evenTput)
		vr.refs[c.key()] = ref
		vr.res.Knobs["sv_reference_"+c.Topology+"_"+c.Shape] = ref
		fmt.Fprintf(vr.env.Log, "sim-validation: %s: EvenScheduler's saturated throughput %.0f tuples/s (the reference)\n", c.key(), ref)
	}
	return nil
}

// pair is one repetition of configuration i under sched: the real run, then the same run simulated.
// It adds a row for each and one for the analytic baseline, and returns the real run.
func (vr *simValRunner) pair(ctx context.Context, real, twin *clusterView, i int, c valConfig, sched string, rep int, rate float64) (*harness.RunResult, error) {
	name := fmt.Sprintf("sv-c%02d-%s-r%d", i+1, sched, rep)
	offered := c.String()
	if rate > 0 {
		offered += fmt.Sprintf(": %.0f tuples/s", rate)
	}
	vr.counter.start(fmt.Sprintf("c%d %s rep %d", i+1, sched, rep), vr.k.WarmUp+vr.k.Measure)
	fmt.Fprintf(vr.env.Log, "sim-validation: c%d (%s) under %s, rep %d\n", i+1, offered, sched, rep)
	base := lab.Row{X: float64(i + 1), Rep: rep, Seed: uint64(rep + 1), Offered: offered}
	r, err := vr.one(ctx, real, name, c, rate, rep, base, sched+" "+svReal)
	if err != nil {
		return nil, err
	}
	vr.twins[c.cluster()].UseSupervisorIDs(simcluster.RecordedSupervisorIDs(r)) // place as the real cluster did
	s, err := vr.one(ctx, twin, name+"-sim", c, rate, rep, base, sched+" "+svSim)
	if err != nil {
		return nil, err
	}
	notePlacement(vr.env, vr.res, name, r, s)
	if a := s.Simulated; a != nil && a.Analytic != nil {
		row := base
		row.Series = sched + " " + svAnalytic
		row.Values = map[string]float64{"throughput": a.Analytic.Throughput, "latency_mean_ms": a.Analytic.LatencyMeanMs}
		row.Validity = s.Validity // a prediction of the simulated run's inputs: no diagnosis of its own
		vr.res.Add(row)
	}
	return r, nil
}

// one runs (or reads back) one run on cluster and adds its row as series.
func (vr *simValRunner) one(ctx context.Context, cluster *clusterView, name string, c valConfig, rate float64, rep int, base lab.Row, series string) (*harness.RunResult, error) {
	spec, err := vr.spec(name, c, rate, rep)
	if err != nil {
		return nil, err
	}
	r, resumed, err := runOrResume(vr.env, name, func() (*harness.RunResult, error) { return cluster.Run(ctx, spec) })
	if err := keepRun(vr.env, name, r, err, resumed); err != nil {
		return nil, err
	}
	if err := checkKeptRate(name, r, resumed, rate); err != nil {
		return nil, err
	}
	m := r.Measurement
	row := base
	row.Series = series
	row.Values = svValues(r)
	vr.res.Add(screened(row, r))
	fmt.Fprintf(vr.env.Log, "sim-validation: %s: %.0f tuples/s, latency p50 %.1f ms, p99 %.1f ms\n", series, m.Throughput, m.LatencyP50, m.LatencyP99)
	return r, nil
}

// svDemands are every component's declared demands in every run, whatever its scheduler, so that a
// configuration's runs differ in their scheduler only: 5% of a core and 64 MB on-heap, as the deadline
// experiment declares them, so that R-Storm's admission fits the 2-node shapes (Storm's default of
// 128 MB a component leaves WordCount's executors without memory on heterogeneous-2). Only R-Storm
// reads them (on the real cluster and in its simulated twin alike).
var svDemands = []string{"--conf", "topology.component.cpu.pcore.percent=5", "--conf", "topology.component.resources.onheap.memory.mb=64"}

// spec is the run of configuration c named name: the topology's default work (what the cost model
// knows), 4 workers, the demands svDemands, open loop at rate (0: unpaced).
func (vr *simValRunner) spec(name string, c valConfig, rate float64, rep int) (harness.RunSpec, error) {
	args := []string{"--workers", "4", "--seed", strconv.Itoa(rep + 1), "--report-interval-secs", "2"}
	args = append(args, svDemands...)
	if rate > 0 {
		args = append(args, openLoopArgs(rate)...)
	} else {
		args = append(args, "--interval-ms", "0")
	}
	if c.DelayMs > 0 {
		args = append(args, "--conf", "storm.messaging.transport="+docker.DelayTransport, "--conf", docker.DelayConf+"="+strconv.Itoa(c.DelayMs))
	}
	args = append(args, workerArgs(vr.k.WorkerOpts)...)
	topo, err := vr.topology(name, c, args)
	if err != nil {
		return harness.RunSpec{}, err
	}
	return harness.RunSpec{Topology: topo, WarmUp: vr.k.WarmUp, Measure: vr.k.Measure, Settle: true}, nil
}

// topology is configuration c's topology named name with args: one of the project's, or the replay
// of a capture (its own --workers kept: the capture's).
func (vr *simValRunner) topology(name string, c valConfig, args []string) (harness.TopologyRun, error) {
	if c.File == "" {
		return harness.StormTopology(c.Topology, name, args...)
	}
	if i := slices.Index(args, "--workers"); i >= 0 {
		args = slices.Delete(slices.Clone(args), i, i+2)
	}
	topo, _, err := usertopo.Replay(c.File, append([]string{"--name", name}, args...)...)
	topo.Name = name
	return topo, err
}
