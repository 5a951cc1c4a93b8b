package simcluster

import (
	"context"
	"maps"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/protocol"
)

// datasetSpec is a deadline-experiment run at its ci scale (experiments/cluster_deadline.go): a dataset
// of mb MB streamed once through topology, 4 workers, parallelism 2, deadline 1,000 ms, reports
// every second, R-Storm's resources as the experiment sets them.
func datasetSpec(t *testing.T, topology, scheduler, name string, mb string) harness.RunSpec {
	s := spec(t, topology, scheduler, name, "--workers", "4", "--parallelism", "2", "--size-mb", mb, "--deadline-ms", "1000",
		"--report-interval-secs", "1", "--conf", "topology.component.cpu.pcore.percent=5", "--conf", "topology.component.resources.onheap.memory.mb=64")
	s.End = harness.Dataset{Spout: map[string]string{"wordcount": "sentence", "kmeans": "points"}[topology], Quiet: 4 * time.Second, Max: 4 * time.Minute}
	return s
}

// TestDatasetRuns: the deadline experiment's runs at ci scale on the deadline paper's cluster, under
// the deadline scheduler (the service's code, dynamic), R-Storm (Storm's RAS as its Go model) and the
// adaptive scheduler, each complete and give every metric the experiment reads, pass the self-checks,
// and account for the whole dataset: acked + failed = the tuples the spout tasks say they sent = their
// shares (0.1 MB of text over two tasks: 50,000 bytes each at 42.225 a sentence, 1,185 sentences;
// 0.25 MB of points over two tasks: 125,000 bytes each at 128 a point, 977 points). Every sink tuple
// is in the processing-time histogram, and the mean of its records is the histogram's mean (0.1%:
// the histogram's 3 significant digits).
func TestDatasetRuns(t *testing.T) {
	c := open(t, "deadline-paper", 1)
	for _, tc := range []struct {
		topology, mb string
		tuples       int64
	}{{"wordcount", "0.1", 2 * 1185}, {"kmeans", "0.25", 2 * 977}} {
		for _, sched := range []string{"deadline", "storm-ras", "adaptive"} {
			res := run(t, c, datasetSpec(t, tc.topology, sched, "dl-"+sched+"-"+tc.topology, tc.mb))
			m := res.Measurement
			name := sched + " " + tc.topology
			if res.EndKind != "dataset" || res.Validity.Level != harness.Valid || res.DatasetS <= 0 {
				t.Errorf("%s: end %q, validity %+v, dataset %v s: want a valid dataset run with its time", name, res.EndKind, res.Validity, res.DatasetS)
			}
			for _, ch := range res.Simulated.Checks {
				if !isOK(ch) {
					t.Errorf("%s: self-check %s", name, ch)
				}
			}
			if sent := spoutsSent(res.Reports); m.Acked+m.Failed != tc.tuples || sent != tc.tuples {
				t.Errorf("%s: %d acked + %d failed, spouts sent %d: want the dataset's %d", name, m.Acked, m.Failed, sent, tc.tuples)
			}
			if m.Deadlines == 0 || m.ProcessingCount != m.Deadlines || m.QoSRate <= 0 || len(m.NodeQoS) == 0 ||
				math.Abs(m.ProcessingMean-m.ProcessingMs) > 1e-3*m.ProcessingMs {
				t.Errorf("%s: %d deadline tuples, %d processing times, mean %v ms (records %v ms), QoS %v on %d nodes: want every metric",
					name, m.Deadlines, m.ProcessingCount, m.ProcessingMean, m.ProcessingMs, m.QoSRate, len(m.NodeQoS))
			}
		}
	}
}

// TestDeadlineSchedulerInputs: the deadline scheduler's rescheduling rounds (offered every second
// here, after the service's 10 s of settling; 4 MB of text lasts about 40 s under the shipped costs) get
// every input it reads from the simulated workers' reports: CPU, traffic, T_start, deadlines and tuple
// sizes (eqs. 1 and 5-6); its decisions name none missing while the dataset streams. (The workers'
// memory is not modelled: the service's round records name it.)
func TestDeadlineSchedulerInputs(t *testing.T) {
	c := open(t, "deadline-paper", 1)
	c.cs.RescheduleEvery = time.Second
	res := run(t, c, datasetSpec(t, "wordcount", "deadline", "dl-inputs", "4"))
	rounds := 0
	for _, d := range res.Decisions {
		if d.Kind != "reschedule" || d.Decision == nil || float64(d.TimeMs-res.MeasureFrom) >= 1000*res.DatasetS {
			continue // after the dataset there is no traffic to read
		}
		rounds++
		if len(d.Decision.NotMeasured) > 0 {
			t.Errorf("round at %d ms lacked %v: want every input reported", d.TimeMs, d.Decision.NotMeasured)
		}
	}
	if rounds < 2 {
		t.Errorf("%d rescheduling rounds over a %v s dataset: want some", rounds, res.DatasetS)
	}
}

