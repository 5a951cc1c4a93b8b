package simcluster

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/topologies"
)

// xferObs is what one transfer run says: per sending component its thread CPU and remote messages
// per tuple; the workers' CPU besides their executors and the remote messages per second; the
// complete latency and the transfers on a tuple's path.
type xferObs struct {
	cell                string // payload and rate: the runs that differ only in placement
	payload, rate       float64
	workers, nodes      int
	comps               []compObs
	nonThread           float64 // cores, summed over the workers
	msgsPerS, bytesPerS float64 // messages to another worker (tuples and acks) and their bytes, per second
	latency             float64 // complete latency mean, s
	// hopsLocal and hopsLink are the transfers between workers of a node and between nodes on a
	// tuple's path (expected), hopBytes their mean size.
	hopsLocal, hopsLink, hopBytes float64
}

func (o xferObs) payloadKey() string { return fmt.Sprintf("%g bytes", o.payload) }

func (o xferObs) placementKey() string {
	return fmt.Sprintf("%d workers on %d nodes", o.workers, o.nodes)
}

// compObs is one component's figures per tuple it executed (a spout's: emitted): thread CPU (s),
// messages it sent to another worker and their bytes.
type compObs struct {
	name             string
	cpu, msgs, bytes float64
}

// place is where a task ran.
type place struct{ worker, host string }

// taskFigures are one task's sums over a run's window.
type taskFigures struct {
	// cpu is the task's thread CPU, spin the part of it the thread counted idle in the wait strategy
	// (0 where the reports do not carry it)
	cpu, spin, in, emitted, remote, remoteBytes float64
	outBytes, outSamples                        float64
}

// observe reads one transfer run's window.
func observe(r *harness.RunResult, ackBytes int) (xferObs, error) {
	main := topologies.StormMains()[slices.IndexFunc(topologies.StormMains(), func(m topologies.StormMain) bool { return m.Class == r.Spec.Topology.MainClass })]
	f := parseFlags(append(slices.Clone(main.DefaultArgs), r.Spec.Topology.Args...))
	o := xferObs{}
	var err error
	if o.payload, err = strconv.ParseFloat(f["payload-bytes"], 64); err != nil {
		return o, fmt.Errorf("--payload-bytes %q: %w", f["payload-bytes"], err)
	}
	if o.rate, err = strconv.ParseFloat(f["rate"], 64); err != nil || o.rate <= 0 {
		return o, fmt.Errorf("--rate %q: want the open-loop rate, tuples/s", f["rate"])
	}
	o.cell = fmt.Sprintf("%g bytes at %g/s", o.payload, o.rate)
	at, comp, ackers := placesOf(r)
	o.workers, o.nodes = countDistinct(at)
	span := float64(r.MeasureTo-r.MeasureFrom) / 1000
	if span <= 0 || r.Measurement.LatencyCount == 0 {
		return o, fmt.Errorf("no window or no acked tuple in it: not a measured run")
	}
	tasks := taskSums(r, at)
	spouts := spoutComponents(comp, tasks)
	byComp := map[string][]int{}
	for task, c := range comp {
		if !isAcker(c) {
			byComp[c] = append(byComp[c], task)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byComp)) {
		c := compObs{name: name}
		tuples := 0.0
		for _, t := range byComp[name] {
			n := tasks[t].in
			if spouts[name] {
				n = tasks[t].emitted
			}
			msgs, bytes := remoteOut(t, n, at, ackers, tasks, ackBytes)
			tuples += n
			c.cpu, c.msgs, c.bytes = c.cpu+tasks[t].cpu, c.msgs+msgs, c.bytes+bytes
			o.msgsPerS, o.bytesPerS = o.msgsPerS+msgs/span, o.bytesPerS+bytes/span
		}
		if tuples == 0 {
			return o, fmt.Errorf("component %s executed no tuple in the window", name)
		}
		c.cpu, c.msgs, c.bytes = c.cpu/tuples, c.msgs/tuples, c.bytes/tuples
		o.comps = append(o.comps, c)
	}
	perWorker, _, _ := overheadOf(r)
	for _, w := range perWorker {
		o.nonThread += w
	}
	o.latency = r.Measurement.LatencyMean / 1000
	o.hopsLocal, o.hopsLink, o.hopBytes = pathHops(r, at, comp, spouts, ackers, tasks, ackBytes)
	return o, nil
}

