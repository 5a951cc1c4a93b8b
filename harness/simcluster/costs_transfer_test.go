package simcluster

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// truth is what the synthetic transfer runs are built from: the costs the fit must give back.
var truth = struct {
	serMsg, serByte, deserMsg, deserByte float64 // s per message, s per byte
	local, link                          float64 // s per transfer
	overhead                             float64 // cores per worker
	conn                                 float64 // cores a placement of two workers adds whatever its rate (their connections)
	gcPerTuple, gcPerByte                float64 // workers' CPU besides executors per tuple (s) and per payload byte of it
	base                                 map[string]float64
	latency                              float64 // s, a tuple's path without transfers
}{
	serMsg: 20e-6, serByte: 5e-9, deserMsg: 30e-6, deserByte: 4e-9, local: 0.4e-3, link: 1.1e-3,
	overhead: 0.05, conn: 0.03, gcPerTuple: 100e-6, gcPerByte: 2e-9,
	base:    map[string]float64{"spout": 50e-6, "bolt1": 80e-6, "bolt2": 90e-6, "bolt3": 60e-6},
	latency: 3e-3,
}

// synthRun is a recorded transfer run built from truth: the Throughput chain with w workers on the
// given hosts, placed as Storm's EvenScheduler places it (executors in task order over the workers in
// turn: ackers 1..w, bolt1, bolt2, bolt3, spout), 10 reports of 2 s per worker, every figure times
// (1 + noise x a standard normal draw).
func synthRun(t TransferRun, hosts []string, rate, noise float64, rng *rand.Rand) *harness.RunResult {
	w := t.Placement.Workers
	ackBytes := 0.0
	size := float64(t.Payload) + 20 // the tuple's serialized size
	r := &harness.RunResult{TopologyID: "tp", MeasureFrom: 0, MeasureTo: 20000, Cluster: "synthetic",
		Measurement: measure.Measurement{LatencyCount: 1000}}
	r.Spec.Topology = harness.TopologyRun{Name: "xfer", MainClass: throughputClass(), Args: t.Args(rate, hosts, protocol.NodesConf)}
	names := []string{}
	for i := range w {
		names = append(names, fmt.Sprintf("__acker%d", i))
	}
	names = append(names, "bolt1", "bolt2", "bolt3", "spout")
	worker := func(task int) int { return (task - 1) % w }
	hostOf := func(wk int) string { return hosts[wk%len(hosts)] }
	portOf := func(wk int) int { return 6700 + wk/len(hosts) }
	task := map[string]int{}
	for i, n := range names {
		comp := n
		if strings.HasPrefix(n, "__acker") {
			comp = "__acker"
		}
		task[n] = i + 1
		r.Executors = append(r.Executors, harness.ExecutorPlace{Component: comp, Start: i + 1, End: i + 1, Host: hostOf(worker(i + 1)), Port: portOf(worker(i + 1))})
	}
	ackRemote := func(tk int) float64 { // share of ackers in another worker
		n := 0.0
		for i := range w {
			if worker(i+1) != worker(tk) {
				n++
			}
		}
		return n / float64(w)
	}
	chain := []string{"spout", "bolt1", "bolt2", "bolt3"}
	rate *= t.RateShare     // the run's own rate (its --rate)
	n := rate * 2           // tuples per 2 s report
	msgs, bytes := 0.0, 0.0 // remote per report interval, all workers
	hopsLocal, hopsLink, hopBytes := 0.0, 0.0, 0.0
	perTask := map[string]float64{} // thread CPU per report interval
	reps := make([]protocol.WorkerReport, w)
	for i, c := range chain {
		tk := task[c]
		perTuple := truth.base[c] + float64(t.Payload)*1e-9 // the spout builds the payload, the bolts pass it
		remote := ackRemote(tk)
		rb := remote * ackBytes
		if i+1 < len(chain) {
			to := task[chain[i+1]]
			rep := &reps[worker(tk)]
			rep.Traffic = append(rep.Traffic, protocol.TaskTraffic{Src: tk, Dst: to, Count: int64(n)})
			rep.TupleSizes = append(rep.TupleSizes, protocol.TaskTupleSize{Task: tk, OutSamples: int64(n), OutBytes: int64(n * size)})
			if worker(tk) != worker(to) {
				remote, rb = remote+1, rb+size
				if hostOf(worker(tk)) == hostOf(worker(to)) {
					hopsLocal++
				} else {
					hopsLink++
				}
				hopBytes += size
			}
		}
		perTuple += remote*truth.serMsg + rb*truth.serByte
		msgs, bytes = msgs+n*remote, bytes+n*rb
		perTask[c] = n * perTuple
		if c == "spout" {
			reps[worker(tk)].Emits = append(reps[worker(tk)].Emits, protocol.TaskEmits{Task: tk, Stream: "default", Count: int64(n)})
		}
	}
	// the sink's ack to its acker and the acker's completion to the spout
	for _, c := range []string{"bolt3", "spout"} {
		for i := range w {
			if worker(i+1) != worker(task[c]) {
				if hostOf(worker(i+1)) == hostOf(worker(task[c])) {
					hopsLocal += 1 / float64(w)
				} else {
					hopsLink += 1 / float64(w)
				}
			}
		}
	}
	nonThread := float64(w)*truth.overhead + float64(min(1, w-1))*truth.conn + rate*(truth.gcPerTuple+truth.gcPerByte*float64(t.Payload)) +
		(msgs*truth.deserMsg+bytes*truth.deserByte)/2
	draw := func() float64 { return 1 + noise*rng.NormFloat64() }
	for k := range 10 {
		for wk := range w {
			rep := reps[wk]
			rep.Topology, rep.Host, rep.Port, rep.IntervalS, rep.TimeMs = "tp", hostOf(wk), portOf(wk), 2, int64(2000*(k+1))
			var cpu []protocol.TaskCPU
			own := 0.0
			for _, c := range chain {
				if worker(task[c]) == wk {
					x := perTask[c] * draw()
					cpu = append(cpu, protocol.TaskCPU{Task: task[c], CPUNs: int64(x * 1e9)})
					own += x
				}
			}
			rep.CPU = cpu
			rep.WorkerCPUPercent = (own + 2*nonThread/float64(w)*draw()) / 2 * 100
			r.Reports = append(r.Reports, rep)
		}
	}
	hops := hopsLocal + hopsLink
	lat := truth.latency + float64(t.Payload)*1e-8 + hopsLocal*truth.local + hopsLink*truth.link +
		hops*(truth.serMsg+truth.deserMsg) + hopBytes*(truth.serByte+truth.deserByte)
	r.Measurement.LatencyMean = lat * 1000 * draw()
	r.Measurement.Throughput, r.Measurement.Acked, r.Measurement.WindowS = rate, int64(rate*20), 20
	return r
}

