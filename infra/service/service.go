package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// DefaultRescheduleEvery is how often a running topology is offered to a
// Dynamic scheduler unless WithRescheduleEvery says otherwise (the
// protocol's default, which the harness sends back between runs).
const DefaultRescheduleEvery = protocol.DefaultRescheduleEvery

// Service runs one scheduler for the bridge and keeps what the workers
// report. It is safe for concurrent use.
type Service struct {
	name  string
	sched schedulers.Scheduler
	opts  *schedulers.Options // what sched was built with; nil when given built (NewWithScheduler)
	every time.Duration
	now   func() time.Time
	log   io.Writer
	auth  auth // the token requests must carry, and the refused ones (auth.go)

	round sync.Mutex // one scheduling round at a time

	mu          sync.Mutex
	rounds      int64
	roundTimes  []protocol.RoundTime
	decisions   []protocol.DecisionRecord
	fallbacks   []protocol.Fallback
	lastDecided map[string]time.Time // topology -> time of its last decision
	changedAt   map[string]time.Time // topology -> time of its last applied placement change
	snapshot    *protocol.Snapshot   // latest, for the load table's node mapping
	m           *measurements
	nodeCPU     map[string]protocol.NodeReport // host -> newest whole-node CPU report
	burn        map[string]float64             // burner topology name -> its load (protocol.Burn)

	reg *prometheus.Registry // this service's own, for GET /metrics (prom.go)
}

// Option configures a Service.
type Option func(*Service)

// WithRescheduleEvery sets the period between Reschedule calls for a
// running topology (default DefaultRescheduleEvery). d <= 0 offers it every round.
func WithRescheduleEvery(d time.Duration) Option { return func(s *Service) { s.every = d } }

// WithLog makes the service write every decision and fallback as a JSON
// line to w (nil: no log).
func WithLog(w io.Writer) Option { return func(s *Service) { s.log = w } }

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// New builds a service around the named scheduler from the registry.
func New(name string, opts schedulers.Options, o ...Option) (*Service, error) {
	sc, err := schedulers.New(name, opts)
	if err != nil {
		return nil, fmt.Errorf("scheduler service: %w", err)
	}
	s := NewWithScheduler(name, sc, o...)
	s.opts = &opts
	return s, nil
}

// NewWithScheduler builds a service around a given scheduler; name is what
// decisions and the state report.
func NewWithScheduler(name string, sc schedulers.Scheduler, o ...Option) *Service {
	s := &Service{
		name:        name,
		sched:       sc,
		every:       DefaultRescheduleEvery,
		now:         time.Now,
		lastDecided: map[string]time.Time{},
		changedAt:   map[string]time.Time{},
		m:           newMeasurements(),
		nodeCPU:     map[string]protocol.NodeReport{},
		burn:        map[string]float64{},
	}
	for _, f := range o {
		f(s)
	}
	s.reg = newRegistry(s)
	return s
}

// Name is the scheduler's name.
func (s *Service) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// SetScheduler replaces the scheduler (between runs: one cluster can serve
// several schedulers in turn). The reschedule clocks start afresh; the
// measurements and logs stay (POST /v1/reset forgets them). every, when > 0,
// replaces the period between Reschedule calls (WithRescheduleEvery); 0
// keeps it.
func (s *Service) SetScheduler(name string, o schedulers.Options, every time.Duration) error {
	sc, err := schedulers.New(name, o)
	if err != nil {
		return fmt.Errorf("scheduler service: %w", err)
	}
	s.round.Lock()
	defer s.round.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.name, s.sched, s.opts = name, sc, &o
	if every > 0 {
		s.every = every
	}
	s.lastDecided = map[string]time.Time{}
	s.changedAt = map[string]time.Time{}
	return nil
}

