package capture

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/topologies"
)

// Sources a capture can be asked for (WithSource); Auto takes the instrumented one when reports
// arrive and Storm's statistics otherwise.
const (
	Auto         = "auto"
	Instrumented = topologies.SourceInstrumented
	StormUI      = topologies.SourceStormUI
)

// BadInputError is a capture that cannot be made as asked: the topology is not running, the target
// does not answer, the window saw nothing. Nothing was measured; the message says what to fix.
type BadInputError struct{ Err error }

func (e *BadInputError) Error() string { return e.Err.Error() }
func (e *BadInputError) Unwrap() error { return e.Err }

func badInput(format string, a ...any) error { return &BadInputError{fmt.Errorf(format, a...)} }

// Option configures Capture.
type Option func(*options)

type options struct {
	source     string
	version    string
	logf       func(string, ...any)
	reportWait time.Duration
}

// WithSource forces the source: Instrumented (fails without reports), StormUI (ignores reports) or
// Auto (the default).
func WithSource(s string) Option { return func(o *options) { o.source = s } }

// WithVersion records the capturing stormlab's version in the provenance.
func WithVersion(v string) Option { return func(o *options) { o.version = v } }

// WithLogf receives progress lines and warnings (a placement that changed during the window, tuple
// sizes not measured, ...).
func WithLogf(f func(string, ...any)) Option { return func(o *options) { o.logf = f } }

// WithReportWait bounds the wait, after the window, for the workers' reports of its last interval
// (default 15 s: three of the default 5 s report intervals; a report is awaited until the middle of
// its interval is past the window's end).
func WithReportWait(d time.Duration) Option { return func(o *options) { o.reportWait = d } }

// Capture records topology name, running on target t, over the next span (see the package doc). It
// returns a BadInputError when the request cannot be met: span <= 0, an unknown source, the UI not
// answering, no running topology of that name (the error lists the running ones), or a window in
// which neither reports nor Storm's statistics saw a tuple.
func Capture(ctx context.Context, t *target.Target, name string, span time.Duration, opts ...Option) (*topologies.Captured, error) {
	o := options{source: Auto, logf: func(string, ...any) {}, reportWait: 15 * time.Second}
	for _, f := range opts {
		f(&o)
	}
	if span <= 0 {
		return nil, badInput("capture window %s: give a positive duration, e.g. 60s", span)
	}
	if o.source != Auto && o.source != Instrumented && o.source != StormUI {
		return nil, badInput("source %q: use %s, %s or %s", o.source, Auto, Instrumented, StormUI)
	}
	ui := stormui.New(t.UI)
	id, err := runningID(ctx, ui, t, name)
	if err != nil {
		return nil, err
	}
	s0, err := readSnapshot(ctx, ui, id)
	if err != nil {
		return nil, fmt.Errorf("capture %s at the window's start: %w", name, err)
	}
	o.logf("capturing %s (%s) for %s", name, id, span)
	if err := sleep(ctx, span); err != nil {
		return nil, fmt.Errorf("capture %s: %w", name, err)
	}
	s1, err := readSnapshot(ctx, ui, id)
	if err != nil {
		return nil, fmt.Errorf("capture %s at the window's end (was it killed?): %w", name, err)
	}
	c, err := build(ctx, t, id, s0, s1, o)
	if err != nil {
		return nil, err
	}
	c.Provenance = topologies.Provenance{Cluster: orDefault(t.Name, "target"), Topology: name, TopologyID: id,
		FromMs: s0.TimeMs, ToMs: s1.TimeMs, SpanS: float64(s1.TimeMs-s0.TimeMs) / 1000, StormlabVersion: o.version,
		Source: c.Provenance.Source, Estimated: c.Provenance.Estimated}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("capture %s: the result is inconsistent (a bug, please report): %w", name, err)
	}
	return c, nil
}

// runningID is the id of the active topology called name.
func runningID(ctx context.Context, ui *stormui.Client, t *target.Target, name string) (string, error) {
	tops, err := ui.Topologies(ctx)
	if err != nil {
		return "", badInput("target UI %s does not answer: %v (check ui in the target file and that the Storm UI runs)", t.UI, err)
	}
	var running []string
	for _, tp := range tops {
		if tp.Name == name && strings.EqualFold(tp.Status, "ACTIVE") {
			return tp.ID, nil
		}
		if strings.EqualFold(tp.Status, "ACTIVE") {
			running = append(running, tp.Name)
		}
	}
	slices.Sort(running)
	list := "none"
	if len(running) > 0 {
		list = strings.Join(running, ", ")
	}
	return "", badInput("topology %q is not running on %s (running: %s): give the name of a running topology", name, orDefault(t.Name, t.UI), list)
}

