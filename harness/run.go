package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Cluster is what a run needs from a provisioned Storm cluster; infra/docker
// provides it (see ClusterFor in cluster.go). Methods take the context first.
type Cluster interface {
	UIURL() string
	ServiceURL() string
	// Capacity maps each supervisor host to its CPU capacity (100 = one core).
	Capacity() map[string]float64
	Submit(ctx context.Context, jar, mainClass string, args ...string) error
	Kill(ctx context.Context, topology string) error
	// NimbusLog returns Nimbus's log so far (the bridge writes its round
	// times and fallbacks there).
	NimbusLog(ctx context.Context) (string, error)
}

// Native schedulers run inside Nimbus without the bridge, chosen by
// storm.scheduler. Every other name is a Go scheduler behind the bridge.
var nativeSchedulers = map[string]string{
	"storm-even":    "org.apache.storm.scheduler.EvenScheduler",
	"storm-default": "org.apache.storm.scheduler.DefaultScheduler",
	"storm-ras":     "org.apache.storm.scheduler.resource.ResourceAwareScheduler",
}

// BridgeClass is the Nimbus-side IScheduler that calls the Go service.
const BridgeClass = "org.stormlab.bridge.BridgeScheduler"

// StormSchedulerClass returns the storm.scheduler class for a run's scheduler
// name and whether the Go service decides (true: through the bridge).
func StormSchedulerClass(name string) (class string, bridged bool) {
	if c, ok := nativeSchedulers[name]; ok {
		return c, false
	}
	return BridgeClass, true
}

// NativeNames lists the native scheduler names.
func NativeNames() []string { return []string{"storm-default", "storm-even", "storm-ras"} }

// TopologyRun says which topology to submit and how.
type TopologyRun struct {
	Name      string   // topology name on the cluster
	Jar       string   // path of the topology jar on this machine
	MainClass string   // submits via StormSubmitter
	Args      []string // passed to MainClass
}

// RunSpec is one measured run of one scheduler.
type RunSpec struct {
	Scheduler string
	Topology  TopologyRun
	WarmUp    time.Duration // after every executor runs, before measuring
	Measure   time.Duration
	Step      time.Duration // time-series window; 0 = none
	// StartTimeout bounds the wait for every executor to run.
	StartTimeout time.Duration
}

// RunResult is everything one run produced. Invalid is non-empty when the
// run must not be reported (the bridge fell back to EvenScheduler, ...).
type RunResult struct {
	Spec         RunSpec                 `json:"spec"`
	TopologyID   string                  `json:"topology_id"`
	Executors    []ExecutorPlace         `json:"executors"`
	Measurement  Measurement             `json:"measurement"`
	Series       []Measurement           `json:"series,omitempty"`
	RoundsMs     []float64               `json:"bridge_rounds_ms,omitempty"`
	Fallbacks    []string                `json:"fallbacks,omitempty"`
	Unassigned   int                     `json:"unassigned"`
	Invalid      string                  `json:"invalid,omitempty"`
	Reports      []protocol.WorkerReport `json:"-"` // raw samples, written separately
	StartedAt    time.Time               `json:"started_at"`
	Cluster      string                  `json:"cluster,omitempty"` // profile
	Images       map[string]string       `json:"images,omitempty"`  // role -> image tag (content hash)
	StormVersion string                  `json:"storm_version,omitempty"`
	StartS       float64                 `json:"cluster_start_s,omitempty"` // ZooKeeper up -> supervisors registered
	MeasureFrom  int64                   `json:"measure_from_ms"`
	MeasureTo    int64                   `json:"measure_to_ms"`
	// DatasetS is set by bounded runs (Session.RunBounded): seconds from
	// the start of the first report interval with acks to the last report
	// with acks, i.e. the time to process the whole dataset (resolution:
	// one report interval).
	DatasetS float64 `json:"dataset_s,omitempty"`
}