// NodeReport keeps a supervisor's whole CPU use (see protocol.NodeReport).
func (s *Service) NodeReport(r *protocol.NodeReport) error {
	if r == nil || r.Host == "" {
		return fmt.Errorf("node report without host: set \"host\" to the supervisor's host name")
	}
	if !(r.IntervalS > 0) || !(r.CPUPercent >= 0) || math.IsInf(r.CPUPercent, 0) {
		return fmt.Errorf("node report of %s: interval_s %v and cpu_percent %v: need an interval > 0 s and a finite CPU >= 0", r.Host, r.IntervalS, r.CPUPercent)
	}
	if r.TimeMs == 0 {
		r.TimeMs = s.now().UnixMilli()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodeCPU[r.Host] = *r
	return nil
}

// validateSnapshot rejects snapshots the service cannot reason about.
func validateSnapshot(snap *protocol.Snapshot) error {
	ids := map[string]bool{}
	for _, t := range snap.Topologies {
		if t.ID == "" {
			return fmt.Errorf("snapshot has a topology without id: every topology needs its Storm id")
		}
		if ids[t.ID] {
			return fmt.Errorf("snapshot lists topology %q twice", t.ID)
		}
		ids[t.ID] = true
		if t.NumWorkers < 0 {
			return fmt.Errorf("topology %q asks for %d workers: num_workers must be >= 0", t.ID, t.NumWorkers)
		}
	}
	sup := map[string]bool{}
	for _, v := range snap.Supervisors {
		if v.ID == "" {
			return fmt.Errorf("snapshot has a supervisor without id")
		}
		if sup[v.ID] {
			return fmt.Errorf("snapshot lists supervisor %q twice", v.ID)
		}
		sup[v.ID] = true
	}
	return nil
}

// Schedule answers one scheduling round. Problems with single topologies
// (a scheduler error, an impossible cluster) go to Decision.Errors; an
// error is returned only for a snapshot that cannot be read at all.
func (s *Service) Schedule(ctx context.Context, snap *protocol.Snapshot) (*protocol.Decision, error) {
	if snap == nil {
		return nil, fmt.Errorf("empty snapshot")
	}
	if err := validateSnapshot(snap); err != nil {
		return nil, err
	}
	s.round.Lock()
	defer s.round.Unlock()
	start := s.now()

	// Problems are built under the lock (they read the load table), the
	// scheduler runs without it so reports keep flowing.
	jobs, execs, err := s.problems(snap, start)
	if err != nil {
		return nil, err
	}

	dec := &protocol.Decision{Scheduler: s.name}
	var records []protocol.DecisionRecord
	for _, j := range jobs {
		if j.err != nil {
			dec.Errors = append(dec.Errors, protocol.TopologyError{ID: j.t.ID, Error: j.err.Error()})
			continue
		}
		rec, td, err := s.decide(ctx, j.t, j.ix, j.p, j.since)
		if rec != nil {
			records = append(records, *rec)
		}
		if err != nil {
			dec.Errors = append(dec.Errors, protocol.TopologyError{ID: j.t.ID, Error: err.Error()})
		}
		if td != nil {
			dec.Topologies = append(dec.Topologies, *td)
		}
	}

	end := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rounds++
	s.roundTimes = append(s.roundTimes, protocol.RoundTime{
		TimeMs: end.UnixMilli(), ServiceMs: float64(end.Sub(start).Microseconds()) / 1000,
		BridgeMs: snap.PrevRoundMs, Executors: execs,
	})
	for _, r := range records {
		s.lastDecided[r.Topology] = time.UnixMilli(r.TimeMs)
		if r.Applied {
			s.changedAt[r.Topology] = time.UnixMilli(r.TimeMs)
		}
		s.decisions = append(s.decisions, r)
		s.writeLog("decision", r)
	}
	return dec, nil
}

// job is one topology of a round: its problem, or why there is none.
type job struct {
	t     *protocol.Topology
	ix    *execIndex
	p     *schedulers.Problem
	err   error
	since time.Time
}

// problems builds the round's problems under s.mu: the only place a round
// holds the lock that every report, GET /v1/reports and GET /v1/state
// waits for. The lock is released by defer, and a panic becomes an error,
// so a bad snapshot costs one round (the bridge falls back and records
// why), never the service: a panic here once left s.mu held for good and
// every later request hung.
func (s *Service) problems(snap *protocol.Snapshot, start time.Time) (jobs []job, execs int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		if v := recover(); v != nil {
			jobs, execs, err = nil, 0, fmt.Errorf("building the problems of the round: internal error: %v", v)
		}
	}()
	loadNodes := s.loadTable(snap)
	for i := range snap.Topologies {
		t := &snap.Topologies[i]
		j := job{t: t}
		j.ix, j.err = newExecIndex(t)
		if j.err == nil {
			execs += len(j.ix.execs)
			cur := currentAssignment(t, j.ix, snap.Supervisors)
			if cur != nil && (!s.dueForReschedule(t.ID, start) || !s.settled(t.ID, cur, snap.Supervisors, start)) {
				// Placed and not due (or its last change not settled):
				// decide would not ask the scheduler, so skip building its
				// graph (the costly part of a round for big topologies).
				continue
			}
			r := s.m.rates(t.ID)
			g := buildGraph(t, j.ix, r)
			if err := g.Validate(); err != nil {
				j.err = fmt.Errorf("topology %q: executor graph: %w", t.ID, err)
			}
			j.p = &schedulers.Problem{
				Topology: t.ID,
				Graph:    g,
				Cluster:  buildCluster(t, snap.Supervisors),
				Workers:  t.NumWorkers,
				Current:  cur,
			}
			if len(loadNodes) > 0 || !r.empty() {
				j.p.Load = &schedulers.Load{Nodes: loadNodes, Tasks: taskLoad(t, j.ix, r), NowMs: s.m.monitorNowMs(t.ID, start.UnixMilli()),
					NotMeasured: s.notMeasured(t.ID, j.ix, r, loadNodes)}
			}
			j.since = s.lastDecided[t.ID]
		}
		jobs = append(jobs, j)
	}
	s.snapshot = snap // State's load table follows the last snapshot a round could read
	return jobs, execs, nil
}

