package simcluster

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/topologies"
)

// The transfer design: the Throughput chain paced open loop (--rate), its executors in one worker
// (every transfer within it), in workers of one node (between workers) and in workers of two nodes
// (between nodes), at two payload sizes; every placement also at half the rate at the smaller payload,
// so that what a placement costs whatever its rate (its workers, their connections) is told apart from
// what each transfer costs. IsTransferRun recognises such runs from their run.json; TransferDesign
// lists them for a cluster.

// TransferPlacement is one placement of the design: the chain's workers and how many nodes hold them.
type TransferPlacement struct {
	Name    string
	Workers int
	Nodes   int
}

// TransferPlacements are the design's placements: 1 worker (local only), 2 workers on one node (one
// executor in two crossing a worker: Storm's EvenScheduler alternates the chain's executors over the
// two), 2 workers on 2 nodes (the same crossings, between nodes). Two workers, not the comm-cost
// experiment's four, so that a node of the shapes holds them (4 workers do not fit 1,280 MB).
var TransferPlacements = []TransferPlacement{{"local", 1, 1}, {"node", 2, 1}, {"link", 2, 2}}

// TransferPayloads are the design's payload sizes (bytes): the Throughput chain's default and a large one.
var TransferPayloads = []int{100, 4000}

// TransferRun is one run of the design: a placement, a payload, and the rate as a share of the
// design's rate (1, or 0.5 for each placement's second rate at the smallest payload).
type TransferRun struct {
	Placement TransferPlacement
	Payload   int
	RateShare float64
}

// TransferDesign is the runs of one repetition, placements needing more nodes than nodes left out.
func TransferDesign(nodes int) []TransferRun {
	var out []TransferRun
	for _, p := range TransferPlacements {
		if p.Nodes > nodes {
			continue
		}
		for _, b := range TransferPayloads {
			out = append(out, TransferRun{p, b, 1})
			if b == TransferPayloads[0] {
				out = append(out, TransferRun{p, b, 0.5})
			}
		}
	}
	return out
}

// Args are the Throughput chain's flags for the run at rate tuples/s on hosts (protocol.NodesConf,
// as the comm-cost experiment holds its workers to chosen nodes).
func (t TransferRun) Args(rate float64, hosts []string, nodesConf string) []string {
	return []string{"--workers", strconv.Itoa(t.Placement.Workers), "--parallelism", "1",
		"--payload-bytes", strconv.Itoa(t.Payload), "--rate", strconv.FormatFloat(rate*t.RateShare, 'f', 2, 64),
		"--arrivals", "constant", "--report-interval-secs", "2", "--conf", nodesConf + "=" + strings.Join(hosts, ",")}
}

// throughputClass is the Throughput chain's main class.
func throughputClass() string {
	for _, m := range topologies.StormMains() {
		if m.Name == "throughput" {
			return m.Class
		}
	}
	return ""
}

// IsTransferRun says whether r is a run of the transfer design: the Throughput chain paced open loop
// (a --rate flag). Its costs are read by FitTransfer, not pooled with the topology's costs (a paced
// chain at another payload is another setting). The comm-cost experiment's runs are such runs too.
func IsTransferRun(r *harness.RunResult) bool {
	return r.Spec.Topology.MainClass == throughputClass() && parseFlags(r.Spec.Topology.Args)["rate"] != ""
}