// spoutsSent sums, per spout task, the tuples its done line says it sent (its largest count).
func spoutsSent(reports []protocol.WorkerReport) int64 {
	per := map[int]int64{}
	for _, r := range reports {
		for _, d := range r.SpoutDone {
			per[d.Task] = max(per[d.Task], d.Tuples)
		}
	}
	n := int64(0)
	for _, v := range per {
		n += v
	}
	return n
}

// TestStagedDeadlines: each bolt's deadline as TopologySetup.applyDeadlines sets it. WordCount and
// k-means are chains of three bolts after the spout: staged, depth i of 3 gets 1000 x i / 3 ms rounded
// (333, 667, 1000); uniform gives each 1000; --deadline-ms.C overrides one.
func TestStagedDeadlines(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	for _, tc := range []struct {
		topology string
		args     []string
		want     map[string]float64
	}{
		{"wordcount", nil, map[string]float64{"split": 333, "count": 667, "report": 1000}},
		{"wordcount", []string{"--deadlines", "uniform"}, map[string]float64{"split": 1000, "count": 1000, "report": 1000}},
		{"kmeans", []string{"--deadline-ms", "600", "--deadline-ms.sink", "50"}, map[string]float64{"assign": 200, "update": 400, "sink": 50}},
	} {
		rt, err := resolve(spec(t, tc.topology, "even", "x", tc.args...).Topology, c.model)
		if err != nil {
			t.Fatal(err)
		}
		got, err := deadlinesOf(rt, rt.spouts())
		if err != nil {
			t.Fatal(err)
		}
		for comp, ms := range tc.want {
			if math.Abs(got[comp]*1000-ms) > 1e-9 {
				t.Errorf("%s %v: %s's deadline %v ms, want %v", tc.topology, tc.args, comp, got[comp]*1000, ms)
			}
		}
	}
}

// TestSentenceBytes recomputes wordCountSentenceBytes from TextGenerator.java: 10 words on average,
// each its length plus a separator (the spout counts the sentence's length plus one), the words
// weighted 1/rank.
func TestSentenceBytes(t *testing.T) {
	src, err := os.ReadFile("../../topologies/storm/src/main/java/org/stormlab/topologies/TextGenerator.java")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)WORDS = \((.*?)\)\.split`).FindSubmatch(src)
	if block == nil {
		t.Fatal("TextGenerator.java: no WORDS list")
	}
	var text strings.Builder
	for _, m := range regexp.MustCompile(`"([^"]*)"`).FindAllSubmatch(block[1], -1) {
		text.Write(m[1])
	}
	var sum, weights float64
	for i, w := range strings.Split(text.String(), " ") {
		sum += float64(len(w)) / float64(i+1)
		weights += 1 / float64(i+1)
	}
	if got := 10 * (sum/weights + 1); math.Abs(got-wordCountSentenceBytes) > 1e-3 {
		t.Errorf("mean sentence bytes %.4f from TextGenerator.java, the model uses %v", got, wordCountSentenceBytes)
	}
}

// TestDeclaredMemory: a bridged scheduler reads each executor's memory as the bridge sends it (its
// component's declared on- plus off-heap memory, Storm's 128 MB when undeclared), and each node's
// memory as its supervisor offers it. So R-Storm (Go, through the service) finds no room for
// WordCount's default executors on heterogeneous-2, whose supervisors offer 640 and 1,152 MB to Storm,
// at 128 MB each (it refuses the cluster, naming the demand), and at 64 MB each places them as it did
// on the real cluster (sim-validation's run sv-c01-rstorm-r1, 2026-12-05, 4 workers): the first
// executor on sup2, the reference node, then sup1 filled to its 640 MB (10 executors: R-Storm's distance
// prefers the node whose free resources are nearest the demand), the other 9 on sup2.
func TestDeclaredMemory(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	short := func(s harness.RunSpec) harness.RunSpec { s.WarmUp, s.Measure = 5*time.Second, 5*time.Second; return s }
	_, err := c.Run(context.Background(), short(spec(t, "wordcount", "rstorm", "mem-default", "--workers", "4")))
	if err == nil || !strings.Contains(err.Error(), "128 MB") {
		t.Errorf("undeclared: %v, want R-Storm to find no room at 128 MB an executor", err)
	}
	res := run(t, c, short(spec(t, "wordcount", "rstorm", "mem-64", "--workers", "4", "--conf", "topology.component.resources.onheap.memory.mb=64")))
	on := map[string]int{}
	for _, e := range res.Executors {
		on[e.Host] += e.End - e.Start + 1
	}
	if on["sup1"] != 10 || on["sup2"] != 10 {
		t.Errorf("64 MB an executor: %v executors per node, want 10 on sup1 (its 640 MB) and 10 on sup2, as on the real cluster", on)
	}
}