// hostsFor are the synthetic cluster's hosts a placement uses (sup2 first: the node with the most CPU).
func hostsFor(p TransferPlacement) []string { return []string{"sup2", "sup1"}[:p.Nodes] }

// synthRuns are reps repetitions of design's runs at 100 tuples/s.
func synthRuns(design []TransferRun, reps int, noise float64) []*harness.RunResult {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []*harness.RunResult
	for range reps {
		for _, t := range design {
			out = append(out, synthRun(t, hostsFor(t.Placement), 100, noise, rng))
		}
	}
	return out
}

// TestFitTransfer: the fit gives back the costs the synthetic runs were built with (truth), and says
// what it cannot measure. Tolerances: with figures exact (no noise) 1e-6 relative (rounding to 4
// digits: 5e-4); with 0.5% noise on every CPU figure and on the latency (a standard normal draw per
// report), 15% on each cost and the truth inside its stated interval.
func TestFitTransfer(t *testing.T) {
	full := TransferDesign(2)
	var onePayload, local, oneRate []TransferRun
	for _, r := range full {
		if r.Placement.Workers == 1 || r.RateShare == 1 {
			oneRate = append(oneRate, r)
		}
		if r.Payload == TransferPayloads[0] {
			onePayload = append(onePayload, r)
		}
		if r.Placement.Workers == 1 {
			local = append(local, r)
		}
	}
	want := map[string]float64{"ser_msg_s": truth.serMsg, "ser_byte_s": truth.serByte, "deser_msg_s": truth.deserMsg,
		"deser_byte_s": truth.deserByte, "local_latency_s": truth.local, "link_latency_s": truth.link}
	for _, c := range []struct {
		name     string
		runs     []*harness.RunResult
		tol      float64
		measured []string // the costs measured; the others must be listed missing, at 0
		// hopSer, hopDeser: a transfer's serialization or deserialization is not measured, so the
		// latency per transfer holds it (per message, and per byte of the path's mean transfer: 3 tuples
		// of 120 bytes and 1 ack of 0 in 4).
		hopSer, hopDeser bool
	}{
		{"exact", synthRuns(full, 1, 0), 5e-4, slices.Sorted(maps.Keys(want)), false, false},
		{"noisy, 2 repetitions", synthRuns(full, 2, 0.005), 0.15, slices.Sorted(maps.Keys(want)), false, false},
		{"one node", synthRuns(TransferDesign(1), 2, 0.005), 0.15, []string{"deser_byte_s", "deser_msg_s", "local_latency_s", "ser_byte_s", "ser_msg_s"}, false, false},
		{"one payload (the comm-cost experiment's runs)", synthRuns(onePayload, 2, 0.005), 0.15, []string{"local_latency_s", "link_latency_s"}, true, true},
		{"the single worker only", synthRuns(local, 2, 0.005), 0, nil, false, false},
		// Before each placement ran at two rates: a connection's constant cost could pass for deserialization.
		{"remote placements at one rate", synthRuns(oneRate, 2, 0.005), 0.15, []string{"link_latency_s", "local_latency_s", "ser_byte_s", "ser_msg_s"}, false, true},
		{"no transfer run", nil, 0, nil, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &sim.CostModel{Provenance: sim.CostProvenance{Missing: []string{"transfer costs per message (old)"}}}
			if _, err := FitTransfer(m, c.runs); err != nil {
				t.Fatal(err)
			}
			got, pis := transferFigures(m.Transfer)
			for name, w := range want {
				listed := slices.ContainsFunc(m.Provenance.Missing, func(s string) bool { return slices.Contains(words(s), name) })
				if !slices.Contains(c.measured, name) {
					if got[name] != 0 || pis[name] != nil || !listed {
						t.Errorf("%s: %v (interval %v), listed missing %v: want 0, no interval, listed (%q)", name, got[name], pis[name], listed, m.Provenance.Missing)
					}
					continue
				}
				if c.hopSer && strings.HasSuffix(name, "latency_s") {
					w += truth.serMsg + truth.serByte*3*120/4
				}
				if c.hopDeser && strings.HasSuffix(name, "latency_s") {
					w += truth.deserMsg + truth.deserByte*3*120/4
				}
				if math.Abs(got[name]-w) > c.tol*w || listed {
					t.Errorf("%s: %.4g, want %.4g within %g (listed missing: %v)", name, got[name], w, c.tol, listed)
				}
				if c.tol > 0.001 && !pis[name].Contains(w) {
					t.Errorf("%s: interval %+v leaves out the truth %.4g", name, pis[name], w)
				}
			}
			if slices.ContainsFunc(m.Provenance.Missing, func(s string) bool { return strings.HasSuffix(s, "(old)") }) {
				t.Errorf("the old transfer entry is still listed: %q", m.Provenance.Missing)
			}
		})
	}
}