func isDynamic(s schedulers.Scheduler) bool {
	_, ok := s.(schedulers.Dynamic)
	return ok
}

// dueForReschedule tells whether a placed topology may be rescheduled now:
// the scheduler is Dynamic and its period has passed (or never started, in
// which case decide starts it). Call with s.mu held.
func (s *Service) dueForReschedule(id string, now time.Time) bool {
	if !isDynamic(s.sched) {
		return false
	}
	since := s.lastDecided[id]
	return since.IsZero() || now.Sub(since) >= s.every
}

// Settling after a change. Storm restarts every worker whose executors
// changed, and a restarted JVM spends its first seconds loading classes and
// compiling: its node reads busy while the new placement has not yet
// carried load. A round that decided on those figures would answer the
// restart, not the placement (on a 0.25-core node every migration away
// restarted the worker, which read busy, which triggered the next
// migration, and its spout never finished its dataset). So after an
// applied change a topology is offered again only once every worker of its
// current placement has reported one reschedule period (at least
// settleFor) of work after the change and after its own (re)start: the
// period observes the placement, not the restart. settleMax plus one
// period after the change it is offered anyway, so a worker that never
// reports (a lost node) cannot stall the scheduler.
const (
	settleFor = 10 * time.Second
	settleMax = 2 * time.Minute
)

// settled tells whether the measurements of topology id describe its
// current placement cur (see settleFor). Call with s.mu held.
func (s *Service) settled(id string, cur *schedulers.Assignment, sups []protocol.Supervisor, now time.Time) bool {
	changed, ok := s.changedAt[id]
	if !ok || now.Sub(changed) >= settleMax+s.every {
		return true
	}
	span := max(settleFor, s.every).Milliseconds()
	t := s.m.topos[id]
	if t == nil {
		return false
	}
	host := map[string]string{}
	for _, sup := range sups {
		host[sup.ID] = sup.Host
	}
	for _, w := range cur.Workers {
		r := t.latest[workerKey{host[w.Node], w.Port}]
		if r == nil {
			return false
		}
		from := max(changed.UnixMilli(), r.WorkerStartMs)
		if r.TimeMs < from+span {
			return false
		}
	}
	return true
}

// decide runs the scheduler for one topology. It returns the record to log
// (nil when the scheduler was not asked) and the placement to send (nil
// when nothing changes).
func (s *Service) decide(ctx context.Context, t *protocol.Topology, ix *execIndex, p *schedulers.Problem, since time.Time) (*protocol.DecisionRecord, *protocol.TopologyDecision, error) {
	now := s.now()
	rec := &protocol.DecisionRecord{
		TimeMs: now.UnixMilli(), Topology: t.ID, Scheduler: s.name,
		Executors: len(ix.execs), Nodes: len(p.Cluster.Nodes),
	}
	var a *schedulers.Assignment
	var err error
	apply := true
	ex, explains := s.sched.(schedulers.Explainer)
	switch {
	case p.Current == nil:
		rec.Kind = "schedule"
		if explains {
			a, rec.Decision, err = ex.Explain(ctx, p)
		} else {
			a, err = s.sched.Schedule(ctx, p)
		}
	default:
		dyn, ok := s.sched.(schedulers.Dynamic)
		if !ok || (!since.IsZero() && now.Sub(since) < s.every) {
			return nil, nil, nil
		}
		if since.IsZero() && s.every > 0 {
			// Placed by someone else (or before a restart): start the period now.
			s.mu.Lock()
			s.lastDecided[t.ID] = now
			s.mu.Unlock()
			return nil, nil, nil
		}
		rec.Kind = "reschedule"
		if explains {
			a, rec.Decision, err = ex.Explain(ctx, p)
			if rec.Decision != nil {
				apply = rec.Decision.Apply
			}
		} else {
			a, apply, err = dyn.Reschedule(ctx, p)
		}
	}
	if p.Load != nil {
		rec.NotMeasured = p.Load.NotMeasured
	}
	rec.DurationMs = float64(s.now().Sub(now).Microseconds()) / 1000
	if err == nil && explains && rec.Decision == nil {
		err = fmt.Errorf("scheduler %s explained no decision", s.name)
	}
	if err == nil && apply && a == nil {
		err = fmt.Errorf("scheduler %s returned no assignment", s.name)
	}
	if err == nil && apply {
		if verr := a.Validate(p.Graph, &p.Cluster); verr != nil {
			err = fmt.Errorf("scheduler %s returned an invalid assignment: %w", s.name, verr)
		}
	}
	if err != nil {
		rec.Error = err.Error()
		return rec, nil, fmt.Errorf("topology %q: %w", t.ID, err)
	}
	if !apply {
		a = p.Current
	}
	if rec.Decision != nil && rec.Decision.First != nil && *rec.Decision.First >= 0 && *rec.Decision.First < len(ix.execs) {
		e := ix.execs[*rec.Decision.First]
		rec.FirstExecutor = &e
	}
	rec.Predicted = predict(p.Graph, &p.Cluster, a)
	td := toDecision(t.ID, a, ix)
	rec.Workers = td.Workers
	if !apply || samePlacement(a, p.Current) {
		return rec, nil, nil
	}
	rec.Applied = true
	return rec, &td, nil
}

