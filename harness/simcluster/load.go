package simcluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/control"
)

// A simulated cluster's disturbances are CPU taken from its nodes: background load on every node
// around whole runs (fault.Load, as burner topologies give it on a real cluster) and a straggler
// fault on one node inside a run's window. The model gives either what it asks (sim.Sim.SetLoad: the
// load's threads share the node's cores with the workers'), so "load as applied" is the load as asked
// unless the node's cores cannot give it. Faults that stop or pause processes, or delay links, are
// not modelled yet.

// nemesis is what disturbs a simulated cluster.
type nemesis struct{ c *Cluster }

// Inject starts background load (fault.CPULoad: PERCENT of every node's cores) for the runs that
// start until its undo; every other fault is refused, naming why.
func (n nemesis) Inject(_ context.Context, f fault.Fault) (control.Undo, error) {
	if f.Kind != fault.CPULoad {
		return nil, errNoFaults
	}
	p, err := strconv.ParseFloat(f.Arg, 64)
	if err != nil || p < 0 || p > 100 {
		return nil, fmt.Errorf("background load %q: give a percent in [0, 100]", f.Arg)
	}
	n.c.loadPercent = p
	return func(context.Context) error { n.c.loadPercent = 0; return nil }, nil
}

// checkFaults accepts stragglers on the cluster's nodes, and refuses every other fault.
func (c *Cluster) checkFaults(faults []fault.Fault) error {
	var errs []error
	for _, f := range faults {
		if f.Kind != fault.Straggler {
			errs = append(errs, fmt.Errorf("fault %s: %w", f, errNoFaults))
			continue
		}
		if _, err := fault.ParseStragglerArg(f.Arg, c.hosts()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c *Cluster) hosts() []string {
	var out []string
	for _, n := range c.named.Nodes {
		out = append(out, n.Name)
	}
	return out
}

// startLoad puts the cluster's background load on every node as the run starts.
func (r *simRun) startLoad() error {
	for i, n := range r.c.named.Nodes {
		if err := r.x.SetLoad(i, r.c.loadPercent/100*n.Cores); err != nil {
			return err
		}
	}
	return nil
}

// faultsAt starts and ends the run's straggler faults due by now (the window opened at openMs),
// recording each as it happened; the resolution is one report interval.
func (r *simRun) faultsAt(res *harness.RunResult, openMs int64) error {
	now := r.now().UnixMilli()
	for i := range r.spec.Faults {
		f := r.spec.Faults[i]
		startMs, endMs := openMs+f.At.Milliseconds(), openMs+(f.At+f.Duration).Milliseconds()
		rec := r.faultRecord(res, f)
		arg, _ := fault.ParseStragglerArg(f.Arg, nil) // checked before the run
		node := r.nodeIndex(arg.Host)
		switch {
		case rec.StartMs == 0 && now >= startMs:
			rec.StartMs, r.faultBefore[i] = now, r.executorPlaces()
			r.setActive(i, true)
			if err := r.x.SetLoad(node, arg.Percent/100*r.c.named.Nodes[node].Cores+r.c.loadPercent/100*r.c.named.Nodes[node].Cores); err != nil {
				return err
			}
		case rec.StartMs != 0 && rec.EndMs == 0 && now >= endMs:
			rec.EndMs = now
			r.setActive(i, false)
			if err := r.x.SetLoad(node, r.c.loadPercent/100*r.c.named.Nodes[node].Cores); err != nil {
				return err
			}
		}
	}
	return nil
}

// faultRecord is f's record in res, added on first use.
func (r *simRun) faultRecord(res *harness.RunResult, f fault.Fault) *harness.FaultRecord {
	for i := range res.Faults {
		if res.Faults[i].Fault == f {
			return &res.Faults[i]
		}
	}
	res.Faults = append(res.Faults, harness.FaultRecord{Fault: f})
	return &res.Faults[len(res.Faults)-1]
}

// recoveries measures each fault's recovery as the harness does on a real cluster.
func (r *simRun) recoveries(res *harness.RunResult) {
	step := measure.RecoveryStepMs(r.spec.Step.Milliseconds(), res.Reports)
	for i := range res.Faults {
		f := &res.Faults[i]
		if f.StartMs == 0 {
			continue
		}
		if f.EndMs == 0 {
			f.EndMs = res.MeasureTo
		}
		f.Recovery = measure.FaultRecovery(res.Reports, res.MeasureFrom, res.MeasureTo, f.StartMs, f.EndMs, step, r.faultBefore[i], res.Executors)
	}
}
