package simcluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/service"
	"github.com/stormlab/stormlab/infra/sim"
)

// epoch is the simulated clock's origin, so that one seed gives one run.json (but for the fields
// that record wall-clock time).
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// simRun is one run on the simulated cluster.
type simRun struct {
	c            *Cluster
	spec         harness.RunSpec
	rt           *runTopology
	id           string
	names        []string       // components in task order
	first        map[string]int // first task of each component
	modelTasks   []int          // the task of each model executor (ackers excepted)
	x            *sim.Sim
	cfg          sim.Config                // the model as it started
	faultBefore  [][]harness.ExecutorPlace // each fault's placement at its start
	load         applied                   // the loads' CPU over the window (applied.go)
	links        linkSample                // the nodes' byte counters as the window opened (links.go)
	t            float64                   // simulated seconds
	decide       func(context.Context, *protocol.Snapshot) (*protocol.Decision, error)
	memoryMB     func(component string) float64 // declared, as the bridge sends it (declaredMemory)
	dynamic      bool
	svc          *service.Service
	slots        []slot
	ackerSlots   []slot // the slots the ackers run on: those the topology started on
	ackerWorker  []int  // each acker's worker (an index of ackerSlots), nil: one on each
	assign       []protocol.ExecutorSlot
	reports      []protocol.WorkerReport
	totals       map[slot]int64 // acked since each worker's start
	failedTotals map[slot]int64
	execSlot     []int         // each model executor's slot (index in slots)
	workerStart  float64       // seconds a restarted worker is down
	offered      map[int]int64 // open-loop spout tasks: tuples due since the start
	emitted      map[int]int64 // and emitted
	moves        int
	// measuring is true once the window is open; frames are the workers' messaging threads in it.
	measuring bool
	frames    map[slot]*protocol.WorkerFrames
	flow      flow      // totals for the self-checks
	overhead  []float64 // each node's worker overhead in core-seconds at the last report
	seed      uint64
	share     int64              // tuples each task of the dataset spout sends (--size-mb); 0 = endless
	deadlines map[string]float64 // each bolt's deadline, seconds
	nodeUsed  []float64          // each node's core-seconds (workers and background load) at the last report
}

func (r *simRun) now() time.Time { return epoch.Add(time.Duration(r.t * float64(time.Second))) }

// runSeed is the model's seed for a run: the cluster's seed and the topology's name, so every
// repetition (each has its own name) draws its own inputs and the same run draws the same ones.
func runSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	return h.Sum64()
}

// Run runs spec on the simulated cluster: the scheduler places the topology (the Go schedulers
// through the scheduler service's own code on the simulated clock, Storm's own as Go models), the
// model runs it report interval by report interval, and the reports it writes are measured and
// judged as a real cluster's are.
func (c *Cluster) Run(ctx context.Context, spec harness.RunSpec) (*harness.RunResult, error) {
	spec.Scheduler = cmp.Or(spec.Scheduler, c.scheduler)
	res := &harness.RunResult{Spec: spec, StartedAt: time.Now(), EndKind: "timed", Cluster: "sim:" + c.named.Name}
	fail := func(stage string, err error) (*harness.RunResult, error) {
		return res, &harness.RunError{Topology: spec.Topology.Name, Stage: stage, Err: err}
	}
	if err := check(spec); err != nil {
		return fail(harness.StageSpec, err)
	}
	if err := c.checkFaults(spec.Faults); err != nil {
		return fail(harness.StageSpec, err)
	}
	r, err := c.start(ctx, spec)
	if err != nil {
		return fail(harness.StageSpec, err)
	}
	res.TopologyID = r.id
	werr := error(nil)
	if d, ok := spec.End.(harness.Dataset); ok {
		res.EndKind = "dataset"
		if err := r.checkDataset(d); err != nil {
			return fail(harness.StageSpec, err)
		}
		werr = r.datasetWindow(ctx, res, d)
	} else {
		werr = r.window(ctx, res)
	}
	if werr != nil {
		return fail(harness.StageWindow, werr)
	}
	r.collect(res)
	res.Phases.TotalS = time.Since(res.StartedAt).Seconds()
	return res, nil
}