// Fallback records that the bridge used Storm's EvenScheduler.
func (s *Service) Fallback(f protocol.Fallback) {
	if f.TimeMs == 0 {
		f.TimeMs = s.now().UnixMilli()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallbacks = append(s.fallbacks, f)
	s.writeLog("fallback", f)
}

// Report adds one worker report.
func (s *Service) Report(r *protocol.WorkerReport) error {
	if r == nil {
		return fmt.Errorf("empty report")
	}
	if r.Topology == "" {
		return fmt.Errorf("report without topology id: set \"topology\" to the Storm topology id")
	}
	if !(r.IntervalS > 0) {
		return fmt.Errorf("report of %s:%d has interval_s %v: it must be > 0 seconds", r.Host, r.Port, r.IntervalS)
	}
	if r.TimeMs == 0 {
		r.TimeMs = s.now().UnixMilli()
	}
	// A histogram that does not decode is counted, not refused: the rest
	// of the report is good, and the harness's merge names the bad one.
	h, herr := decodeLatency(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m.add(r)
	s.m.mergeLatency(r.Topology, h, herr)
	return nil
}

// Reset forgets measurements, decisions, fallbacks and round times; the
// scheduler and its reschedule clocks stay.
func (s *Service) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m = newMeasurements()
	s.rounds = 0
	s.roundTimes = nil
	s.decisions = nil
	s.fallbacks = nil
}

// Reports returns the raw worker reports with TimeMs >= sinceMs.
func (s *Service) Reports(sinceMs int64) []protocol.WorkerReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []protocol.WorkerReport{}
	for _, r := range s.m.reports {
		if r.TimeMs >= sinceMs {
			out = append(out, r)
		}
	}
	return out
}

// State returns everything the service knows; time series and logs are
// cut to entries with time >= sinceMs, totals are not.
func (s *Service) State(sinceMs int64) protocol.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := protocol.State{
		Scheduler:    s.name,
		Options:      s.opts,
		Dynamic:      isDynamic(s.sched),
		TimeMs:       s.now().UnixMilli(),
		Rounds:       s.rounds,
		Reports:      int64(len(s.m.reports)) + s.m.dropped,
		Unauthorized: s.auth.refused.Load(),
		RoundTimes:   []protocol.RoundTime{},
		Decisions:    []protocol.DecisionRecord{},
		Fallbacks:    []protocol.Fallback{},
		Load:         s.loadTable(s.snapshot),
	}
	st.RoundTimes = appendSince(st.RoundTimes, s.roundTimes, sinceMs, func(x protocol.RoundTime) int64 { return x.TimeMs })
	st.Decisions = appendSince(st.Decisions, s.decisions, sinceMs, func(x protocol.DecisionRecord) int64 { return x.TimeMs })
	st.Fallbacks = appendSince(st.Fallbacks, s.fallbacks, sinceMs, func(x protocol.Fallback) int64 { return x.TimeMs })
	ids := make([]string, 0, len(s.m.topos))
	for id := range s.m.topos {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		st.Topologies = append(st.Topologies, s.m.topologyState(id, sinceMs, s.snapshot))
	}
	return st
}

// logLine is one JSON line of the decision log.
type logLine struct {
	Event string `json:"event"`
	Data  any    `json:"data"`
}

// writeLog writes one JSON line; s.mu must be held. A failing writer does
// not stop scheduling: the in-memory log is the record the harness reads.
func (s *Service) writeLog(event string, v any) {
	if s.log == nil {
		return
	}
	b, err := json.Marshal(logLine{Event: event, Data: v})
	if err != nil {
		return
	}
	_, _ = s.log.Write(append(b, '\n'))
}
