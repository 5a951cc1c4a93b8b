package experiments

import (
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
)

// suspectOf is a run's validity with one suspect reason of kind (storm-counts: every metric in
// doubt; storm-latency: the latency metrics only).
func suspectOf(kind harness.ReasonKind, text string) harness.Validity {
	return harness.Validity{Level: harness.Suspect, Reasons: []harness.Reason{{Kind: kind, Level: harness.Suspect, Text: text}}}
}

// TestScreened: a row carries its run's validity as judged, and which of its metrics count follows
// from the reasons' kinds.
func TestScreened(t *testing.T) {
	for _, tc := range []struct {
		name     string
		r        harness.RunResult
		lat, thr bool // Validity.Counts("latency_mean_ms"), Counts("throughput")
	}{
		{"agrees", harness.RunResult{}, true, true},
		{"latency only", harness.RunResult{Validity: suspectOf(harness.ReasonStormLatency, "mean complete latency 20% apart")}, false, true},
		{"counts off", harness.RunResult{Validity: suspectOf(harness.ReasonStormCounts, "throughput 10% apart")}, false, false},
		{"invalid and latency", harness.RunResult{Validity: harness.Validity{Level: harness.Invalid, Reasons: []harness.Reason{{Kind: harness.ReasonScheduler, Level: harness.Invalid, Text: "fell back"}, {Kind: harness.ReasonStormLatency, Level: harness.Suspect, Text: "latency 20% apart"}}}}, false, false},
		{"could not judge", harness.RunResult{Validity: suspectOf(harness.ReasonUnknown, "judging failed")}, false, false},
	} {
		row := screened(lab.Row{}, &tc.r)
		if row.Validity.Level != tc.r.Validity.Level || row.Validity.Counts("latency_mean_ms") != tc.lat || row.Validity.Counts("throughput") != tc.thr {
			t.Errorf("%s: %+v counts latency %v, throughput %v; want %v, %v", tc.name, row.Validity, row.Validity.Counts("latency_mean_ms"), row.Validity.Counts("throughput"), tc.lat, tc.thr)
		}
	}
}

