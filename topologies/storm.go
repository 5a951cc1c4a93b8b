package topologies

import (
	"errors"
	"fmt"
	"math"
)

// This file models Storm topologies at the component level and expands
// them into executor graphs, and it names the real Java topologies of
// storm/ (jar, main classes, default arguments) for the harness.

// Grouping is a Storm stream grouping.
type Grouping string

// Groupings understood by Topology.Graph.
const (
	// GroupShuffle spreads a stream evenly over the target executors.
	GroupShuffle Grouping = "shuffle"
	// GroupFields routes by a key hash. Without knowing the key
	// distribution it is modelled as uniform, like shuffle.
	GroupFields Grouping = "fields"
	// GroupAll sends every tuple to every target executor.
	GroupAll Grouping = "all"
	// GroupGlobal sends every tuple to the target's first executor (the
	// one with the lowest task id in Storm).
	GroupGlobal Grouping = "global"
)

// Component is a spout or bolt with its parallelism (executors) and a
// guess of the CPU one executor needs. CPU follows Storm's
// ResourceAwareScheduler convention (setCPULoad, percent of one core: 100 =
// a full core) and becomes the weight of each of the component's vertices.
type Component struct {
	Name        string
	Parallelism int
	CPU         float64
}

// Stream is a component-level edge. Rate is the tuples per second the From
// component emits on the stream in total (over all its executors).
type Stream struct {
	From     string
	To       string
	Grouping Grouping
	Rate     float64
	ID       string // Storm's stream id; "" is "default"
}

// Topology is a Storm topology as components and streams. Ackers > 0 adds
// Storm's acker executors (component "__acker", CPU AckerCPU each) and their
// traffic to the graph; 0 leaves them out.
type Topology struct {
	Name       string
	Components []Component
	Streams    []Stream
	Ackers     int
	AckerCPU   float64
}

// AckerComponent is Storm's name for the acker bolt.
const AckerComponent = "__acker"

// Graph expands t into an executor graph. Vertices get IDs 0..N-1 in
// component order, each component's executors consecutively (so vertex
// order follows Storm's task order when components are listed sorted).
// Edge weights are tuples per second between two executors:
//
//   - shuffle, fields: every source executor to every target executor,
//     Rate / (Pfrom * Pto) each;
//   - all: every pair, Rate / Pfrom each (each tuple is copied to all
//     targets);
//   - global: every source executor to the target's first executor,
//     Rate / Pfrom each.
//
// With Ackers > 0, acker traffic is added as Storm generates it: each bolt
// executor sends one ack per tuple it receives, each spout executor one
// init per tuple it emits, both spread evenly over the ackers (the acker
// stream is fields-grouped on the tuple id), and the ackers send one
// completion per spout tuple back to its spout. A spout is a component that
// no stream enters.
//
// Graph returns an error naming the problem for an empty topology,
// duplicate or empty component names, parallelism < 1, negative or
// non-finite CPU or rates, streams between unknown components and unknown
// groupings.
func (t Topology) Graph() (*Graph, error) {
	if len(t.Components) == 0 {
		return nil, fmt.Errorf("topology %q has no components: add at least a spout", t.Name)
	}
	first := make(map[string]int, len(t.Components)) // component -> first vertex id
	par := make(map[string]int, len(t.Components))
	g := &Graph{}
	for _, c := range t.Components {
		if c.Name == "" {
			return nil, fmt.Errorf("topology %q: a component has no name", t.Name)
		}
		if c.Name == AckerComponent {
			return nil, fmt.Errorf("topology %q: component name %q is reserved: set Topology.Ackers instead", t.Name, c.Name)
		}
		if _, dup := first[c.Name]; dup {
			return nil, fmt.Errorf("topology %q: component %q is declared twice", t.Name, c.Name)
		}
		if c.Parallelism < 1 {
			return nil, fmt.Errorf("topology %q: component %q has parallelism %d: it must be >= 1", t.Name, c.Name, c.Parallelism)
		}
		if !finiteNonNeg(c.CPU) {
			return nil, fmt.Errorf("topology %q: component %q has CPU %v: it must be finite and >= 0", t.Name, c.Name, c.CPU)
		}
		first[c.Name] = len(g.Vertices)
		par[c.Name] = c.Parallelism
		for i := 0; i < c.Parallelism; i++ {
			g.Vertices = append(g.Vertices, Vertex{ID: len(g.Vertices), Weight: c.CPU, Component: c.Name})
		}
	}
	hasInput := make(map[string]bool)
	for i, s := range t.Streams {
		if _, ok := first[s.From]; !ok {
			return nil, fmt.Errorf("topology %q: stream %d (%s -> %s) starts at unknown component %q", t.Name, i, s.From, s.To, s.From)
		}
		if _, ok := first[s.To]; !ok {
			return nil, fmt.Errorf("topology %q: stream %d (%s -> %s) ends at unknown component %q", t.Name, i, s.From, s.To, s.To)
		}
		if !finiteNonNeg(s.Rate) {
			return nil, fmt.Errorf("topology %q: stream %d (%s -> %s) has rate %v: it must be finite and >= 0", t.Name, i, s.From, s.To, s.Rate)
		}
		hasInput[s.To] = true
		f0, pf := first[s.From], par[s.From]
		t0, pt := first[s.To], par[s.To]
		switch s.Grouping {
		case GroupShuffle, GroupFields:
			w := s.Rate / float64(pf*pt)
			for a := 0; a < pf; a++ {
				for b := 0; b < pt; b++ {
					g.Edges = append(g.Edges, Edge{From: f0 + a, To: t0 + b, Weight: w})
				}
			}
		case GroupAll:
			w := s.Rate / float64(pf)
			for a := 0; a < pf; a++ {
				for b := 0; b < pt; b++ {
					g.Edges = append(g.Edges, Edge{From: f0 + a, To: t0 + b, Weight: w})
				}
			}
		case GroupGlobal:
			w := s.Rate / float64(pf)
			for a := 0; a < pf; a++ {
				g.Edges = append(g.Edges, Edge{From: f0 + a, To: t0, Weight: w})
			}
		default:
			return nil, fmt.Errorf("topology %q: stream %d (%s -> %s) has grouping %q: use shuffle, fields, all or global", t.Name, i, s.From, s.To, s.Grouping)
		}
	}
	if t.Ackers < 0 {
		return nil, fmt.Errorf("topology %q has %d ackers: use 0 (none) or more", t.Name, t.Ackers)
	}
	if t.Ackers > 0 {
		if !finiteNonNeg(t.AckerCPU) {
			return nil, fmt.Errorf("topology %q: AckerCPU %v must be finite and >= 0", t.Name, t.AckerCPU)
		}
		addAckers(g, t, hasInput)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("topology %q: %w", t.Name, err)
	}
	return g, nil
}