// FitTransfer measures m's transfer costs from the transfer runs among runs (IsTransferRun; invalid
// ones left out): the senders' serialization from the executors' thread CPU, the receivers'
// deserialization from the workers' CPU besides their executors, the latency of a transfer between
// workers of a node and between nodes from the complete latency. What the runs cannot tell is charged
// as zero and listed in m's provenance as missing, with why. It returns what it read.
func FitTransfer(m *sim.CostModel, runs []*harness.RunResult) (TransferRead, error) {
	var read TransferRead
	var obs []xferObs
	for _, r := range runs {
		if r.Validity.Level == harness.Invalid || r.Simulated != nil || !IsTransferRun(r) {
			continue
		}
		o, err := observe(r, m.Transfer.AckBytes)
		if err != nil {
			return read, fmt.Errorf("transfer run %s: %w", r.Spec.Topology.Name, err)
		}
		obs = append(obs, o)
		read.Runs++
		if host, used := busiestNode(r); used >= busyShare {
			read.Busy = append(read.Busy, fmt.Sprintf("%s (%s at %.0f%% of its CPU)", r.Spec.Topology.Name, host, 100*used))
		}
		m.Provenance.Runs = append(m.Provenance.Runs, fmt.Sprintf("transfer: throughput %s, %d workers on %d nodes, %g bytes, %g tuples/s, on %s at %s",
			o.cell, o.workers, o.nodes, o.payload, o.rate, r.Cluster, r.StartedAt.UTC().Format("2006-01-02T15:04:05Z")))
	}
	tr := &m.Transfer
	var missing []string
	if len(obs) == 0 {
		missing = append(missing, "ser_msg_s, ser_byte_s, deser_msg_s, deser_byte_s, local_latency_s, link_latency_s: no run of the transfer design (stormlab sim costs --cluster ... --transfer)")
	} else {
		missing = appendSaid(missing, measureSpin(m, runs))
		if payloads(obs) < 2 {
			missing = append(missing, "ser_msg_s, ser_byte_s, deser_msg_s, deser_byte_s: the transfer runs have one payload size, which cannot tell a cost per message from one per byte (record the transfer design: stormlab sim costs --cluster ... --transfer)")
		} else {
			missing = append(missing, fitSer(obs, tr)...)
			missing = appendSaid(missing, deductSer(m, runs))
			missing = append(missing, fitDeser(obs, tr)...)
			missing = appendSaid(missing, deductDeser(m, runs))
		}
		missing = append(missing, fitLatency(obs, tr)...)
		m.Provenance.Method += "; " + transferFitMethod
		m.Provenance.Uncertainty = strings.TrimPrefix(m.Provenance.Uncertainty+"; "+transferMethod, "; ")
	}
	m.Provenance.Missing = slices.DeleteFunc(m.Provenance.Missing, func(s string) bool { return strings.HasPrefix(s, "transfer costs") })
	m.Provenance.Missing = append(m.Provenance.Missing, missing...)
	if len(read.Busy) > 0 {
		m.Provenance.Method += fmt.Sprintf("; caution: in %d of %d transfer runs a node used %.0f%% or more of its CPU, where "+
			"serialization displaces the executors' idle spinning and the CPU costs read low: %s", len(read.Busy), read.Runs, 100*busyShare, strings.Join(read.Busy, ", "))
	}
	return read, nil
}

// TransferRead is what FitTransfer read: the transfer runs, and those in which a node was busy
// (busyShare of its CPU or more).
type TransferRead struct {
	Runs int
	Busy []string
}

// busyShare is the share of a node's CPU from which a transfer run's CPU differences are suspect:
// Storm's executors spin and yield while idle, and on a node at its quota added work takes the
// spinning's time instead of adding to the threads' CPU.
const busyShare = 0.9

// busiestNode is r's node using the largest share of its CPU over the window (the run's diagnosis).
func busiestNode(r *harness.RunResult) (string, float64) {
	if r.Diagnosis == nil || len(r.Diagnosis.Nodes) == 0 {
		return "", 0
	}
	n := r.Diagnosis.Nodes[0] // most used first
	return n.Host, n.UsedOfQuota
}

// payloads is how many payload sizes the runs that cross a worker have.
func payloads(obs []xferObs) int {
	seen := map[float64]bool{}
	for _, o := range obs {
		if o.workers > 1 {
			seen[o.payload] = true
		}
	}
	return len(seen)
}