// check refuses what the model cannot run yet: ends other than timed windows and datasets, and faults
// in a dataset run.
func check(spec harness.RunSpec) error {
	_, timed := spec.End.(harness.Timed)
	_, dataset := spec.End.(harness.Dataset)
	timed = timed || spec.End == nil
	if !timed && !dataset {
		return fmt.Errorf("a simulated cluster runs timed windows and finite datasets, not %T runs", spec.End)
	}
	if len(spec.Faults) > 0 && !timed {
		return errors.New("faults need a timed run (AT counts from the window's opening)")
	}
	if err := harness.CheckTopologyName(spec.Topology.Name); err != nil {
		return err
	}
	if timed && spec.Measure <= 0 {
		return errors.New("timed run: give a window (Measure > 0)")
	}
	return nil
}

// start resolves the topology, places it with the run's scheduler and starts the model.
func (c *Cluster) start(ctx context.Context, spec harness.RunSpec) (*simRun, error) {
	rt, err := resolve(spec.Topology, c.model)
	if err != nil {
		return nil, err
	}
	// The run takes a copy of its cluster: UseSupervisorIDs between runs never changes a run under way.
	snap := *c
	r := &simRun{c: &snap, spec: spec, rt: rt, id: spec.Topology.Name + "-1-0", totals: map[slot]int64{}, failedTotals: map[slot]int64{}, offered: map[int]int64{}, emitted: map[int]int64{}, seed: runSeed(c.cs.Seed, spec.Topology.Name)}
	r.names, r.first = rt.tasks()
	if r.share, err = datasetShare(rt); err != nil {
		return nil, err
	}
	if r.deadlines, err = deadlinesOf(rt, rt.spouts()); err != nil {
		return nil, err
	}
	for _, n := range r.names {
		if !isAcker(n) {
			for k := range rt.parOf(n) {
				r.modelTasks = append(r.modelTasks, r.first[n]+k)
			}
		}
	}
	if err := r.scheduler(); err != nil {
		return nil, err
	}
	dec, err := r.decide(ctx, r.snapshot())
	if err != nil {
		return nil, err
	}
	slots, execSlot, assign, ok, err := r.placed(dec)
	if err == nil && !ok {
		err = fmt.Errorf("scheduler %s gave no placement for the topology", spec.Scheduler)
	}
	if err != nil {
		return nil, err
	}
	r.slots, r.ackerSlots, r.execSlot, r.assign = slots, slots, execSlot, assign
	r.ackerWorker = r.ackerWorkers(dec)
	r.cfg = r.config(execSlot)
	if r.x, err = sim.New(r.cfg); err != nil {
		return nil, err
	}
	r.faultBefore = make([][]harness.ExecutorPlace, len(spec.Faults))
	return r, r.startLoad()
}

// scheduler sets how the run's scheduler decides: Storm's own through their Go models, every other
// one through the scheduler service's code, in process, on the simulated clock.
func (r *simRun) scheduler() error {
	res, err := r.rt.resources()
	if err != nil {
		return err
	}
	r.memoryMB = declaredMemory(res)
	if _, bridged := harness.StormSchedulerClass(r.spec.Scheduler); !bridged {
		var hosts []string
		if list := r.rt.flags["conf."+protocol.NodesConf]; list != "" {
			hosts = strings.Split(list, ",")
		}
		decide, err := nativeScheduler(r.spec.Scheduler, hosts, res)
		r.decide = decide
		return err
	}
	opts := r.c.cs.SchedulerOptions
	opts.Seed = cmp.Or(opts.Seed, r.c.cs.Seed)
	opts.Mul = cmp.Or(opts.Mul, r.c.cs.Mul)
	every := cmp.Or(r.c.cs.RescheduleEvery, protocol.DefaultRescheduleEvery)
	svc, err := service.New(r.spec.Scheduler, opts, service.WithClock(r.now), service.WithRescheduleEvery(every))
	if err != nil {
		return err
	}
	r.svc, r.decide, r.dynamic = svc, svc.Schedule, svc.State(0).Dynamic
	return nil
}