// addAckers appends the acker executors and their edges (see Graph).
func addAckers(g *Graph, t Topology, hasInput map[string]bool) {
	n := len(g.Vertices)
	in := make([]float64, n)
	out := make([]float64, n)
	for _, e := range g.Edges {
		out[e.From] += e.Weight
		in[e.To] += e.Weight
	}
	a0 := n
	for i := 0; i < t.Ackers; i++ {
		g.Vertices = append(g.Vertices, Vertex{ID: a0 + i, Weight: t.AckerCPU, Component: AckerComponent})
	}
	k := float64(t.Ackers)
	for v := 0; v < n; v++ {
		spout := !hasInput[g.Vertices[v].Component]
		for i := 0; i < t.Ackers; i++ {
			if spout {
				if out[v] > 0 {
					g.Edges = append(g.Edges,
						Edge{From: v, To: a0 + i, Weight: out[v] / k},
						Edge{From: a0 + i, To: v, Weight: out[v] / k})
				}
			} else if in[v] > 0 {
				g.Edges = append(g.Edges, Edge{From: v, To: a0 + i, Weight: in[v] / k})
			}
		}
	}
}

func finiteNonNeg(x float64) bool { return x >= 0 && !math.IsInf(x, 0) && !math.IsNaN(x) }

// Nominal rates and CPU guesses of the spec topologies. They are starting
// points for graph experiments and for a scheduler's first placement before
// measured traffic arrives, not measurements: the real figures come from
// the instrumentation.
const (
	// ThroughputSpoutRate is one Throughput spout executor's rate: a tuple
	// every 5 ms (Jian, Lu and Zhang, "Storm heuristic balanced
	// graph-partition scheduling optimization method", 2018, sec. 2.1).
	ThroughputSpoutRate = 200.0
	// WordCountSentenceRate is the nominal sentence rate of the whole
	// WordCount spout; sentences average 10 words (5..15 uniform).
	WordCountSentenceRate     = 1000.0
	WordCountWordsPerSentence = 10.0
	// KMeansPointRate is the nominal point rate of the k-means spout and
	// KMeansBroadcastEvery the points of one cluster between centroid
	// broadcasts (the Java default --broadcast-every 100).
	KMeansPointRate      = 1000.0
	KMeansBroadcastEvery = 100.0
)