// transferFitMethod is how FitTransfer reads the runs, as the cost-model file says it.
const transferFitMethod = "transfer costs from the Throughput chain paced open loop in 1 worker, 2 workers of a node and 2 workers " +
	"of 2 nodes at two payloads: ser_msg_s, ser_byte_s fitted on each component's thread CPU per tuple as a constant per " +
	"component, payload and rate + ser_msg x remote messages sent per tuple (tuples to another worker, and acks to an acker " +
	"in another worker) + ser_byte x their bytes; deser_msg_s, deser_byte_s on the workers' CPU besides their executor threads " +
	"(cores, summed over the run's workers) as g(payload) x rate + o(placement) + deser_msg x remote messages per second + " +
	"deser_byte x their bytes per second (each placement at two rates tells its g x rate from its o); local_latency_s, link_latency_s on " +
	"the complete latency mean less the fitted CPU of its transfers, as a constant per payload and rate + local x the transfers " +
	"between workers of a node on a tuple's path + link x those between nodes (the chain's hops weighted by traffic, the " +
	"last ack to its acker and the acker's completion to the spout, each weighted by the ackers' placement)"

// fitSer fits the senders' serialization.
func fitSer(obs []xferObs, tr *sim.TransferCosts) []string {
	cells := map[string]int{}
	for _, o := range obs {
		for _, c := range o.comps {
			if _, ok := cells[o.cell+" "+c.name]; !ok {
				cells[o.cell+" "+c.name] = len(cells)
			}
		}
	}
	var x [][]float64
	var y []float64
	for _, o := range obs {
		for _, c := range o.comps {
			row := make([]float64, len(cells)+2)
			row[cells[o.cell+" "+c.name]] = 1
			row[len(cells)], row[len(cells)+1] = c.msgs, c.bytes
			x, y = append(x, row), append(y, c.cpu)
		}
	}
	f, err := ols(x, y, append(cellNames(cells), "ser_msg", "ser_byte"))
	if err != nil {
		return []string{"ser_msg_s, ser_byte_s: " + err.Error()}
	}
	n := len(cells)
	var m1, m2 string
	tr.SerMsgS, tr.SerMsgPI, m1 = f.stated(n, "ser_msg_s")
	tr.SerByteS, tr.SerBytePI, m2 = f.stated(n+1, "ser_byte_s")
	return appendSaid(nil, m1, m2)
}

// fitDeser fits the receivers' deserialization. Each placement has its own constant (cores whatever
// the rate: its workers' own threads and, with two workers, their connections' polling), so the cost
// per message is read from how the placements' CPU moves with their rate and payload; a placement run
// at one rate only cannot tell its constant from its transfers, and the fit says so.
func fitDeser(obs []xferObs, tr *sim.TransferCosts) []string {
	payloads, placements := map[string]int{}, map[string]int{}
	for _, o := range obs {
		if _, ok := payloads[o.payloadKey()]; !ok {
			payloads[o.payloadKey()] = len(payloads)
		}
		if _, ok := placements[o.placementKey()]; !ok {
			placements[o.placementKey()] = len(placements)
		}
	}
	var x [][]float64
	var y []float64
	n, k := len(payloads), len(placements)
	for _, o := range obs {
		row := make([]float64, n+k+2)
		row[payloads[o.payloadKey()]] = o.rate
		row[n+placements[o.placementKey()]] = 1
		row[n+k], row[n+k+1] = o.msgsPerS, o.bytesPerS
		x, y = append(x, row), append(y, o.nonThread)
	}
	f, err := ols(x, y, append(append(cellNames(payloads), cellNames(placements)...), "deser_msg", "deser_byte"))
	if err != nil {
		return []string{"deser_msg_s, deser_byte_s: " + err.Error() + "; each placement must run at two rates"}
	}
	var m1, m2 string
	tr.DeserMsgS, tr.DeserMsgPI, m1 = f.stated(n+k, "deser_msg_s")
	tr.DeserByteS, tr.DeserBytePI, m2 = f.stated(n+k+1, "deser_byte_s")
	return appendSaid(nil, m1, m2)
}