// remoteOut is what task t sent to another worker over the window, messages and their bytes: its
// tuples, and the acks of its n tuples to an acker in another worker.
func remoteOut(t int, n float64, at map[int]place, ackers []place, tasks map[int]*taskFigures, ackBytes int) (msgs, bytes float64) {
	acks := n * ackerShare(at[t], ackers, func(a, b place) bool { return a.worker != b.worker })
	return tasks[t].remote + acks, tasks[t].remoteBytes + acks*float64(ackBytes)
}

// remoteRates are r's messages to another worker per second over its window (tuples and acks, as
// observe counts them), their bytes per second, and r's workers.
func remoteRates(r *harness.RunResult, ackBytes int) (msgsPerS, bytesPerS float64, workers int) {
	span := float64(r.MeasureTo-r.MeasureFrom) / 1000
	if span <= 0 {
		return 0, 0, 0
	}
	at, _, _ := placesOf(r)
	workers, _ = countDistinct(at)
	for _, s := range remoteByComponent(r, ackBytes) {
		msgsPerS, bytesPerS = msgsPerS+s.msgs/span, bytesPerS+s.bytes/span
	}
	return msgsPerS, bytesPerS, workers
}

// remoteSums are a component's messages to another worker over a run's window (tuples and acks, as
// observe counts them), their bytes, and the tuples its costs are per: executed, or emitted by a spout.
type remoteSums struct{ msgs, bytes, tuples float64 }

// remoteByComponent is remoteSums for each of r's components, the ackers aside.
func remoteByComponent(r *harness.RunResult, ackBytes int) map[string]*remoteSums {
	at, comp, ackers := placesOf(r)
	tasks := taskSums(r, at)
	spouts := spoutComponents(comp, tasks)
	out := map[string]*remoteSums{}
	for t, c := range comp {
		if isAcker(c) || tasks[t] == nil {
			continue
		}
		n := tasks[t].in
		if spouts[c] {
			n = tasks[t].emitted
		}
		msgs, bytes := remoteOut(t, n, at, ackers, tasks, ackBytes)
		if out[c] == nil {
			out[c] = &remoteSums{}
		}
		out[c].msgs, out[c].bytes, out[c].tuples = out[c].msgs+msgs, out[c].bytes+bytes, out[c].tuples+n
	}
	return out
}

// placesOf is each task's place and component, and the ackers' places.
func placesOf(r *harness.RunResult) (map[int]place, map[int]string, []place) {
	at, comp := map[int]place{}, map[int]string{}
	var ackers []place
	for _, e := range r.Executors {
		p := place{worker: fmt.Sprintf("%s:%d", e.Host, e.Port), host: e.Host}
		for t := e.Start; t <= e.End; t++ {
			at[t], comp[t] = p, e.Component
			if isAcker(e.Component) {
				ackers = append(ackers, p)
			}
		}
	}
	return at, comp, ackers
}

func countDistinct(at map[int]place) (workers, nodes int) {
	w, n := map[string]bool{}, map[string]bool{}
	for _, p := range at {
		w[p.worker], n[p.host] = true, true
	}
	return len(w), len(n)
}

// taskSums adds up each task's figures over the window's reports.
func taskSums(r *harness.RunResult, at map[int]place) map[int]*taskFigures {
	out := map[int]*taskFigures{}
	get := func(t int) *taskFigures {
		if out[t] == nil {
			out[t] = &taskFigures{}
		}
		return out[t]
	}
	for _, rep := range windowReports(r) {
		for _, c := range rep.CPU {
			get(c.Task).cpu += float64(c.CPUNs) / 1e9
			get(c.Task).spin += float64(c.Idle()) / 1e9
		}
		for _, e := range rep.Emits {
			get(e.Task).emitted += float64(e.Count)
		}
		for _, s := range rep.TupleSizes {
			get(s.Task).outBytes += float64(s.OutBytes)
			get(s.Task).outSamples += float64(s.OutSamples)
		}
		for _, tr := range rep.Traffic {
			get(tr.Dst).in += float64(tr.Count)
			if at[tr.Src].worker != at[tr.Dst].worker {
				get(tr.Src).remote += float64(tr.Count)
			}
		}
	}
	payload := parseFlags(r.Spec.Topology.Args)["payload-bytes"]
	for _, f := range out {
		f.remoteBytes = f.remote * f.size(payload)
	}
	return out
}