// build picks the source and makes the capture from the snapshots (and the reports).
func build(ctx context.Context, t *target.Target, id string, s0, s1 *Snapshot, o options) (*topologies.Captured, error) {
	comps, err := s1.structure()
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	var reps []protocol.WorkerReport
	if o.source != StormUI {
		reps, err = windowReports(ctx, t, id, s0.TimeMs, s1.TimeMs, o.reportWait)
		if err != nil && o.source == Instrumented {
			return nil, badInput("worker reports: %v (check service.harness and token in the target file)", err)
		}
		if err != nil {
			o.logf("warning: no worker reports (%v): using Storm's own statistics", err)
		}
	}
	var c *topologies.Captured
	switch {
	case len(reps) > 0:
		r := foldReports(reps)
		warnRates(r, o.logf)
		c = buildInstrumented(comps, r)
	case o.source == Instrumented:
		return nil, badInput("no worker report of %s reached the scheduler service during the window: run the topology with stormlab's instrumentation (its task hook and --metrics-url), or capture with source %s", id, StormUI)
	default:
		if c, err = buildFromUI(s0, s1, comps); err != nil {
			return nil, badInput("no worker reports and %v: capture a topology that processes tuples, over a longer window", err)
		}
	}
	c.Placement = fullPlacement(comps, reps, o.logf)
	if p0 := placement(mustStructure(s0)); !samePlacement(p0, c.Placement) {
		o.logf("warning: the placement changed during the window; the file holds the one at its end")
	}
	return c, nil
}

func mustStructure(s *Snapshot) []component {
	comps, _ := s.structure()
	return comps
}

func samePlacement(a, b topologies.Placement) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// fullPlacement is the UI's placement of every task, completed from the reports (the worker that
// reported a task's CPU), or none with a warning when a task stays unplaced.
func fullPlacement(comps []component, reps []protocol.WorkerReport, logf func(string, ...any)) topologies.Placement {
	p := placement(comps)
	r := foldReports(reps)
	for _, k := range comps {
		for _, t := range k.tasks {
			if _, ok := p[t]; ok {
				continue
			}
			if w, ok := r.worker[t]; ok {
				p[t] = w
				continue
			}
			logf("warning: task %d of %s is not placed: the file has no placement", t, k.name)
			return nil
		}
	}
	return p
}

func warnRates(r rates, logf func(string, ...any)) {
	if r.noSizes {
		logf("warning: a worker could not measure tuple sizes: sizes are left 0 (unknown)")
	}
	if r.noCPU {
		logf("warning: a worker could not measure thread CPU time: its tasks' CPU is missing")
	}
	if len(r.emits) == 0 && len(r.traffic) > 0 {
		logf("warning: the workers report no emit counts (older instrumentation): stream rates are estimated from the tuples executed")
	}
}

// windowReports returns topology id's reports whose interval's midpoint lies in (fromMs, toMs], so
// the time they cover is centred on the window (a report covers (time - interval, time]), waiting up
// to wait for a report past toMs (so the window's last interval is in). Without any report of id it
// waits at most noReportWait after toMs: a topology without instrumentation sends none.
func windowReports(ctx context.Context, t *target.Target, id string, fromMs, toMs int64, wait time.Duration) ([]protocol.WorkerReport, error) {
	deadline := time.UnixMilli(toMs).Add(wait)
	giveUp := time.UnixMilli(toMs).Add(min(wait, noReportWait))
	for {
		all, err := harness.ServiceReports(ctx, t, fromMs+1)
		if err != nil {
			return nil, err
		}
		var in []protocol.WorkerReport
		late := false
		for _, r := range all {
			mid := r.TimeMs - int64(r.IntervalS*500)
			switch {
			case r.Topology != id || mid <= fromMs:
			case mid > toMs:
				late = true
			default:
				in = append(in, r)
			}
		}
		now := time.Now()
		if late || now.After(deadline) || len(in) == 0 && now.After(giveUp) {
			return in, nil
		}
		if err := sleep(ctx, min(time.Second, wait)); err != nil {
			return nil, err
		}
	}
}

// noReportWait is how long after the window a capture waits for a first report of the topology.
const noReportWait = 6 * time.Second

func sleep(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// IsBadInput reports whether err is a BadInputError.
func IsBadInput(err error) bool {
	var b *BadInputError
	return errors.As(err, &b)
}
