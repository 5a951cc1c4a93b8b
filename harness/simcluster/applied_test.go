package simcluster

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/measure"
)

// TestLoadAppliedRecorded: a simulated run records the load each node carried as a real run records its
// burners' (node_stats.background_load, a straggler's Applied) and is judged by the same 10% rule. The
// Throughput chain paced at 20 tuples/s on homogeneous-2 (0.5 core per node) leaves each node most of its
// core, so 50% background load (0.25 core asked per node) and a straggler of 40% on sup1 (0.20 core more)
// get what they ask: the reference is the level asked, with 2% for the report intervals' edges. Unpaced, the
// chain's executors share the node with the load, and what the load carried is whatever the model gave
// it: never more than asked, and the run is load-short exactly when a load carried less than 90% of it.
func TestLoadAppliedRecorded(t *testing.T) {
	c := open(t, "homogeneous-2", 1)
	undo, err := c.Nemesis().Inject(context.Background(), fault.Load(50))
	if err != nil {
		t.Fatal(err)
	}
	defer undo(context.Background())
	for _, tc := range []struct {
		name     string
		interval string
		atLevel  bool
	}{
		{"paced", "50", true},
		{"unpaced", "0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t, "throughput", "even", "tp-load-"+tc.name, "--interval-ms", tc.interval, "--workers", "2", "--parallelism", "1")
			s.Faults = []fault.Fault{{Kind: fault.Straggler, At: 10 * time.Second, Duration: 10 * time.Second, Arg: "sup1=40"}}
			res := run(t, c, s)
			if res.NodeStats == nil || len(res.NodeStats.Background) != 2 || len(res.Faults) != 1 || res.Faults[0].Applied == nil {
				t.Fatalf("node stats %+v, faults %+v: want the background load of both nodes and the straggler's", res.NodeStats, res.Faults)
			}
			type load struct{ asked, used float64 }
			var loads []load
			for _, a := range append(res.NodeStats.Background, *res.Faults[0].Applied) {
				if a.Used == nil || a.Reports == 0 {
					t.Fatalf("%s %s: used %v over %d reports: want it measured", a.Kind, a.Host, a.Used, a.Reports)
				}
				t.Logf("%s on %s: asked %.3f cores, carried %.3f", a.Kind, a.Host, a.Asked, *a.Used)
				loads = append(loads, load{a.Asked, *a.Used})
			}
			short := false
			for _, l := range loads {
				if l.used > 1.02*l.asked || tc.atLevel && math.Abs(l.used-l.asked) > 0.02*l.asked {
					t.Errorf("carried %.3f of %.3f cores: want %s", l.used, l.asked, map[bool]string{true: "the level (2%)", false: "at most the level"}[tc.atLevel])
				}
				short = short || l.used < 0.9*l.asked
			}
			if got := hasReason(res.Validity, measure.ReasonLoadShort); got != short {
				t.Errorf("validity %+v: load-short %v, want %v", res.Validity, got, short)
			}
			if res.Diagnosis == nil || len(res.Diagnosis.Unknown) > 0 && containsStarvation(res.Diagnosis.Unknown) {
				t.Errorf("diagnosis %+v: a simulated node has no host to starve it; want host starvation not among the unknowns", res.Diagnosis)
			}
		})
	}
}

func hasReason(v harness.Validity, kind measure.ReasonKind) bool {
	for _, r := range v.Reasons {
		if r.Kind == kind {
			return true
		}
	}
	return false
}

func containsStarvation(unknown []string) bool {
	for _, u := range unknown {
		if strings.HasPrefix(u, "host starvation") {
			return true
		}
	}
	return false
}