func TestInputsNotMeasured(t *testing.T) {
	dec := func(ms int64, apply bool, nm ...string) protocol.DecisionRecord {
		return protocol.DecisionRecord{TimeMs: ms, Kind: "reschedule", Applied: apply, Decision: &schedulers.Decision{Apply: apply, NotMeasured: nm},
			NotMeasured: []string{"task_cpu"}} // the record's own list is not the scheduler's need
	}
	for _, tc := range []struct {
		name string
		r    harness.RunResult
		want []string
	}{
		{"no decisions (native scheduler)", harness.RunResult{}, nil},
		{"every input there", harness.RunResult{MeasureTo: 100, Decisions: []protocol.DecisionRecord{dec(10, true), dec(50, false)}}, nil},
		{"record-level list only: not the scheduler's need", harness.RunResult{MeasureTo: 100, Decisions: []protocol.DecisionRecord{{TimeMs: 10, NotMeasured: []string{"task_cpu"}}}}, nil},
		{"decided without the deadline", harness.RunResult{MeasureTo: 100, Decisions: []protocol.DecisionRecord{dec(10, true), dec(50, false, "tuple_size", "deadline")}}, []string{"deadline", "tuple_size"}},
		{"union, sorted, once", harness.RunResult{MeasureTo: 100, Decisions: []protocol.DecisionRecord{dec(10, false, "deadline"), dec(50, false, "node_performance", "deadline")}}, []string{"deadline", "node_performance"}},
		{"after the window: cannot shape the figures", harness.RunResult{MeasureTo: 100, Decisions: []protocol.DecisionRecord{dec(10, true), dec(150, false, "deadline")}}, nil},
		{"waited for first data, decided later", harness.RunResult{MeasureTo: 100, Decisions: []protocol.DecisionRecord{dec(10, false, "task_load"), dec(40, true)}}, nil},
		{"waited and never decided in the window", harness.RunResult{MeasureTo: 100, Decisions: []protocol.DecisionRecord{dec(10, false, "traffic"), dec(150, true)}}, []string{"traffic"}},
		{"applied without traffic: not waiting", harness.RunResult{MeasureTo: 100, Decisions: []protocol.DecisionRecord{dec(10, true, "traffic"), dec(40, true)}}, []string{"traffic"}},
	} {
		if got := inputsNotMeasured(&tc.r); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// claimVerdicts maps each claim's statement prefix (up to 40 bytes) to
// its verdict and reason.
func verdictOf(cs []lab.Claim, prefix string) (reports.Verdict, string, bool) {
	for _, c := range cs {
		if strings.HasPrefix(c.Statement, prefix) {
			return c.Verdict, c.Reason, true
		}
	}
	return "", "", false
}

type screenCase struct {
	name   string
	rows   func() (*lab.Results, *lab.Aggregate)
	want   map[string]reports.Verdict // statement prefix -> verdict
	reason string                     // substring of every inconclusive claim's reason
}

func runScreenCases(t *testing.T, claims func(*lab.Results, *lab.Aggregate) []lab.Claim, cases []screenCase) {
	t.Helper()
	for _, tc := range cases {
		r, a := tc.rows()
		cs := judged(claims(r, a), "")
		for prefix, want := range tc.want {
			v, why, ok := verdictOf(cs, prefix)
			if !ok {
				t.Fatalf("%s: no claim starting %q", tc.name, prefix)
			}
			if v != want || (v == reports.Inconclusive && !strings.Contains(why, tc.reason)) {
				t.Errorf("%s: %q is %q (%s), want %q with %q", tc.name, prefix, v, why, want, tc.reason)
			}
		}
	}
}

// kpartRows are paper-like kpart-cluster rows (reps per cell); mutate may
// change any row (series, x, rep).
func kpartRows(t *testing.T, reps int, mutate func(*lab.Row)) func() (*lab.Results, *lab.Aggregate) {
	return func() (*lab.Results, *lab.Aggregate) {
		n := newNoise(6)
		type cell struct{ cut, thr, bal, lat float64 }
		cells := []cell{{0.70, 1200, 5, 10}, {0.72, 1050, 6, 12}, {0.80, 1000, 10, 12}}
		// The open-loop cell offers half of EvenScheduler's saturated 1000 tuples/s, and every
		// scheduler keeps up.
		r := &lab.Results{Experiment: "kpart-cluster", Metrics: kpartClusterMetrics, Knobs: map[string]any{"kpart_calibration_tps": 1000.0}}
		for i, s := range kpartClusterSchedulers {
			c := cells[i]
			for rep := 0; rep < reps; rep++ {
				for _, x := range []float64{0, 0.5} {
					thr, lat := c.thr, 3*c.lat
					if x > 0 {
						thr, lat = 500, c.lat
					}
					row := clusterRow(s, x, rep, map[string]float64{
						"throughput": n.rel(thr, 0.01), "latency_mean_ms": n.rel(lat, 0.01), "latency_p99_ms": 1,
						"cut_rate": n.rel(c.cut, 0.01), "inter_node_tps": 1, "balance": n.rel(c.bal, 0.01)})
					if mutate != nil {
						mutate(&row)
					}
					r.Add(row)
				}
			}
		}
		return agg(t, r)
	}
}

const (
	kpCut = "EvenScheduler has the highest"
	kpThr = "K-PART has the highest throughput"
	kpBal = "K-PART balances"
	kpLat = "K-PART has the lowest tuple latency"
)

func TestKPartClusterScreen(t *testing.T) {
	all := func(v reports.Verdict) map[string]reports.Verdict {
		return map[string]reports.Verdict{kpCut: v, kpThr: v, kpBal: v, kpLat: v}
	}
	runScreenCases(t, kpartClusterClaims, []screenCase{
		{"clean", kpartRows(t, 3, nil), all(reports.Holds), ""},
		{"one K-PART run suspect of 3: 2 left", kpartRows(t, 3, func(r *lab.Row) {
			if r.Series == "kpart-dynamic" && r.X == 0 && r.Rep == 1 {
				r.Validity = suspectOf(harness.ReasonStormCounts, "mean complete latency 20% apart")
			}
		}), map[string]reports.Verdict{kpCut: reports.Holds, kpThr: reports.Inconclusive, kpBal: reports.Holds, kpLat: reports.Holds},
			"kpart-dynamic x=0: 2 valid run(s) (1 invalid or suspect left out)"}, // only throughput rests on the unpaced cell
		// The suspect run's figures say the opposite; left out, they change nothing.
		{"one wild K-PART run suspect of 4: 3 left, its figures unused", kpartRows(t, 4, func(r *lab.Row) {
			if r.Series == "kpart-dynamic" && r.X == 0 && r.Rep == 3 {
				r.Validity = suspectOf(harness.ReasonStormCounts, "throughput 40% apart")
				r.Values["throughput"], r.Values["cut_rate"], r.Values["balance"] = 10, 0.99, 50
			}
		}), all(reports.Holds), ""},
		// Suspect on latency only (counts agree): its counts, cut rate and
		// balance still count; the open-loop cell's latency claim loses it.
		{"one K-PART run suspect on latency only", kpartRows(t, 3, func(r *lab.Row) {
			if r.Series == "kpart-dynamic" && r.Rep == 1 {
				r.Validity = suspectOf(harness.ReasonStormLatency, "mean complete latency 20% apart")
			}
		}), map[string]reports.Verdict{kpCut: reports.Holds, kpThr: reports.Holds, kpBal: reports.Holds, kpLat: reports.Inconclusive},
			"kpart-dynamic x=0.5: 2 valid run(s) (1 invalid or suspect left out)"},
		{"online decided without traffic", kpartRows(t, 3, func(r *lab.Row) {
			if r.Series == "online" && r.X == 0 && r.Rep == 0 {
				r.NotMeasured = []string{"traffic"}
			}
		}), map[string]reports.Verdict{kpCut: reports.Holds, kpThr: reports.Inconclusive, kpBal: reports.Holds, kpLat: reports.Holds},
			"online x=0 rep 0: the scheduler decided without traffic"},
		{"online decided without traffic in an open-loop run", kpartRows(t, 3, func(r *lab.Row) {
			if r.Series == "online" && r.X == 0.5 && r.Rep == 2 {
				r.NotMeasured = []string{"traffic"}
			}
		}), map[string]reports.Verdict{kpCut: reports.Inconclusive, kpThr: reports.Holds, kpBal: reports.Holds, kpLat: reports.Inconclusive},
			"online x=0.5 rep 2: the scheduler decided without traffic"},
	})
}

func TestCommCostScreen(t *testing.T) {
	rows := func(reps int, mutate func(*lab.Row)) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(5)
			r := &lab.Results{Experiment: "comm-cost", Metrics: commCostMetrics}
			for _, c := range []struct{ x, l float64 }{{1, 10}, {2, 15}, {4, 20}} {
				for rep := 0; rep < reps; rep++ {
					row := clusterRow(commSeries(0), c.x, rep, map[string]float64{"latency_mean_ms": n.rel(c.l, 0.02), "latency_p99_ms": 1, "throughput": 50, "cut_rate": 0.5, "nodes_used": c.x})
					if mutate != nil {
						mutate(&row)
					}
					r.Add(row)
				}
			}
			return agg(t, r)
		}
	}
	grow, band := "mean tuple latency grows", "n4 latency is"
	runScreenCases(t, commCostClaims, []screenCase{
		{"clean", rows(3, nil), map[string]reports.Verdict{grow: reports.Holds, band: reports.Holds}, ""},
		{"n2 run suspect: growth claim short, n4/n1 claim untouched", rows(3, func(r *lab.Row) {
			if r.X == 2 && r.Rep == 0 {
				r.Validity = suspectOf(harness.ReasonStormCounts, "latency 20% apart")
			}
		}), map[string]reports.Verdict{grow: reports.Inconclusive, band: reports.Holds}, "no delay x=2: 2 valid run(s)"},
		{"wild suspect n4 run left out of 4", rows(4, func(r *lab.Row) {
			if r.X == 4 && r.Rep == 3 {
				r.Validity, r.Values["latency_mean_ms"] = suspectOf(harness.ReasonStormCounts, "latency 90% apart"), 1
			}
		}), map[string]reports.Verdict{grow: reports.Holds, band: reports.Holds}, ""},
	})
}

