package harness

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/nemesis"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/docker"
)

// The delay fault's mechanism. The emulated delay lives in Storm's messaging layer (the kernels here
// lack sch_netem; see docker.DelayTransport), and a worker reads the cluster's fixed delay once at start.
// A run with a delay fault submits its topology with the delaying transport and delayFileConf =
// control.DelayFile; the transport then re-reads that file (lines "HOST MS": the delay of messages to
// HOST) on its own host at most every 100 ms. The fault writes the file on the two supervisors through
// the control layer (control.Control.Delay) and its undo removes it. Chosen over a signal or an RPC
// into the worker: it needs no port, and a worker that (re)starts during the fault reads the same file.
// The transport ships in the topology jar, so this works on a target too (the file is written over SSH).
const (
	delayFile     = control.DelayFile
	delayFileConf = "stormlab.net.delay.file"
	// maxDelay is the largest delay a delay fault sets (as docker.WithNetworkDelay's).
	maxDelay = control.MaxDelay
)

// delayTopologyArgs are the topology flags a run with a delay fault submits with: the delaying
// transport (also when the cluster has no fixed delay) reading delayFile. nil without delay faults, so
// fault-free runs keep Storm's own transport. They are topology conf entries (--conf of the stormlab
// topologies): a worker's conf is the supervisor's with the topology's on top.
func delayTopologyArgs(faults []fault.Fault) []string {
	if len(fault.Delays(faults)) == 0 {
		return nil
	}
	return []string{"--conf", "storm.messaging.transport=" + docker.DelayTransport, "--conf", delayFileConf + "=" + delayFile}
}

// FaultRecord is one fault as it happened: when it started and ended (epoch ms) and how the topology
// recovered from it.
type FaultRecord struct {
	fault.Fault
	StartMs  int64    `json:"start_ms"`
	EndMs    int64    `json:"end_ms"`
	Error    string   `json:"error,omitempty"`
	Recovery Recovery `json:"recovery"`
	// Applied is the load a straggler's burner carried, against the load asked (nil for other kinds).
	Applied *diagnose.Applied `json:"applied_load,omitempty"`
	// placement at the fault's start, for ExecutorsMoved.
	before []ExecutorPlace
}

// faulter is a cluster with a nemesis (nil when it has no control layer: a target without control).
type faulter interface {
	nemesis() *nemesis.Nemesis
}

// injectFaults runs faults on r's cluster, each at window open + At, undone Duration later, and
// returns their records once all are undone (undo also runs when ctx ends). Before the scheduler
// service is stopped, its reports and state so far are kept in r (the service keeps them in memory).
func injectFaults(ctx context.Context, r *running, openMs int64) []FaultRecord {
	nem := nemesisOf(r.cl)
	recs := make([]FaultRecord, len(r.spec.Faults))
	done := make(chan struct{}, len(r.spec.Faults))
	for i, f := range r.spec.Faults {
		recs[i].Fault = f
		go func() {
			defer func() { done <- struct{}{} }()
			rec := &recs[i]
			if err := pause(ctx, time.Until(time.UnixMilli(openMs).Add(f.At))); err != nil {
				rec.Error = "not started: " + err.Error()
				return
			}
			if f.Kind == fault.RestartService {
				r.keepServiceData(ctx)
			}
			if top, err := r.cl.UI().Topology(ctx, r.id); err == nil {
				rec.before = placesOf(top)
			}
			rec.StartMs = time.Now().UnixMilli()
			undo, err := nem.Inject(ctx, f)
			if err != nil {
				rec.Error = err.Error()
				rec.EndMs = time.Now().UnixMilli()
				return
			}
			werr := pause(ctx, f.Duration)
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			if err := errors.Join(werr, undo(uctx)); err != nil {
				rec.Error = err.Error()
			}
			if f.Kind == fault.RestartService || f.Kind == fault.RestartZooKeeper {
				if rf, ok := r.cl.(interface{ refresh(context.Context) error }); ok {
					if err := rf.refresh(uctx); err != nil {
						rec.Error = errors.Join(errors.New(rec.Error), err).Error()
					}
				}
			}
			rec.EndMs = time.Now().UnixMilli()
		}()
	}
	for range r.spec.Faults {
		<-done
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].At < recs[j].At })
	return recs
}

// nemesisOf is cl's nemesis, or nil when it has none (then every fault is refused, naming the fix).
func nemesisOf(cl runCluster) *nemesis.Nemesis {
	if f, ok := cl.(faulter); ok {
		return f.nemesis()
	}
	return nil
}