// config is the model of the placed topology: the cost model's components at the run's flags, each
// cost drawn once per run within its measured uncertainty.
func (r *simRun) config(execSlot []int) sim.Config {
	rng := rand.New(rand.NewPCG(r.seed, 1))
	draw := func(mean, sd float64) float64 { return max(0.05*mean, mean+sd*rng.NormFloat64()) } // a cost is never below 5% of its mean
	tr := r.c.model.Transfer
	costs := tr.Costs()
	if a := r.rt.costs.AckCPUS; a > 0 { // the acker's cost in this topology's runs
		costs.AckCPU = a
	}
	costs.LinkLatency += (float64(r.c.cs.DelayMs) + r.rt.delayMs) / 1000 // the cluster's delay and the topology's own
	comps := r.rt.components(draw)
	for i := range comps {
		if comps[i].Spout {
			comps[i].Dataset = r.share
		}
		comps[i].Deadline = r.deadlines[comps[i].Name]
	}
	top := sim.Topology{Components: comps, MaxSpoutPending: r.rt.pending, Poisson: r.rt.poisson, Ackers: r.rt.ackers, AckBytes: tr.AckBytes, LoadAware: r.rt.loadAware, AckerWorkers: r.ackerWorker}
	for _, s := range r.slots {
		top.Workers = append(top.Workers, s.node)
	}
	for i, task := range r.modelTasks {
		top.Executors = append(top.Executors, sim.Executor{Component: r.componentOf(task), Worker: execSlot[i]})
	}
	overhead := draw(tr.WorkerOverheadCores, tr.WorkerOverheadSD) + tr.TransferIdleCores + r.idleCores()/float64(max(1, len(r.slots)))
	r.workerStart = draw(tr.WorkerStartS, tr.WorkerStartSD)
	spin := 0.0
	if tr.IdleSpinCores > 0 { // a cost model that measured it (its per-tuple costs keep theirs: costs_spin.go)
		spin = min(1, draw(tr.IdleSpinCores, tr.IdleSpinSD))
	}
	cfg := sim.Config{Nodes: r.nodes(), Costs: costs, Topology: top, Seed: r.seed, WorkerOverhead: overhead, Batch: r.c.named.Batch, IdleSpin: spin,
		Messaging: tr.MessagingThreads}
	// The wait strategy's timing is Storm's and the JVM's, not measured per cluster; a topology whose
	// bolts sleep at once (no parks) sleeps so whether or not the cost model charges spinning.
	if spinFor, sleep := r.rt.idleWait(); spin > 0 || spinFor == 0 {
		cfg.IdleSpinFor, cfg.IdleSleep, cfg.IdleSpinShare = spinFor, sleep, tr.IdleSpinShare
	}
	return cfg
}

func (r *simRun) componentOf(task int) string {
	for i := len(r.names) - 1; i >= 0; i-- {
		if task >= r.first[r.names[i]] {
			return r.names[i]
		}
	}
	return ""
}

// dockerCPUPeriod is the CFS period of a container's CPU quota as Docker sets it for --cpus (NanoCPUs):
// 100 ms, with cores x 100 ms of CPU per period.
const dockerCPUPeriod = 0.1

// nodes are the cluster's nodes as the model takes them. A container's node (QuotaPeriod set) uses up
// to the cores of the machine its cost model was measured on at once while its quota lasts, and shares
// them with the cluster's other containers, as they share that machine; where the cost model does not
// say (a target's, an older file) its cores are a steady capacity, as before. Each container's quota
// periods run on its cgroup's own timer, which starts with the container: their phase is drawn per node
// and run (sim.Node.QuotaPhase), so a tuple that crosses to a node at its quota can arrive in its stall.
// In step they had hidden that wait, most of the open-loop latency on homogeneous-2 (results log).
func (r *simRun) nodes() []sim.Node {
	out := slices.Clone(r.c.named.Nodes)
	rng := rand.New(rand.NewPCG(r.seed, 2))
	for i, n := range out {
		if n.QuotaPeriod > 0 && n.Peak == 0 {
			out[i].Peak, out[i].Host = float64(r.c.model.Provenance.HostCores), containersHost
			if out[i].Peak <= n.Cores {
				out[i].QuotaPeriod, out[i].Peak, out[i].Host = 0, 0, ""
			}
		}
		if out[i].QuotaPeriod > 0 {
			out[i].QuotaPhase = rng.Float64() * out[i].QuotaPeriod
		}
	}
	return out
}

// containersHost is the machine a container cluster's nodes share (sim.Node.Host).
const containersHost = "the containers' host"
