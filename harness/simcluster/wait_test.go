package simcluster

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
)

// TestTwinIdleWait: the twin reads the bolts' wait strategy from the topology's conf: Storm's defaults
// (a thousand parks, 1 ms sleeps) take sim.DefaultIdleSpinFor and sim.DefaultIdleSleep; fewer parks take
// proportionally less (the parks are alike); no parks is a sleep at once; a longer sleep keeps the 1 ms
// sleep's overshoot. At the defaults the times are the model's to the last digit, so twins of runs at
// Storm's defaults run as they did before the conf was read. Another wait strategy, or a negative count, is refused naming the conf.
func TestTwinIdleWait(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	over := sim.DefaultIdleSleep - 1e-3
	for _, tc := range []struct {
		conf           []string
		spinFor, sleep float64
		err            string
	}{
		{nil, sim.DefaultIdleSpinFor, sim.DefaultIdleSleep, ""},
		{[]string{waitParksConf + "=500"}, sim.DefaultIdleSpinFor / 2, sim.DefaultIdleSleep, ""},
		{[]string{waitParksConf + "=0"}, 0, sim.DefaultIdleSleep, ""},
		{[]string{waitSleepConf + "=5"}, sim.DefaultIdleSpinFor, 5e-3 + over, ""},
		{[]string{waitParksConf + "=-1"}, 0, 0, "0 or more"},
		{[]string{"topology.bolt.wait.strategy=org.apache.storm.policy.WaitStrategyPark"}, 0, 0, "progressive wait strategy only"},
	} {
		var args []string
		for _, kv := range tc.conf {
			args = append(args, "--conf", kv)
		}
		rt, err := resolve(spec(t, "throughput", "even", "x", args...).Topology, c.model)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: %v, want an error saying %q", tc.conf, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		spinFor, sleep := rt.idleWait()
		if tc.conf == nil && (spinFor != sim.DefaultIdleSpinFor || sleep != sim.DefaultIdleSleep) {
			t.Errorf("Storm's defaults: spins %v s, sleeps %v s; want the defaults to the last digit (twins as before)", spinFor, sleep)
		}
		if math.Abs(spinFor-tc.spinFor) > 1e-12 || math.Abs(sleep-tc.sleep) > 1e-12 {
			t.Errorf("%v: spins %v s, sleeps %v s; want %v and %v", tc.conf, spinFor, sleep, tc.spinFor, tc.sleep)
		}
	}
}

// TestTwinSleepsAtOnce: a twin whose bolts sleep at once (no parks) spins not at all: the Throughput
// chain paced at 50 tuples a task a second on heterogeneous-2 reports no idle CPU (spin_ns) in any
// task, where at Storm's defaults its bolts spin; its bolts still count their spells (at most one a
// tuple, more than none), and its tuples wait for the sleeping bolts, so its mean latency is higher.
func TestTwinSleepsAtOnce(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	spun := func(res *harness.RunResult) (spin, spells int64) {
		for _, rep := range res.Reports {
			for _, cpu := range rep.CPU {
				spin, spells = spin+cpu.SpinNs, spells+cpu.Spells
			}
		}
		return spin, spells
	}
	base := []string{"--workers", "4", "--interval-ms", "20"}
	parks := run(t, c, spec(t, "throughput", "storm-even", "parks", base...))
	sleeps := run(t, c, spec(t, "throughput", "storm-even", "sleeps", append(base, "--conf", waitParksConf+"=0")...))
	if spin, _ := spun(parks); spin <= 0 {
		t.Fatalf("Storm's default wait: %d ns spun idle, want some (the test reads nothing otherwise)", spin)
	}
	spin, spells := spun(sleeps)
	if spin != 0 || spells <= 0 {
		t.Errorf("no parks: %d ns spun idle and %d spells, want none spun and spells counted", spin, spells)
	}
	if !(sleeps.Measurement.LatencyMean > parks.Measurement.LatencyMean) {
		t.Errorf("mean latency %.3f ms asleep, %.3f ms spinning: want the sleeping bolts' wait on top", sleeps.Measurement.LatencyMean, parks.Measurement.LatencyMean)
	}
}