// words are s's identifiers (letters, digits, _).
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) })
}

func transferFigures(tr sim.TransferCosts) (map[string]float64, map[string]*sim.Interval) {
	return map[string]float64{"ser_msg_s": tr.SerMsgS, "ser_byte_s": tr.SerByteS, "deser_msg_s": tr.DeserMsgS,
			"deser_byte_s": tr.DeserByteS, "local_latency_s": tr.LocalLatency, "link_latency_s": tr.LinkLatency},
		map[string]*sim.Interval{"ser_msg_s": tr.SerMsgPI, "ser_byte_s": tr.SerBytePI, "deser_msg_s": tr.DeserMsgPI,
			"deser_byte_s": tr.DeserBytePI, "local_latency_s": tr.LocalLatencyPI, "link_latency_s": tr.LinkLatencyPI}
}

// TestFitTransferFromRecordedRuns: transfer runs are recognised from their run.json (the chain's
// --rate, the executors' places) after a save and a load, and give the same costs as before it (a
// JSON round trip keeps every figure: exact equality); MeasureCosts leaves them out of the topologies'
// costs (a recorded WordCount run beside them gives WordCount's, and no Throughput chain's).
func TestFitTransferFromRecordedRuns(t *testing.T) {
	runs := synthRuns(TransferDesign(2), 2, 0.005)
	var loaded []*harness.RunResult
	for i, r := range runs {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
		if err := harness.Save(dir, r); err != nil {
			t.Fatal(err)
		}
		l, err := harness.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !IsTransferRun(l) {
			t.Fatalf("run %d not recognised as a transfer run after a save: args %v", i, l.Spec.Topology.Args)
		}
		loaded = append(loaded, l)
	}
	before, after := &sim.CostModel{}, &sim.CostModel{}
	if _, err := FitTransfer(before, runs); err != nil {
		t.Fatal(err)
	}
	if _, err := FitTransfer(after, loaded); err != nil {
		t.Fatal(err)
	}
	if before.Transfer.SerMsgS == 0 || !reflect.DeepEqual(before.Transfer, after.Transfer) {
		t.Errorf("in memory %+v, from run.json %+v: want the same measured costs", before.Transfer, after.Transfer)
	}
	wc, err := harness.Load("testdata/wordcount-even")
	if err != nil {
		t.Fatal(err)
	}
	m, err := MeasureCosts("x", append([]*harness.RunResult{wc}, loaded...), sim.CostProvenance{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Topologies[throughputClass()]; ok || len(m.Topologies) != 1 {
		t.Errorf("topologies %v: want WordCount's only (the transfer runs are FitTransfer's)", slices.Collect(maps.Keys(m.Topologies)))
	}
}

// TestFitTransferBusyNode: a transfer run whose busiest node used 95% of its CPU (its diagnosis) is
// named, in what FitTransfer returns and in the model's method; one at 50% is not.
func TestFitTransferBusyNode(t *testing.T) {
	runs := synthRuns(TransferDesign(2), 1, 0)
	runs[0].Diagnosis = &harness.Diagnosis{Nodes: []diagnose.Node{{Host: "sup2", UsedOfQuota: 0.95}}}
	runs[1].Diagnosis = &harness.Diagnosis{Nodes: []diagnose.Node{{Host: "sup2", UsedOfQuota: 0.5}}}
	m := &sim.CostModel{}
	read, err := FitTransfer(m, runs)
	if err != nil {
		t.Fatal(err)
	}
	if read.Runs != len(runs) || len(read.Busy) != 1 || !strings.Contains(read.Busy[0], "sup2 at 95%") || !strings.Contains(m.Provenance.Method, "caution: in 1 of 9") {
		t.Errorf("read %+v, method %q: want the one busy run named", read, m.Provenance.Method)
	}
}

// TestStatedCost: a fitted coefficient is a cost with its interval (± t(0.975, 5) = 2.571 x √2 x se:
// 3 ± 3.636 µs, floored at 0); one at or below zero is charged as zero, without an interval, and said
// to be missing with its figure.
func TestStatedCost(t *testing.T) {
	f := olsFit{coef: []float64{3e-6, -1e-6}, se: []float64{1e-6, 1e-6}, df: 5}
	x, pi, missing := f.stated(0, "ser_msg_s")
	if x != 3e-6 || pi == nil || pi.Lo != 0 || math.Abs(pi.Hi-6.636e-6) > 1e-9 || missing != "" {
		t.Errorf("positive: %v, %+v, %q; want 3e-06 in [0, 6.636e-06]", x, pi, missing)
	}
	x, pi, missing = f.stated(1, "deser_byte_s")
	if x != 0 || pi != nil || !strings.HasPrefix(missing, "deser_byte_s: fitted -1e-06") {
		t.Errorf("negative: %v, %+v, %q; want 0, no interval, listed with its figure", x, pi, missing)
	}
}

// TestDeductDeser: once deserialization is fitted, the workers' overhead (measured on the topologies'
// runs, where it holds their deserialization) is charged less it, unless that is more than the
// overhead itself (then the fitted costs are said not to hold and charged as zero). The reference: a run of the chain in
// 2 workers on 2 nodes at 100 tuples/s (synthRun, not paced, so not of the design) sends per tuple 3
// tuples of 120 bytes to another worker (spout, bolt1, bolt2 each cross) and 2 acks of 0 bytes (4
// components, half of the ackers in the other worker): 500 messages and 36,000 bytes per second, so
// (500 x 30 µs + 36,000 x 4 ns) / 2 workers = 0.007572 cores per worker. Tolerance 1e-4 cores (the
// model rounds to 4 digits; the fit is exact without noise).
func TestDeductDeser(t *testing.T) {
	runs := synthRuns(TransferDesign(2), 1, 0)
	topo := synthRun(TransferRun{TransferPlacements[2], 100, 1}, hostsFor(TransferPlacements[2]), 100, 0, rand.New(rand.NewPCG(3, 4)))
	i := slices.Index(topo.Spec.Topology.Args, "--rate")
	topo.Spec.Topology.Args = slices.Delete(topo.Spec.Topology.Args, i, i+2)
	m := &sim.CostModel{Transfer: sim.TransferCosts{WorkerOverheadCores: 0.2, WorkerOverheadPI: &sim.Interval{Lo: 0.15, Hi: 0.25}}}
	if _, err := FitTransfer(m, append(runs, topo)); err != nil {
		t.Fatal(err)
	}
	const d = 0.007572
	tr := m.Transfer
	if math.Abs(tr.WorkerOverheadCores-(0.2-d)) > 1e-4 || math.Abs(tr.WorkerOverheadPI.Lo-(0.15-d)) > 1e-4 || math.Abs(tr.WorkerOverheadPI.Hi-(0.25-d)) > 1e-4 {
		t.Errorf("overhead %v in %+v, want %v in [%v, %v]", tr.WorkerOverheadCores, *tr.WorkerOverheadPI, 0.2-d, 0.15-d, 0.25-d)
	}
	if !strings.Contains(m.Provenance.Method, "less the fitted deserialization") {
		t.Errorf("method %q does not say the overhead is net of deserialization", m.Provenance.Method)
	}
	// An overhead below the deduction: the fitted costs would charge more than the workers used, so
	// they are said missing and charged as zero, and the overhead stays as measured.
	m = &sim.CostModel{Transfer: sim.TransferCosts{WorkerOverheadCores: 0.005}}
	if _, err := FitTransfer(m, append(runs, topo)); err != nil {
		t.Fatal(err)
	}
	tr = m.Transfer
	said := slices.ContainsFunc(m.Provenance.Missing, func(s string) bool { return strings.HasPrefix(s, "deser_msg_s, deser_byte_s: fitted") })
	if tr.WorkerOverheadCores != 0.005 || tr.DeserMsgS != 0 || tr.DeserByteS != 0 || tr.DeserMsgPI != nil || !said {
		t.Errorf("overhead 0.005 < %v: overhead %v, deser %v/msg %v/byte, listed %v: want 0.005, zeros, listed (%q)", d, tr.WorkerOverheadCores, tr.DeserMsgS, tr.DeserByteS, said, m.Provenance.Missing)
	}
	// Without deserialization fitted (one payload), the overhead stays as measured.
	m = &sim.CostModel{Transfer: sim.TransferCosts{WorkerOverheadCores: 0.2}}
	var onePayload []*harness.RunResult
	for _, r := range runs {
		if !slices.Contains(r.Spec.Topology.Args, "4000") {
			onePayload = append(onePayload, r)
		}
	}
	if _, err := FitTransfer(m, append(onePayload, topo)); err != nil || m.Transfer.WorkerOverheadCores != 0.2 {
		t.Errorf("one payload: overhead %v (err %v), want 0.2 unchanged", m.Transfer.WorkerOverheadCores, err)
	}
}

// TestDeductSer: the fitted serialization is taken out of each sending component's CPU per tuple (its
// thread's CPU holds the serialization of its messages to other workers, which the simulator charges
// per message besides it), by the fitted cost of its remote messages over its tuples in the
// topologies' runs, the interval with it; where that exceeds a component's CPU per tuple, the fitted
// costs are refuted, charged as zero and listed, and the CPU per tuple stays as measured.
func TestDeductSer(t *testing.T) {
	runs := synthRuns(TransferDesign(2), 1, 0)
	topo := synthRun(TransferRun{TransferPlacements[2], 100, 1}, hostsFor(TransferPlacements[2]), 100, 0, rand.New(rand.NewPCG(3, 4)))
	i := slices.Index(topo.Spec.Topology.Args, "--rate")
	topo.Spec.Topology.Args = slices.Delete(topo.Spec.Topology.Args, i, i+2)
	model := func(cpu float64) *sim.CostModel {
		comps := map[string]sim.ComponentCost{}
		for c := range remoteByComponent(topo, 0) {
			comps[c] = sim.ComponentCost{CPUMicros: cpu, CPUMicrosPI: &sim.Interval{Lo: cpu - 100, Hi: cpu + 100}}
		}
		return &sim.CostModel{Topologies: map[string]sim.TopologyCosts{throughputClass(): {Components: comps}}}
	}
	m := model(500)
	if _, err := FitTransfer(m, append(runs, topo)); err != nil {
		t.Fatal(err)
	}
	tr, cut := m.Transfer, 0
	for c, x := range remoteByComponent(topo, tr.AckBytes) {
		d := (x.msgs*tr.SerMsgS + x.bytes*tr.SerByteS) / x.tuples * 1e6
		got := m.Topologies[throughputClass()].Components[c]
		if math.Abs(got.CPUMicros-(500-d)) > 1e-3 || math.Abs(got.CPUMicrosPI.Lo-(400-d)) > 1e-3 || math.Abs(got.CPUMicrosPI.Hi-(600-d)) > 1e-3 {
			t.Errorf("%s: %v µs in %+v, want 500 less its serialization %v µs", c, got.CPUMicros, *got.CPUMicrosPI, d)
		}
		if d > 0 {
			cut++
		}
	}
	if tr.SerMsgS == 0 || cut == 0 || !strings.Contains(m.Provenance.Method, "less the fitted serialization") {
		t.Errorf("ser %v s/msg, %d components with a deduction, method %q: want the fitted serialization taken out and said", tr.SerMsgS, cut, m.Provenance.Method)
	}
	// CPU per tuple below the deduction: refuted, charged as zero and listed, the costs as measured.
	m = model(0.001)
	if _, err := FitTransfer(m, append(runs, topo)); err != nil {
		t.Fatal(err)
	}
	said := slices.ContainsFunc(m.Provenance.Missing, func(s string) bool { return strings.HasPrefix(s, "ser_msg_s, ser_byte_s: fitted") })
	for c, got := range m.Topologies[throughputClass()].Components {
		if got.CPUMicros != 0.001 {
			t.Errorf("refuted: %s at %v µs, want 0.001 as measured", c, got.CPUMicros)
		}
	}
	if m.Transfer.SerMsgS != 0 || m.Transfer.SerByteS != 0 || m.Transfer.SerMsgPI != nil || !said {
		t.Errorf("refuted: ser %v/msg %v/byte, listed %v: want zeros, listed (%q)", m.Transfer.SerMsgS, m.Transfer.SerByteS, said, m.Provenance.Missing)
	}
}