func TestDeadlineScreen(t *testing.T) {
	rows := func(mutate func(*lab.Row)) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(7)
			r := &lab.Results{Experiment: "deadline", Metrics: deadlineMetrics}
			add := func(series string, x float64, rep int, ds, qos float64) {
				row := clusterRow(series, x, rep, map[string]float64{"dataset_s": n.rel(ds, 0.01), "proc_ms": 100, "qos_pct": 50,
					"qos_node_max_pct": n.rel(qos, 0.01), "misses": 0, "throughput": 100, "migrations": 0})
				if mutate != nil {
					mutate(&row)
				}
				r.Add(row)
			}
			for rep := 0; rep < 3; rep++ {
				add("deadline kmeans", 0.5, rep, 10, 80)
				add("storm-ras kmeans", 0.5, rep, 14, 120)
				add("adaptive kmeans", 0.5, rep, 12, 120)
				add(loadSeries("wordcount"), 20, rep, 10, 80)
				add(loadSeries("wordcount"), 80, rep, 14, 80)
			}
			return agg(t, r)
		}
	}
	faster, slow, miss, km := "the deadline scheduler processes", "R-Storm has the highest", "the deadline scheduler misses no", "on the complex query"
	loadMiss, loadGrow := "under 20-80%", "processing time grows"
	every := func(v reports.Verdict) map[string]reports.Verdict {
		return map[string]reports.Verdict{faster: v, slow: v, miss: v, km: v, loadMiss: v, loadGrow: v}
	}
	runScreenCases(t, deadlineClaims, []screenCase{
		{"clean (quick's cells: k-means, WordCount under load)", rows(nil), every(reports.Holds), ""},
		{"deadline scheduler decided without deadlines", rows(func(r *lab.Row) {
			if r.Series == "deadline kmeans" && r.Rep == 2 {
				r.NotMeasured = []string{"deadline"}
			}
		}), map[string]reports.Verdict{faster: reports.Inconclusive, slow: reports.Inconclusive, miss: reports.Inconclusive, km: reports.Holds, loadMiss: reports.Holds, loadGrow: reports.Holds},
			"deadline kmeans x=0.5 rep 2: the scheduler decided without deadline"},
		// A suspect run with a miss is left out: it neither refutes "no miss" nor counts.
		{"suspect load run with misses", rows(func(r *lab.Row) {
			if r.Series == loadSeries("wordcount") && r.X == 80 && r.Rep == 0 {
				r.Validity, r.Values["misses"] = suspectOf(harness.ReasonStormCounts, "acked 30% apart"), 5
			}
		}), map[string]reports.Verdict{faster: reports.Holds, km: reports.Holds, loadMiss: reports.Inconclusive, loadGrow: reports.Inconclusive},
			"x=80: 2 valid run(s) (1 invalid or suspect left out)"},
	})
}