// ThroughputChain is the K-PART paper's Throughput Test topology (sec. 2.1):
// spout -> bolt1 -> bolt2 -> bolt3, shuffle grouping, every component with
// the given parallelism, each spout executor emitting every 5 ms. The bolts
// only forward, so every executor gets a small CPU guess (2% of a core).
// Add ackers with t.Ackers (the paper runs one per worker: 4).
func ThroughputChain(parallelism int) Topology {
	rate := ThroughputSpoutRate * float64(parallelism)
	return Topology{
		Name: "throughput",
		Components: []Component{
			{Name: "spout", Parallelism: parallelism, CPU: 2},
			{Name: "bolt1", Parallelism: parallelism, CPU: 2},
			{Name: "bolt2", Parallelism: parallelism, CPU: 2},
			{Name: "bolt3", Parallelism: parallelism, CPU: 2},
		},
		Streams: []Stream{
			{From: "spout", To: "bolt1", Grouping: GroupShuffle, Rate: rate},
			{From: "bolt1", To: "bolt2", Grouping: GroupShuffle, Rate: rate},
			{From: "bolt2", To: "bolt3", Grouping: GroupShuffle, Rate: rate},
		},
		AckerCPU: 2,
	}
}

// WordCount is the 4-component WordCount of both papers' evaluations:
// sentence -shuffle-> split -fields(word)-> count -shuffle-> report, at
// WordCountSentenceRate sentences/s. CPU guesses per executor: spout 10,
// split 20, count 15, report 10 (percent of a core).
func WordCount(parallelism int) Topology {
	words := WordCountSentenceRate * WordCountWordsPerSentence
	return Topology{
		Name: "wordcount",
		Components: []Component{
			{Name: "sentence", Parallelism: parallelism, CPU: 10},
			{Name: "split", Parallelism: parallelism, CPU: 20},
			{Name: "count", Parallelism: parallelism, CPU: 15},
			{Name: "report", Parallelism: parallelism, CPU: 10},
		},
		Streams: []Stream{
			{From: "sentence", To: "split", Grouping: GroupShuffle, Rate: WordCountSentenceRate},
			{From: "split", To: "count", Grouping: GroupFields, Rate: words},
			{From: "count", To: "report", Grouping: GroupShuffle, Rate: words},
		},
		AckerCPU: 5,
	}
}

// KMeans is the deadline paper's complex query as built in
// storm/.../KMeansTopology.java: points -shuffle-> assign -fields(cluster)->
// update -shuffle-> sink, and update -all-> assign for centroid broadcasts
// (KMeansPointRate / KMeansBroadcastEvery per second in total). CPU guesses
// per executor: points 10, assign 40 (k*d distance work), update 20, sink 5.
func KMeans(parallelism int) Topology {
	return Topology{
		Name: "kmeans",
		Components: []Component{
			{Name: "points", Parallelism: parallelism, CPU: 10},
			{Name: "assign", Parallelism: parallelism, CPU: 40},
			{Name: "update", Parallelism: parallelism, CPU: 20},
			{Name: "sink", Parallelism: parallelism, CPU: 5},
		},
		Streams: []Stream{
			{From: "points", To: "assign", Grouping: GroupShuffle, Rate: KMeansPointRate},
			{From: "assign", To: "update", Grouping: GroupFields, Rate: KMeansPointRate},
			{From: "update", To: "sink", Grouping: GroupShuffle, Rate: KMeansPointRate},
			{From: "update", To: "assign", Grouping: GroupAll, Rate: KMeansPointRate / KMeansBroadcastEvery, ID: "centroids"},
		},
		AckerCPU: 5,
	}
}

// StormJar is the shaded jar with the Java topologies and the
// instrumentation, relative to the repository root. Build it with
// `mvn -q package` in topologies/storm (offline: `mvn -q -o package`).
const StormJar = "topologies/storm/target/stormlab-topologies.jar"

// BurnerClass is the main class of the burner topology: background CPU load as a topology (a spout
// that spins a share of every 100 ms; harness/burner.go submits one per supervisor). It is not in
// StormMains: it is a load, not a topology to measure.
const BurnerClass = "org.stormlab.topologies.BurnerTopology"

