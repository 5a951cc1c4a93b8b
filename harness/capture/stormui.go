package capture

import (
	"errors"
	"fmt"
	"slices"

	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/topologies"
)

// errNoUIStats: Storm's counters did not move over the window.
var errNoUIStats = errors.New("Storm's statistics show no tuple emitted or executed over the window")

// delta is how much an all-time counter grew from a to b. A counter that went down was reset by a
// restarted executor: then only b, what it counted since, is known (an underestimate).
func delta(a, b float64) float64 {
	if b >= a {
		return b - a
	}
	return b
}

// execSpan is the time an executor's counters cover between the two readings: the growth of its
// uptime, which Storm stamps when the worker sends the statistics (every
// executor.metrics.frequency.secs: 60 s by default, 1 s on stormlab's containers), so the reporting
// lag cancels (as in the harness's cross-check against Storm's statistics). A restarted executor
// counts from its restart. 0: no statistics arrived in between.
func execSpan(p0 *stormui.ComponentPage, e stormui.ExecutorStat) float64 {
	if p0 != nil {
		for _, b := range p0.Executors {
			if b.TaskStart == e.TaskStart {
				if e.UptimeSeconds >= b.UptimeSeconds {
					return float64(e.UptimeSeconds - b.UptimeSeconds)
				}
				return float64(e.UptimeSeconds)
			}
		}
	}
	return float64(e.UptimeSeconds)
}

// componentSpan is the mean span of k's executors that got statistics in the window, 0 if none did.
func componentSpan(k component, p0 *stormui.ComponentPage) float64 {
	sum, n := 0.0, 0
	for _, e := range k.execs {
		if s := execSpan(p0, e); s > 0 {
			sum += s
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// buildFromUI makes the captured topology from two UI snapshots (Storm's counters; see the package
// doc). Each component's counts are divided by the time they cover (componentSpan, the executors'
// own clock): stream rates from the source's per-stream emitted counts, a bolt's tuples executed
// from its per-input counts, a bolt executor's CPU estimated by its busy time (tuples executed times
// mean execute latency, as Storm's capacity metric) and split evenly over its tasks. Spout CPU is
// unknown (0). Edges spread each stream evenly over the task pairs its grouping connects. The
// structure and placement are s1's. A component whose statistics did not refresh in the window is
// an error naming it.
func buildFromUI(s0, s1 *Snapshot, comps []component) (*topologies.Captured, error) {
	c := &topologies.Captured{Format: topologies.CapturedFormat, Streams: streams(comps)}
	idx := map[string]int{}
	spans := make([]float64, len(comps))
	for i, k := range comps {
		idx[k.name] = i
		if spans[i] = componentSpan(k, s0.Pages[k.name]); spans[i] == 0 {
			return nil, fmt.Errorf("Storm's statistics of %s did not refresh during the window (workers send them every executor.metrics.frequency.secs, 60 s by default)", k.name)
		}
	}
	moved := 0.0
	emitted := make([]float64, len(comps))
	executed := make([]float64, len(comps))
	for i, k := range comps {
		p0, p1 := s0.Pages[k.name], s1.Pages[k.name]
		for _, o := range p1.Outputs {
			d := delta(outputOf(p0, o.Stream), o.Emitted) / spans[i]
			emitted[i] += d
			moved += d
		}
		for _, in := range p1.Inputs {
			d := delta(inputOf(p0, in.Component, in.Stream), in.Executed) / spans[i]
			executed[i] += d
			moved += d
		}
		c.Vertices = append(c.Vertices, uiVertices(k, p0)...)
	}
	if moved == 0 {
		return nil, errNoUIStats
	}
	for i := range c.Streams {
		s := &c.Streams[i]
		a := idx[s.From]
		s.TuplesPerS = delta(outputOf(s0.Pages[s.From], s.Stream), outputOf(s1.Pages[s.From], s.Stream)) / spans[a]
	}
	c.Edges = spreadEdges(comps, idx, c.Streams)
	for i, k := range comps {
		c.Components = append(c.Components, componentFigures(k, c.Vertices, emitted[i], executed[i], 0))
	}
	c.Provenance.Source = topologies.SourceStormUI
	c.Provenance.Estimated = true
	return c, nil
}

// uiVertices are k's tasks with the CPU estimate of their executor (bolts; spouts 0), from the
// executors of k (s1) against their counters in p0, over each executor's own span.
func uiVertices(k component, p0 *stormui.ComponentPage) []topologies.Vertex {
	var out []topologies.Vertex
	for _, e := range k.execs {
		w := 0.0
		if span := execSpan(p0, e); k.kind == topologies.KindBolt && span > 0 {
			d := delta(executedOf(p0, e.TaskStart), e.Executed)
			busy := d * e.ExecuteLatencyMs / 1000 / span // cores
			w = 100 * busy / float64(e.TaskEnd-e.TaskStart+1)
		}
		for t := e.TaskStart; t <= e.TaskEnd; t++ {
			out = append(out, topologies.Vertex{ID: t, Weight: w, Component: k.name})
		}
	}
	return out
}

func outputOf(p *stormui.ComponentPage, stream string) float64 {
	if p == nil {
		return 0
	}
	for _, o := range p.Outputs {
		if o.Stream == stream {
			return o.Emitted
		}
	}
	return 0
}

func inputOf(p *stormui.ComponentPage, comp, stream string) float64 {
	if p == nil {
		return 0
	}
	for _, in := range p.Inputs {
		if in.Component == comp && in.Stream == stream {
			return in.Executed
		}
	}
	return 0
}

func executedOf(p *stormui.ComponentPage, taskStart int) float64 {
	if p == nil {
		return 0
	}
	for _, e := range p.Executors {
		if e.TaskStart == taskStart {
			return e.Executed
		}
	}
	return 0
}

// spreadEdges spreads each stream's rate over the task pairs its grouping connects, as
// topologies.Topology.Graph expands a stream, but over tasks: global sends each source task's share
// to the target's lowest task, all copies every tuple to every target task, every other grouping
// (shuffle, fields, local-or-shuffle, none, direct, custom) is taken as uniform. Parallel edges
// (several streams between two tasks) are merged.
func spreadEdges(comps []component, idx map[string]int, ss []topologies.CapturedStream) []topologies.CapturedEdge {
	w := map[[2]int]float64{}
	for _, s := range ss {
		from, to := comps[idx[s.From]].tasks, comps[idx[s.To]].tasks
		nf, nt := float64(len(from)), float64(len(to))
		switch s.Grouping {
		case topologies.GroupGlobal:
			for _, a := range from {
				w[[2]int{a, slices.Min(to)}] += s.TuplesPerS / nf
			}
		case topologies.GroupAll:
			for _, a := range from {
				for _, b := range to {
					w[[2]int{a, b}] += s.TuplesPerS / nf
				}
			}
		default:
			for _, a := range from {
				for _, b := range to {
					w[[2]int{a, b}] += s.TuplesPerS / (nf * nt)
				}
			}
		}
	}
	var out []topologies.CapturedEdge
	for _, k := range sortedPairs(w) {
		out = append(out, topologies.CapturedEdge{From: k[0], To: k[1], Weight: w[k]})
	}
	return out
}