// deductSer takes the fitted serialization out of the sending components' CPU per tuple. That CPU is
// measured on the topologies' runs (MeasureCosts) as each executor's thread CPU over its tuples, which
// holds the serialization of the messages it sent to other workers; the simulator charges
// serialization per message to the sending executor besides it, so left in, it would be charged twice.
// The deduction is, per component, the fitted cost of its remote messages (tuples and acks) in those
// runs over its tuples there (summed over the runs, as the ratio pools them); its interval moves with
// it.
//
// It is also a check: where a deduction exceeds the component's CPU per tuple, the fitted costs would
// charge those runs more serialization than the senders' threads used in all (the transfer design's
// executors, idle at 50-100 tuples/s, spin a varying 0.08-0.14 cores, which swamps microseconds per
// message): they are charged as zero and said missing (the returned text), and the CPU per tuple stays
// as measured.
func deductSer(m *sim.CostModel, runs []*harness.RunResult) string {
	tr := &m.Transfer
	if tr.SerMsgS == 0 && tr.SerByteS == 0 {
		return ""
	}
	per := map[string]map[string]*remoteSums{} // main class -> component
	for _, r := range runs {
		if r.Validity.Level == harness.Invalid || r.Simulated != nil || IsTransferRun(r) {
			continue
		}
		class := r.Spec.Topology.MainClass
		if per[class] == nil {
			per[class] = map[string]*remoteSums{}
		}
		for c, x := range remoteByComponent(r, tr.AckBytes) {
			sum := per[class][c]
			if sum == nil {
				sum = &remoteSums{}
				per[class][c] = sum
			}
			sum.msgs, sum.bytes, sum.tuples = sum.msgs+x.msgs, sum.bytes+x.bytes, sum.tuples+x.tuples
		}
	}
	// µs per tuple
	cut := map[string]map[string]float64{}
	for _, class := range slices.Sorted(maps.Keys(per)) { // sorted: the first refutation is named, always the same
		cut[class] = map[string]float64{}
		for _, name := range slices.Sorted(maps.Keys(per[class])) {
			x := per[class][name]
			c, ok := m.Topologies[class].Components[name]
			if !ok || x.tuples == 0 {
				continue
			}
			d := (x.msgs*tr.SerMsgS + x.bytes*tr.SerByteS) / x.tuples * 1e6
			if d > c.CPUMicros {
				said := fmt.Sprintf("ser_msg_s, ser_byte_s: fitted %.3g s per message and %.3g s per byte at the transfer design's rates, "+
					"which would take %.3g µs per tuple out of %s's %.3g µs, its thread's CPU in all: the idle executors' spinning at "+
					"those rates swamps a cost per message; charged as zero", tr.SerMsgS, tr.SerByteS, d, name, c.CPUMicros)
				tr.SerMsgS, tr.SerMsgPI, tr.SerByteS, tr.SerBytePI = 0, nil, 0, nil
				return said
			}
			cut[class][name] = d
		}
	}
	for class, comps := range cut {
		t := m.Topologies[class]
		for name, d := range comps {
			c := t.Components[name]
			c.CPUMicros = round(c.CPUMicros - d)
			if pi := c.CPUMicrosPI; pi != nil {
				c.CPUMicrosPI = &sim.Interval{Lo: max(0, pi.Lo-d), Hi: max(0, pi.Hi-d)}
			}
			t.Components[name] = c
		}
	}
	m.Provenance.Method += "; each component's cpu_us is its thread's CPU per tuple in the topologies' runs less the fitted " +
		"serialization of its messages to other workers there, which the simulator charges per message"
	return ""
}