// size is a task's mean emitted tuple size: sampled, else the payload (a worker that samples none).
func (f *taskFigures) size(payload string) float64 {
	if f.outSamples > 0 {
		return f.outBytes / f.outSamples
	}
	b, _ := strconv.ParseFloat(payload, 64)
	return b
}

// spoutComponents are the components whose tasks received no tuple (the chain's spout).
func spoutComponents(comp map[int]string, tasks map[int]*taskFigures) map[string]bool {
	in := map[string]float64{}
	for t, c := range comp {
		if f := tasks[t]; f != nil {
			in[c] += f.in
		} else {
			in[c] += 0
		}
	}
	out := map[string]bool{}
	for c, n := range in {
		out[c] = n == 0 && !isAcker(c)
	}
	return out
}

// ackerShare is the share of ackers that cross(from, acker) says a message from from to them
// crosses: Storm picks a tree's acker by the hash of its id, evenly.
func ackerShare(from place, ackers []place, cross func(a, b place) bool) float64 {
	if len(ackers) == 0 {
		return 0
	}
	n := 0
	for _, a := range ackers {
		if cross(from, a) {
			n++
		}
	}
	return float64(n) / float64(len(ackers))
}

// pathHops are the transfers between workers of a node (local) and between nodes (link) on a tuple's
// path, expected, and their mean size: each stream between two components counts the share of its
// tuples that crossed; then the sink's ack to its acker and the acker's completion to the spout, each
// the share of ackers across (Storm's acker per tree is even over them).
func pathHops(r *harness.RunResult, at map[int]place, comp map[int]string, spouts map[string]bool, ackers []place, tasks map[int]*taskFigures, ackBytes int) (local, link, size float64) {
	type flow struct{ all, local, link, bytes float64 }
	links := map[[2]string]*flow{}
	sends := map[string]bool{}
	payload := parseFlags(r.Spec.Topology.Args)["payload-bytes"]
	for _, rep := range windowReports(r) {
		for _, tr := range rep.Traffic {
			a, b := comp[tr.Src], comp[tr.Dst]
			if isAcker(a) || isAcker(b) || a == "" || b == "" {
				continue
			}
			sends[a] = true
			k := [2]string{a, b}
			if links[k] == nil {
				links[k] = &flow{}
			}
			f, n := links[k], float64(tr.Count)
			f.all += n
			switch s, d := at[tr.Src], at[tr.Dst]; {
			case s.host != d.host:
				f.link += n
			case s.worker != d.worker:
				f.local += n
			}
			if tf := tasks[tr.Src]; tf != nil && at[tr.Src].worker != at[tr.Dst].worker {
				f.bytes += n * tf.size(payload)
			}
		}
	}
	var bytes float64
	for _, f := range links {
		if f.all > 0 {
			local, link = local+f.local/f.all, link+f.link/f.all
			bytes += f.bytes / f.all
		}
	}
	sameHost := func(a, b place) bool { return a.worker != b.worker && a.host == b.host }
	otherHost := func(a, b place) bool { return a.host != b.host }
	ends := func(pick func(string) bool) (l, k float64) {
		n := 0.0
		for t, c := range comp {
			if pick(c) {
				l, k, n = l+ackerShare(at[t], ackers, sameHost), k+ackerShare(at[t], ackers, otherHost), n+1
			}
		}
		if n == 0 {
			return 0, 0
		}
		return l / n, k / n
	}
	l1, k1 := ends(func(c string) bool { return !isAcker(c) && !spouts[c] && !sends[c] }) // the sinks' acks
	l2, k2 := ends(func(c string) bool { return spouts[c] })                              // the completions
	local, link = local+l1+l2, link+k1+k2
	bytes += (l1 + k1 + l2 + k2) * float64(ackBytes)
	if local+link > 0 {
		size = bytes / (local + link)
	}
	return local, link, size
}