// TestSupervisorIDs: Storm's EvenScheduler orders nodes by supervisor id, which is random per
// supervisor start, so a twin given a real cluster's ids places as that cluster did; the Go
// schedulers order them by host (schedulers.SpreadSlots) and place alike whatever the ids. The ids
// are those of the quick sim-validation's two starts of heterogeneous-2 containers (2026-12-05), whose
// K-PART runs, placed by id then, put WordCount's count/report partition on sup2 (the first start:
// "1b2b…" against sup1's "27c7…") and on sup1 (the second: "9fe2…" against "ce3a…"). WordCount's tasks: 1-4 the ackers, 5-8
// count, 13-16 sentence.
func TestSupervisorIDs(t *testing.T) {
	n, err := Lookup("heterogeneous-2")
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]string{"sup1": "27c73f64-dbb0", "sup2": "1b2b777e-1a0d"}  // sup2's id first
	second := map[string]string{"sup1": "9fe2f2c1-5115", "sup2": "ce3a09f6-3c00"} // sup1's id first
	for _, tc := range []struct {
		scheduler string
		ids       map[string]string
		countOn   string // the node that hosts every count executor
		ackersOn  string // and every acker
	}{
		{"kpart", nil, "sup1", "sup2"},
		{"kpart", first, "sup1", "sup2"},
		{"kpart", second, "sup1", "sup2"},
		{"storm-even", first, "", ""},  // EvenScheduler spreads each component over both nodes: the
		{"storm-even", second, "", ""}, // ids show in which node gets the first slot (checked below)
	} {
		c, err := OpenNamed(n.WithSupervisorIDs(tc.ids), harness.ClusterSpec{Seed: 1, Mul: 5}, tc.scheduler)
		if err != nil {
			t.Fatal(err)
		}
		s := spec(t, "wordcount", tc.scheduler, "ids", "--workers", "4")
		s.WarmUp, s.Measure = 5*time.Second, 5*time.Second
		res := run(t, c, s)
		on, hostOf := map[string]map[string]int{}, map[int]string{}
		for _, e := range res.Executors {
			if on[e.Component] == nil {
				on[e.Component] = map[string]int{}
			}
			on[e.Component][e.Host] += e.End - e.Start + 1
			hostOf[e.Start] = e.Host
		}
		if tc.countOn != "" && (on["count"][tc.countOn] != 4 || on["__acker"][tc.ackersOn] != 4) {
			t.Errorf("%s, ids %v: count on %v, ackers on %v; want every count on %s, every acker on %s", tc.scheduler, tc.ids, on["count"], on["__acker"], tc.countOn, tc.ackersOn)
		}
		if tc.scheduler == "storm-even" {
			lowest := "sup1" // the node of the lower id gets the first slot, and the first acker
			if tc.ids["sup2"] < tc.ids["sup1"] {
				lowest = "sup2"
			}
			if hostOf[1] != lowest || !maps.Equal(res.Supervisors, tc.ids) {
				t.Errorf("storm-even, ids %v: task 1 on %s, want %s (the lower id); run records ids %v", tc.ids, hostOf[1], lowest, res.Supervisors)
			}
		}
		// The ackers run where the scheduler put them: their work is reported by those nodes only.
		for _, rep := range res.Reports {
			for _, cpu := range rep.CPU {
				if cpu.Task <= 4 && cpu.CPUNs > 0 && rep.Host != hostOf[cpu.Task] {
					t.Fatalf("%s, ids %v: acker task %d ran on %s, placed on %s", tc.scheduler, tc.ids, cpu.Task, rep.Host, hostOf[cpu.Task])
				}
			}
		}
	}
}

// TestAckerCount: `--ackers N` gives the topology N acker executors, as TopologySetup sets
// topology.acker.executors, numbered first as Storm numbers them (task 1 to N), the default one per
// worker; the model runs each where the scheduler put it.
func TestAckerCount(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	for _, tc := range []struct {
		args   []string
		ackers int
	}{{nil, 4}, {[]string{"--ackers", "2"}, 2}} {
		s := spec(t, "wordcount", "kpart", "ackers", append([]string{"--workers", "4"}, tc.args...)...)
		s.WarmUp, s.Measure = 5*time.Second, 5*time.Second
		res := run(t, c, s)
		ackers, firstCount := 0, 0
		for _, e := range res.Executors {
			switch e.Component {
			case "__acker":
				ackers += e.End - e.Start + 1
			case "count":
				if firstCount == 0 || e.Start < firstCount {
					firstCount = e.Start
				}
			}
		}
		if ackers != tc.ackers || firstCount != tc.ackers+1 {
			t.Errorf("%v: %d acker tasks, count's first task %d; want %d and %d", tc.args, ackers, firstCount, tc.ackers, tc.ackers+1)
		}
	}
}

// TestTwinPending: the twin's spouts hold the pending limit TopologySetup sets: its default of 1,000 per
// spout task in closed loop, none in open loop (--rate) unless --max-spout-pending is given.
func TestTwinPending(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 1000},
		{[]string{"--interval-ms", "0"}, 1000},
		{[]string{"--max-spout-pending", "50"}, 50},
		{[]string{"--rate", "500"}, 0},
		{[]string{"--rate", "500", "--max-spout-pending", "200"}, 200},
	} {
		rt, err := resolve(spec(t, "throughput", "even", "x", tc.args...).Topology, c.model)
		if err != nil {
			t.Fatal(err)
		}
		if rt.pending != tc.want {
			t.Errorf("%v: pending %d, want %d", tc.args, rt.pending, tc.want)
		}
	}
}
