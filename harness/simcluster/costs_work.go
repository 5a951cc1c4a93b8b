package simcluster

import (
	"fmt"
	"maps"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
)

// SpinRead is what a simulated run's threads spent spinning while idle, per tuple as MeasureCosts
// reads a component's CPU per tuple: per component (µs) and the ackers' per ack message (s; -1 where
// the run has no acker reading).
type SpinRead struct {
	Class     string
	CPUMicros map[string]float64
	AckCPUS   float64
}

// SpinOf reads simulated run r's spinning per tuple (its reports' spin_ns), component by component, in
// the units of its CPU per tuple.
func SpinOf(r *harness.RunResult) (SpinRead, error) {
	rc, err := measureRun(r, false)
	if err != nil {
		return SpinRead{}, err
	}
	comp := map[int]string{}
	for _, e := range r.Executors {
		for t := e.Start; t <= e.End; t++ {
			comp[t] = e.Component
		}
	}
	cpu, spin := map[string]float64{}, map[string]float64{}
	var ackCPU, ackSpin float64
	for _, rep := range windowReports(r) {
		for _, c := range rep.CPU {
			if name := comp[c.Task]; isAcker(name) {
				ackCPU, ackSpin = ackCPU+float64(c.CPUNs), ackSpin+float64(c.Idle())
			} else {
				cpu[name], spin[name] = cpu[name]+float64(c.CPUNs), spin[name]+float64(c.Idle())
			}
		}
	}
	out := SpinRead{Class: rc.main.Class, CPUMicros: map[string]float64{}, AckCPUS: -1}
	for name, c := range rc.comps {
		if cpu[name] > 0 {
			out.CPUMicros[name] = c.CPUMicros * spin[name] / cpu[name]
		}
	}
	if rc.messages > 0 && ackCPU > 0 {
		out.AckCPUS = rc.ackerCPU / rc.messages * ackSpin / ackCPU
	}
	return out, nil
}

// minAckCPUS is the floor of an acker's CPU per message that SetWork sets: 0 would mean the transfer
// costs' pooled figure (TopologyCosts.AckCPUS), the spinning and all.
const minAckCPUS = 1e-6

// SetWork sets each component's CPU per tuple in m to its figure in base (the ratio, spinning and all)
// less the mean spinning per tuple its twins read (spins), floored at minCPUMicros; the ackers' CPU per
// message likewise, floored at minAckCPUS; stated intervals move with their figures, standard
// deviations in proportion. It returns the largest change relative to base.
func SetWork(m, base *sim.CostModel, spins []SpinRead) (float64, error) {
	per := map[string]map[string][]float64{}
	for _, s := range spins {
		if per[s.Class] == nil {
			per[s.Class] = map[string][]float64{}
		}
		for name, x := range s.CPUMicros {
			per[s.Class][name] = append(per[s.Class][name], x)
		}
		if s.AckCPUS >= 0 {
			per[s.Class][ackKey] = append(per[s.Class][ackKey], s.AckCPUS*1e6)
		}
	}
	moved := 0.0
	for class, comps := range per {
		b, ok := base.Topologies[class]
		if !ok {
			return 0, fmt.Errorf("work: %s has no base costs", class)
		}
		t := m.Topologies[class]
		t.Components = maps.Clone(t.Components)
		for name, xs := range comps {
			spin, _ := stats.Mean(xs)
			if name == ackKey {
				if b.AckCPUS > 0 {
					to := max(min(minAckCPUS, b.AckCPUS), b.AckCPUS-spin/1e6)
					moved = max(moved, relMove(to-t.AckCPUS, b.AckCPUS))
					t.AckCPUPI = shiftInterval(b.AckCPUPI, to-b.AckCPUS)
					t.AckCPUS = round(to)
				}
				continue
			}
			bc, ok := b.Components[name]
			if !ok {
				continue
			}
			c := t.Components[name]
			to := max(minCPUMicros, bc.CPUMicros-spin)
			moved = max(moved, relMove(to-c.CPUMicros, bc.CPUMicros))
			c.CPUMicrosPI = shiftInterval(bc.CPUMicrosPI, to-bc.CPUMicros)
			if bc.CPUMicros > 0 { // the runs' spread, as a share of the figure
				c.CPUMicrosSD = round(bc.CPUMicrosSD * to / bc.CPUMicros)
			}
			c.CPUMicros = round(to)
			t.Components[name] = c
		}
		m.Topologies[class] = t
	}
	return moved, nil
}

// ackKey is the ackers' key among the components in SetWork's tallies.
const ackKey = "\x00ackers"

// shiftInterval is i moved by d, starting at 0 at the least (a cost is not negative); nil stays nil.
func shiftInterval(i *sim.Interval, d float64) *sim.Interval {
	if i == nil {
		return nil
	}
	return &sim.Interval{Lo: roundDown(max(0, i.Lo+d)), Hi: roundUp(max(0, i.Hi+d))}
}

func relMove(d, of float64) float64 {
	if of <= 0 {
		return 0
	}
	return max(d, -d) / of
}
