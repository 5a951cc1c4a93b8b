package simcluster

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// linkSups are the supervisors of harness's TestClusterLinkRateBinds: two of 0.5 cores and one slot,
// sup1's egress limited to mbit.
func linkSups(mbit float64) []docker.SupervisorSpec {
	return []docker.SupervisorSpec{
		{Host: "sup1", CPUs: 0.5, MemoryMB: docker.SupervisorReserveMB + 420, Slots: 1, LinkMbit: mbit},
		{Host: "sup2", CPUs: 0.5, MemoryMB: docker.SupervisorReserveMB + 420, Slots: 1},
	}
}

// TestFromSupervisors: the twin has a node per supervisor with its cores and its link rate as frame
// payload (2 Mbit/s = 250,000 B/s of frames x 1448/1514); bad input is refused naming the fix.
func TestFromSupervisors(t *testing.T) {
	n, err := FromSupervisors("link-2", linkSups(2))
	if err != nil {
		t.Fatal(err)
	}
	const want = 250000 * 1448.0 / 1514 // 239,101.7 B/s
	if len(n.Nodes) != 2 || math.Abs(n.Nodes[0].NICBytesPerS-want) > 0.1 || n.Nodes[1].NICBytesPerS != 0 ||
		n.Nodes[0].Cores != 0.5 || n.Slots != 1 || n.memoryOf("sup1") != 420 || n.memoryOf("sup2") != 420 {
		t.Errorf("twin %+v: want sup1 at %.1f B/s, sup2 unlimited, 0.5 cores, 1 slot, 420 MB", n, want)
	}
	if !strings.Contains(n.About, "sup1 0.5 cores, link 2 Mbit/s") {
		t.Errorf("about %q does not name sup1's link", n.About)
	}
	mixed := linkSups(2)
	mixed[1].Slots = 4
	for _, c := range []struct {
		sups []docker.SupervisorSpec
		want string
	}{{nil, "no supervisors"}, {mixed, "same Slots"}} {
		if _, err := FromSupervisors("bad", c.sups); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	// The twin of a cluster spec: docker.WithLinkRate reaches the supervisors without a rate of their
	// own, after the shape or WithSupervisors, as on containers.
	for _, c := range []struct {
		name string
		cs   harness.ClusterSpec
		want []float64 // each node's NIC, Mbit/s
	}{
		{"shape and a cluster rate", harness.ClusterSpec{Shape: "homogeneous-2", Options: []docker.Option{docker.WithLinkRate(10)}}, []float64{10, 10}},
		{"supervisors, one limited", harness.ClusterSpec{Options: []docker.Option{docker.WithSupervisors(linkSups(2)...)}}, []float64{2, 0}},
		{"both", harness.ClusterSpec{Options: []docker.Option{docker.WithSupervisors(linkSups(2)...), docker.WithLinkRate(10)}}, []float64{2, 10}},
		{"default shape", harness.ClusterSpec{}, []float64{0, 0}},
	} {
		n, err := TwinOf(c.cs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, node := range n.Nodes {
			if want := linkNIC(c.want[i]); math.Abs(node.NICBytesPerS-want) > 1e-6 {
				t.Errorf("%s: %s at %.0f B/s, want %.0f", c.name, node.Name, node.NICBytesPerS, want)
			}
		}
	}
	if _, err := TwinOf(harness.ClusterSpec{Shape: "no-such"}); err == nil || !strings.Contains(err.Error(), "unknown cluster shape") {
		t.Errorf("unknown shape: error %v", err)
	}
	if _, err := OpenNamed(Named{Name: "empty"}, harness.ClusterSpec{}, "even"); err == nil {
		t.Error("a cluster without nodes opened")
	}
}

// checkTwinLink checks a twin's run as a real run's link diagnosis is checked: sup1's egress in the
// diagnosis is the frames its tuples fill (wantMbit, within 5%: the window's edges), against its limit
// where it has one, and the link is the bottleneck exactly when limited.
func checkTwinLink(t *testing.T, name string, res *harness.RunResult, limitMbit, wantMbit float64) {
	t.Helper()
	d := res.Diagnosis
	i := slices.IndexFunc(d.Links, func(l diagnose.Link) bool { return l.Host == "sup1" })
	if i < 0 {
		t.Fatalf("%s: diagnosis links %+v (unknown %v): want sup1's", name, d.Links, d.Unknown)
	}
	if l := d.Links[i]; math.Abs(l.SentMbit-wantMbit) > 0.05*wantMbit || math.Abs(l.LimitMbit-limitMbit) > 1e-9 || res.LinkMbit["sup1"] != l.LimitMbit {
		t.Errorf("%s: sup1's link %+v (run's link_mbit %v): want %.3f Mbit/s sent within 5%%, limit %g", name, l, res.LinkMbit, wantMbit, limitMbit)
	}
	if linked := d.Rule == "link at its limit"; linked != (limitMbit > 0) {
		t.Errorf("%s: bottleneck %q (rule %q): want sup1's link exactly when limited", name, d.Bottleneck, d.Rule)
	}
}

// payloadModel is the shipped cost model with the Throughput chain's tuples carrying payload bytes
// instead of the 100 its costs were measured at: a tuple's size grows one byte per payload byte (the
// payload is ASCII text), its CPU is kept (serialization is a small part of it, and a link-bound run
// leaves the CPU idle).
func payloadModel(t *testing.T, payload int) *sim.CostModel {
	t.Helper()
	m, err := ContainersCosts()
	if err != nil {
		t.Fatal(err)
	}
	const class = "org.stormlab.topologies.ThroughputTopology"
	tc := m.Topologies[class]
	tc.WorkArgs = map[string]string{"payload-bytes": strconv.Itoa(payload)}
	for name, c := range tc.Components {
		if c.Bytes > 0 {
			c.Bytes += float64(payload - 100)
		}
		tc.Components[name] = c
	}
	m.Topologies[class] = tc
	return m
}

// TestTwinLinkBinds is the twin of harness's TestClusterLinkRateBinds: the Throughput chain, 4,000-byte
// payloads, 2 workers under storm-even, sup1's link at 2 Mbit/s. Every hop sup1 sends to sup2 carries
// a 4,019.7-byte tuple (the shipped model's 119.7 at 100 bytes of payload, plus 3,900) through its
// NIC, so the acked rate is the NIC's bytes per second over the bytes sup1 sends per tuple (within 5%:
// the window's edges and the spout's pending trees); unlimited, the spout's 200 tuples/s (--interval-ms
// 5) go through (within 5%).
func TestTwinLinkBinds(t *testing.T) {
	model := payloadModel(t, 4000)
	const perTuple = 119.7 + 3900
	args := []string{"--workers", "2", "--payload-bytes", "4000", "--max-spout-pending", "50"}
	for _, c := range []struct {
		name string
		mbit float64
	}{{"limited", 2}, {"unlimited", 0}} {
		n, err := FromSupervisors("link", linkSups(c.mbit))
		if err != nil {
			t.Fatal(err)
		}
		cl, err := openWith(n, model, harness.ClusterSpec{Seed: 1}, "storm-even")
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, cl, spec(t, "throughput", "storm-even", "link-"+c.name, args...))
		hops := sup1Hops(res.Executors)
		want := 200.0
		if c.mbit > 0 {
			want = min(want, linkNIC(c.mbit)/(float64(hops)*perTuple))
		}
		got := res.Measurement.Throughput
		t.Logf("%s: %d hops out of sup1 per tuple; throughput %.1f tuples/s (want %.1f); latency mean %.0f ms", c.name, hops, got, want, res.Measurement.LatencyMean)
		if hops == 0 {
			t.Fatalf("%s: storm-even put no hop of the chain from sup1 to sup2: %+v", c.name, res.Executors)
		}
		if math.Abs(got-want) > 0.05*want {
			t.Errorf("%s: throughput %.1f tuples/s, want %.1f within 5%%", c.name, got, want)
		}
		checkTwinLink(t, c.name, res, c.mbit, float64(hops)*perTuple*got/frameShare*8/1e6)
	}
}

// sup1Hops counts the hops of the Throughput chain whose sender is on sup1 and receiver elsewhere.
func sup1Hops(execs []harness.ExecutorPlace) int {
	host := map[string]string{}
	for _, e := range execs {
		host[e.Component] = e.Host
	}
	chain := []string{"spout", "bolt1", "bolt2", "bolt3"}
	hops := 0
	for i := 1; i < len(chain); i++ {
		if host[chain[i-1]] == "sup1" && host[chain[i]] != "sup1" {
			hops++
		}
	}
	return hops
}

// TestRecordedSupervisorIDs: a run's supervisor ids are those it records, else those its decisions name
// for the hosts its placement gives (the shape of the quick sim-validation's K-PART runs, recorded
// before runs kept the ids), else none.
func TestRecordedSupervisorIDs(t *testing.T) {
	places := []harness.ExecutorPlace{{Component: "count", Start: 5, End: 5, Host: "sup2", Port: 6700}, {Component: "sentence", Start: 13, End: 13, Host: "sup1", Port: 6700}}
	decided := []protocol.DecisionRecord{{Workers: []protocol.WorkerAssignment{
		{Supervisor: "1b2b-172.25.0.5", Port: 6700, Executors: []protocol.Executor{{Start: 5, End: 5}}},
		{Supervisor: "27c7-172.25.0.6", Port: 6700, Executors: []protocol.Executor{{Start: 13, End: 13}}},
	}}}
	// Both executors on one id: what a placement with them on two hosts cannot come from.
	swapped := []protocol.DecisionRecord{{Workers: []protocol.WorkerAssignment{
		{Supervisor: "1b2b-172.25.0.5", Port: 6700, Executors: []protocol.Executor{{Start: 5, End: 5}, {Start: 13, End: 13}}},
	}}}
	for _, tc := range []struct {
		name string
		run  harness.RunResult
		want map[string]string
	}{
		{"recorded", harness.RunResult{Supervisors: map[string]string{"sup1": "a", "sup2": "b"}, Executors: places, Decisions: decided}, map[string]string{"sup1": "a", "sup2": "b"}},
		{"from decisions", harness.RunResult{Executors: places, Decisions: decided}, map[string]string{"sup1": "27c7-172.25.0.6", "sup2": "1b2b-172.25.0.5"}},
		{"Storm's own scheduler, recorded before", harness.RunResult{Executors: places}, nil},
		{"the last placing decision", harness.RunResult{Executors: places, Decisions: append(swapped, decided...)},
			map[string]string{"sup1": "27c7-172.25.0.6", "sup2": "1b2b-172.25.0.5"}},
		{"a decision the placement contradicts", harness.RunResult{Executors: places, Decisions: append(slices.Clone(decided), swapped...)}, nil},
	} {
		if got := RecordedSupervisorIDs(&tc.run); !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestContainerQuota: a container's node takes its cores as a CPU quota of Docker's 100 ms period,
// bursting to the cores of the host the cost model was measured on, which the cluster's containers
// share; a cost model that does not name them (a target's, an older file) leaves the cores a steady
// capacity, and the papers' clusters have no quotas.
func TestContainerQuota(t *testing.T) {
	for _, c := range []struct {
		cluster    string
		hostCores  int
		period     float64
		peakOfNode []float64
	}{
		{"heterogeneous-2", 2, 0.1, []float64{2, 2}},
		{"heterogeneous-2", 0, 0, []float64{0, 0}},
		{"heterogeneous-2", 1, 0.1, []float64{1, 1}}, // sup2's 1 core cannot burst on a 1-core host: steady
		{"kpart-paper", 2, 0, []float64{0, 0, 0, 0}},
	} {
		n, err := Lookup(c.cluster)
		if err != nil {
			t.Fatal(err)
		}
		r := &simRun{c: &Cluster{named: n, model: &sim.CostModel{Provenance: sim.CostProvenance{HostCores: c.hostCores}}}}
		for i, node := range r.nodes() {
			want := c.period
			if c.peakOfNode[i] <= node.Cores {
				want = 0
			}
			if node.QuotaPeriod != want || want > 0 && node.Peak != c.peakOfNode[i] {
				t.Errorf("%s, host of %d cores: node %s period %v peak %v, want %v and %v", c.cluster, c.hostCores, node.Name, node.QuotaPeriod, node.Peak, want, c.peakOfNode[i])
			}
			if shared := node.Host != ""; shared != (want > 0) {
				t.Errorf("%s, host of %d cores: node %s on host %q: want the containers' host exactly when under a quota", c.cluster, c.hostCores, node.Name, node.Host)
			}
			if ph := node.QuotaPhase; want > 0 && !(ph >= 0 && ph < want) || want == 0 && ph != 0 {
				t.Errorf("%s, host of %d cores: node %s quota phase %v, want one in [0, %v) under a quota, else 0", c.cluster, c.hostCores, node.Name, ph, want)
			}
		}
	}
}

// TestContainerQuotaPhases: each container's quota periods run on a timer of its own, so the twin draws
// each node's phase per run: the same seed gives the same phases, another seed others, and the nodes
// of a run differ.
func TestContainerQuotaPhases(t *testing.T) {
	n, err := Lookup("homogeneous-2")
	if err != nil {
		t.Fatal(err)
	}
	phases := func(seed uint64) [2]float64 {
		r := &simRun{c: &Cluster{named: n, model: &sim.CostModel{Provenance: sim.CostProvenance{HostCores: 2}}}, seed: seed}
		nodes := r.nodes()
		return [2]float64{nodes[0].QuotaPhase, nodes[1].QuotaPhase}
	}
	a, again, b := phases(1), phases(1), phases(2)
	if a != again || a == b || a[0] == a[1] {
		t.Errorf("phases: seed 1 %v and again %v (want equal), seed 2 %v (want others), nodes of a run alike: %v", a, again, b, a[0] == a[1])
	}
}

// TestWithLinks: a recorded run's link limits (link_mbit) limit its twin's nodes' interfaces as
// FromSupervisors does (0.25 Mbit/s: 0.25e6 / 8 x 1448/1514 bytes a second), the others and the named
// cluster untouched.
func TestWithLinks(t *testing.T) {
	n, err := Lookup("heterogeneous-2")
	if err != nil {
		t.Fatal(err)
	}
	l := n.WithLinks(map[string]float64{"sup1": 0.25})
	for i, node := range l.Nodes {
		want := 0.0
		if node.Name == "sup1" {
			want = 0.25e6 / 8 * 1448 / 1514
		}
		if math.Abs(node.NICBytesPerS-want) > 1e-9 || n.Nodes[i].NICBytesPerS != 0 {
			t.Errorf("%s: NIC %v bytes/s (the cluster's own %v), want %v and 0", node.Name, node.NICBytesPerS, n.Nodes[i].NICBytesPerS, want)
		}
	}
}

// TestCharges: a model charges a run of a topology at the work flags its costs were read at, and says
// why not at others (the transfer design's 4,000-byte chain under costs read at 100 bytes) or for a
// topology it has no costs for, naming what measures it.
func TestCharges(t *testing.T) {
	const class = "org.stormlab.topologies.ThroughputTopology"
	for _, c := range []struct {
		name  string
		model *sim.CostModel
		tr    harness.TopologyRun
		want  string // "" charges
	}{
		{"its payload", payloadModel(t, 100), harness.TopologyRun{MainClass: class, Args: []string{"--payload-bytes", "100"}}, ""},
		{"another payload", payloadModel(t, 100), harness.TopologyRun{MainClass: class, Args: []string{"--payload-bytes", "4000"}}, "stormlab sim costs"},
		{"not the project's", payloadModel(t, 100), harness.TopologyRun{MainClass: "com.example.Mine"}, "stormlab capture"},
	} {
		err := Charges(c.model, c.tr)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