// StormSubmitted is the stdout prefix a main class prints, followed by the
// topology name, after a successful submit. Exit codes: 0 submitted,
// 1 submit failed (reason on stderr), 2 bad flags (usage on stderr).
const StormSubmitted = "submitted topology "

// Topology conf keys read by the instrumentation (set them with the main
// classes' flags --metrics-url and --report-interval-secs, or --conf k=v).
const (
	ConfMetricsURL          = "stormlab.metrics.url"          // default DefaultMetricsURL
	ConfReportIntervalSecs  = "stormlab.report.interval.secs" // default 5
	ConfLatencySamples      = "stormlab.latency.samples"      // default 2000 per report
	ConfHost                = "stormlab.host"                 // default storm.local.hostname
	DefaultMetricsURL       = "http://scheduler-service:7070/v1/metrics"
	InstrumentationHookName = "org.stormlab.instrument.TrafficHook"
)

// The instrumentation switch. Every main class takes --instrumentation on|off (default on). Off
// leaves out the hook, and with it the reporter thread and HdrHistograms of every worker, while keeping
// Storm's stats sample rate 1.0 as with the hook on: such a run sends no worker reports, so it can only
// be measured with Storm's own counters (harness.StormCounted), which is the point - the
// observer-effect experiment measures both arms with that same yardstick. Spouts still put T_start
// into their tuples (it is part of the topologies' data).
const (
	FlagInstrumentation = "--instrumentation"
	ConfInstrumentation = "stormlab.instrumentation" // "on" or "off", recorded in the topology conf
)

// InstrumentationArgs returns the flags that switch the instrumentation on or off.
func InstrumentationArgs(on bool) []string {
	if on {
		return []string{FlagInstrumentation, "on"}
	}
	return []string{FlagInstrumentation, "off"}
}

// StormMain is one Java topology: its main class, the flags that give the
// paper's default setting, and the Go spec of the same topology.
type StormMain struct {
	Name        string
	Class       string
	DefaultArgs []string
	Spec        func(parallelism int) Topology
}

// StormMains lists the Java topologies in storm/. Every main class takes
// the shared flags --name, --workers, --parallelism, --parallelism.<component>,
// --ackers, --worker-heap-mb, --worker-childopts, --message-timeout-secs,
// --max-spout-pending, --metrics-url, --report-interval-secs, --instrumentation, --seed,
// --nimbus, --conf key=value (repeatable), --dry-run, plus its own (see
// --help).
func StormMains() []StormMain {
	return []StormMain{
		{
			Name:        "throughput",
			Class:       "org.stormlab.topologies.ThroughputTopology",
			DefaultArgs: []string{"--workers", "4", "--parallelism", "1", "--interval-ms", "5", "--payload-bytes", "100"},
			Spec:        ThroughputChain,
		},
		{
			Name:        "wordcount",
			Class:       "org.stormlab.topologies.WordCountTopology",
			DefaultArgs: []string{"--workers", "8", "--parallelism", "4", "--deadline-ms", "1000", "--size-mb", "0"},
			Spec:        WordCount,
		},
		{
			Name:        "kmeans",
			Class:       "org.stormlab.topologies.KMeansTopology",
			DefaultArgs: []string{"--workers", "8", "--parallelism", "4", "--k", "8", "--dims", "16", "--deadline-ms", "1000", "--size-mb", "0"},
			Spec:        KMeans,
		},
	}
}

// LookupStormMain returns the Java topology called name.
func LookupStormMain(name string) (StormMain, error) {
	var names []string
	for _, m := range StormMains() {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return StormMain{}, fmt.Errorf("unknown storm topology %q: use one of %v", name, names)
}

// SubmitCommand is the command line that submits m from inside a Storm
// container without the python launcher: stormLib is a directory with
// storm-client and its dependencies (e.g. <storm.home>/lib), jar the
// topology jar's path there. The topology is named topologyName; args
// follow DefaultArgs, so later flags override the defaults.
func (m StormMain) SubmitCommand(stormLib, jar, topologyName string, args ...string) ([]string, error) {
	if stormLib == "" || jar == "" || topologyName == "" {
		return nil, errors.New("submit command: storm lib dir, jar path and topology name must all be set")
	}
	cmd := []string{"java", "-cp", stormLib + "/*:" + jar, "-Dstorm.jar=" + jar, m.Class, "--name", topologyName}
	cmd = append(cmd, m.DefaultArgs...)
	return append(cmd, args...), nil
}