// deductDeser takes the fitted deserialization out of the workers' overhead. That overhead is measured
// on the topologies' runs (MeasureCosts) as their workers' CPU besides the executor threads, which
// holds the deserialization of the messages they received; the simulator charges deserialization per
// message to the receiving executor besides the overhead, so left in, it would be charged twice. The
// deduction is the fitted cost of those runs' remote messages, per worker (their mean, as the overhead
// is); the overhead's interval moves with it (the fit's own uncertainty is not added to it).
//
// It is also a check: where the deduction exceeds the overhead, the fitted costs would charge those
// runs more CPU than their workers used besides their executors in all. The transfer design runs at
// 50-100 tuples/s, a wake-up of Storm's transfer and Netty threads per message; the topologies' runs
// are saturated, where those threads drain their queues in batches. Such costs do not hold at the
// rates the model is used at: they are charged as zero and said missing (the returned text), and the
// overhead stays as measured.
func deductDeser(m *sim.CostModel, runs []*harness.RunResult) string {
	tr := &m.Transfer
	if tr.DeserMsgS == 0 && tr.DeserByteS == 0 {
		return ""
	}
	cores, workers := 0.0, 0
	for _, r := range runs {
		if r.Validity.Level == harness.Invalid || r.Simulated != nil || IsTransferRun(r) {
			continue
		}
		msgs, bytes, w := remoteRates(r, tr.AckBytes)
		cores, workers = cores+msgs*tr.DeserMsgS+bytes*tr.DeserByteS, workers+w
	}
	if workers == 0 {
		return ""
	}
	d := cores / float64(workers)
	was := tr.WorkerOverheadCores
	if d > was {
		said := fmt.Sprintf("deser_msg_s, deser_byte_s: fitted %.3g s per message and %.3g s per byte at the transfer design's rates, "+
			"which would charge the topologies' runs %.3g cores per worker of deserialization where their workers used %.3g cores "+
			"in all besides their executors: costs per message at a wake-up per message do not hold where Storm batches its "+
			"transfers; charged as zero", tr.DeserMsgS, tr.DeserByteS, d, was)
		tr.DeserMsgS, tr.DeserMsgPI, tr.DeserByteS, tr.DeserBytePI = 0, nil, 0, nil
		return said
	}
	tr.WorkerOverheadCores = round(max(0, was-d))
	if pi := tr.WorkerOverheadPI; pi != nil {
		tr.WorkerOverheadPI = &sim.Interval{Lo: max(0, pi.Lo-d), Hi: max(0, pi.Hi-d)}
	}
	m.Provenance.Method += fmt.Sprintf("; worker_overhead_cores is the topologies' runs' overhead (%.4g cores per worker) less "+
		"the fitted deserialization of their messages from other workers (%.4g cores per worker), which the simulator charges per message", was, d)
	return ""
}

// fitLatency fits the latency of a transfer between workers of a node and between nodes, on the
// complete latency less the CPU the fitted costs charge on its path.
func fitLatency(obs []xferObs, tr *sim.TransferCosts) []string {
	cells := map[string]int{}
	for _, o := range obs {
		if _, ok := cells[o.cell]; !ok {
			cells[o.cell] = len(cells)
		}
	}
	n := len(cells)
	var x [][]float64
	var y []float64
	var names []string
	hasLink := slices.ContainsFunc(obs, func(o xferObs) bool { return o.hopsLink > 0 })
	for _, o := range obs {
		row := make([]float64, n+1, n+2)
		row[cells[o.cell]] = 1
		row[n] = o.hopsLocal
		if hasLink {
			row = append(row, o.hopsLink)
		}
		cpu := (o.hopsLocal + o.hopsLink) * (tr.SerMsgS + tr.DeserMsgS + (tr.SerByteS+tr.DeserByteS)*o.hopBytes)
		x, y = append(x, row), append(y, o.latency-cpu)
	}
	names = append(cellNames(cells), "local_latency")
	if hasLink {
		names = append(names, "link_latency")
	}
	f, err := ols(x, y, names)
	if err != nil {
		return []string{"local_latency_s, link_latency_s: " + err.Error()}
	}
	var m1, m2 string
	tr.LocalLatency, tr.LocalLatencyPI, m1 = f.stated(n, "local_latency_s")
	if !hasLink {
		return appendSaid(nil, m1, "link_latency_s: no run of the chain's workers on two nodes (a cluster of one supervisor)")
	}
	tr.LinkLatency, tr.LinkLatencyPI, m2 = f.stated(n+1, "link_latency_s")
	return appendSaid(nil, m1, m2)
}

// cellNames are the cells' names in their index order.
func cellNames(cells map[string]int) []string {
	out := make([]string, len(cells))
	for k, i := range cells {
		out[i] = k
	}
	return out
}

func appendSaid(xs []string, ys ...string) []string {
	for _, y := range ys {
		if y != "" {
			xs = append(xs, y)
		}
	}
	return xs
}