// Run submits the topology, waits until every executor runs, warms up,
// measures, collects and kills the topology. The cluster itself is the
// caller's (see RunOnNewCluster, which also tears it down).
func Run(ctx context.Context, cl Cluster, spec RunSpec) (*RunResult, error) {
	if spec.StartTimeout == 0 {
		spec.StartTimeout = 3 * time.Minute
	}
	res := &RunResult{Spec: spec, StartedAt: time.Now()}
	ui := &UI{BaseURL: cl.UIURL()}
	svc := &ServiceClient{BaseURL: cl.ServiceURL()}
	if err := cl.Submit(ctx, spec.Topology.Jar, spec.Topology.MainClass, spec.Topology.Args...); err != nil {
		return res, fmt.Errorf("submit topology %s: %w", spec.Topology.Name, err)
	}
	defer func() {
		// Kill even when the run failed or ctx was cancelled.
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = cl.Kill(kctx, spec.Topology.Name)
	}()
	id, execs, err := waitRunning(ctx, ui, spec.Topology.Name, spec.StartTimeout)
	res.TopologyID, res.Executors = id, execs
	if err != nil {
		for _, e := range execs {
			if e.Host == "" {
				res.Unassigned++
			}
		}
		return res, err
	}
	if err := svc.WaitWorkers(ctx, id, workerSlots(execs), spec.StartTimeout); err != nil {
		return res, err
	}
	if err := pause(ctx, spec.WarmUp); err != nil {
		return res, err
	}
	res.MeasureFrom = time.Now().UnixMilli()
	if err := pause(ctx, spec.Measure); err != nil {
		return res, err
	}
	res.MeasureTo = time.Now().UnixMilli()
	// Reports of the last interval arrive up to one interval late.
	reports, err := svc.ReportsUntil(ctx, res.MeasureTo, 20*time.Second)
	if err != nil {
		return res, fmt.Errorf("collect worker reports: %w", err)
	}
	for _, r := range reports {
		if r.Topology == id {
			res.Reports = append(res.Reports, r)
		}
	}
	reports = res.Reports
	// Placement as Nimbus sees it now: a dynamic scheduler may have moved
	// executors during the run; the cut rate uses the final placement.
	if execs, _, err = ui.Executors(ctx, id); err == nil {
		res.Executors = execs
	}
	place := PlacementOf(res.Executors)
	capacity := cl.Capacity()
	res.Measurement = Measure(reports, place, capacity, res.MeasureFrom, res.MeasureTo)
	if spec.Step > 0 {
		res.Series = Series(reports, place, capacity, res.MeasureFrom, res.MeasureTo, spec.Step.Milliseconds())
	}
	if log, err := cl.NimbusLog(ctx); err == nil {
		res.RoundsMs, res.Fallbacks = ParseBridgeLog(log)
	}
	if _, bridged := StormSchedulerClass(spec.Scheduler); bridged && len(res.Fallbacks) > 0 {
		res.Invalid = "bridge fell back to EvenScheduler: " + res.Fallbacks[0]
	}
	return res, nil
}

// waitRunning polls Nimbus until every executor of the topology has a
// heartbeat on a host (a wait strategy: it returns as soon as the condition
// holds, or on timeout with the last state).
func waitRunning(ctx context.Context, ui *UI, name string, timeout time.Duration) (string, []ExecutorPlace, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var (
		id      string
		execs   []ExecutorPlace
		lastErr error
		total   int
	)
	for {
		var err error
		if id == "" {
			id, err = ui.TopologyID(ctx, name)
		}
		if err == nil {
			execs, total, err = ui.Executors(ctx, id)
			if err == nil && total > 0 && len(execs) == total && allPlaced(execs) {
				return id, execs, nil
			}
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			placed := 0
			for _, e := range execs {
				if e.Host != "" {
					placed++
				}
			}
			return id, execs, fmt.Errorf("topology %s: %d of %d executors running after %s (last error: %v)", name, placed, total, timeout, lastErr)
		case <-tick.C:
		}
	}
}

// workerSlots lists the distinct "host:port" worker slots of a placement.
func workerSlots(execs []ExecutorPlace) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range execs {
		k := fmt.Sprintf("%s:%d", e.Host, e.Port)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

func allPlaced(execs []ExecutorPlace) bool {
	for _, e := range execs {
		if e.Host == "" {
			return false
		}
	}
	return true
}

// pause waits d or until ctx ends. It is the measurement window itself, not
// a synchronisation sleep.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ParseBridgeLog extracts the bridge's round times ("STORMLAB-ROUND <ms> ms")
// and fallbacks ("STORMLAB-FALLBACK <reason>") from Nimbus's log.
func ParseBridgeLog(log string) (roundsMs []float64, fallbacks []string) {
	for _, line := range strings.Split(log, "\n") {
		if i := strings.Index(line, "STORMLAB-ROUND "); i >= 0 {
			var ms float64
			if _, err := fmt.Sscanf(line[i+len("STORMLAB-ROUND "):], "%g", &ms); err == nil {
				roundsMs = append(roundsMs, ms)
			}
		}
		if i := strings.Index(line, "STORMLAB-FALLBACK"); i >= 0 {
			fallbacks = append(fallbacks, strings.TrimSpace(line[i+len("STORMLAB-FALLBACK"):]))
		}
	}
	return roundsMs, fallbacks
}

// Check judges a run for the smoke test: it returns every reason the run
// cannot count (zero throughput, unassigned executors, bridge fallback).
func Check(r *RunResult) error {
	var errs []error
	if r.Invalid != "" {
		errs = append(errs, errors.New(r.Invalid))
	}
	if r.Unassigned > 0 {
		errs = append(errs, fmt.Errorf("%d executors stayed unassigned", r.Unassigned))
	}
	if r.Measurement.Throughput <= 0 {
		errs = append(errs, errors.New("throughput is zero: no tuple was acked in the measurement window"))
	}
	return errors.Join(errs...)
}
