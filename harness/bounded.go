package harness

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
)

// RunBounded runs a topology that reads a finite dataset (--size-mb > 0)
// until the whole dataset is processed: every task of the spout component
// has logged "stormlab spout ... done" (PacedSpout, in the worker logs of
// the supervisor containers) and no tuple has been acked for quiet. The
// measurement window is [submit, end); WarmUp is ignored and spec.Measure
// bounds the whole run (an unfinished dataset is an error). The result's
// DatasetS is the time from the first to the last acked tuple.
func (s *Session) RunBounded(ctx context.Context, spec RunSpec, spout string, quiet time.Duration) (*RunResult, error) {
	if spec.Scheduler == "" {
		spec.Scheduler = s.Scheduler
	}
	if spec.Scheduler != s.Scheduler {
		return nil, fmt.Errorf("session runs %s, not %s", s.Scheduler, spec.Scheduler)
	}
	if s.runs > 0 {
		if err := s.WaitIdle(ctx, 2*time.Minute); err != nil {
			return nil, fmt.Errorf("before run %d: %w", s.runs+1, err)
		}
	}
	s.runs++
	res, err := s.runBounded(ctx, spec, spout, quiet)
	if res != nil {
		s.stamp(res)
	}
	if err != nil {
		err = fmt.Errorf("%w\n--- last log lines ---\n%s", err, s.c.LastLogLines(context.WithoutCancel(ctx), 20))
	}
	return res, err
}

func (s *Session) runBounded(ctx context.Context, spec RunSpec, spout string, quiet time.Duration) (*RunResult, error) {
	if spec.StartTimeout == 0 {
		spec.StartTimeout = 3 * time.Minute
	}
	if spec.Measure <= 0 {
		return nil, fmt.Errorf("bounded run of %s: Measure must bound the run (> 0)", spec.Topology.Name)
	}
	res := &RunResult{Spec: spec, StartedAt: time.Now()}
	ui := &UI{BaseURL: s.dc.ui}
	svc := &ServiceClient{BaseURL: s.dc.svc}
	res.MeasureFrom = res.StartedAt.UnixMilli()
	if err := s.dc.Submit(ctx, spec.Topology.Jar, spec.Topology.MainClass, spec.Topology.Args...); err != nil {
		return res, fmt.Errorf("submit topology %s: %w", spec.Topology.Name, err)
	}
	defer func() {
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = s.dc.Kill(kctx, spec.Topology.Name)
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
	tasks := 0
	for _, e := range execs {
		if e.Component == spout {
			tasks += e.End - e.Start + 1
		}
	}
	if tasks == 0 {
		return res, fmt.Errorf("bounded run of %s: no executor of spout component %q", spec.Topology.Name, spout)
	}
	limit := res.StartedAt.Add(spec.Measure)
	var reports []protocol.WorkerReport
	done := 0
	for {
		if err := pause(ctx, 2*time.Second); err != nil {
			return res, err
		}
		all, err := svc.Reports(ctx)
		if err != nil {
			return res, fmt.Errorf("collect worker reports: %w", err)
		}
		reports = reports[:0]
		for _, r := range all {
			if r.Topology == id {
				reports = append(reports, r)
			}
		}
		if done < tasks {
			done = s.spoutsDone(ctx, id)
		}
		first, last, newest := ackSpan(reports)
		now := time.Now()
		if done >= tasks && last > 0 && newest > last && now.UnixMilli()-last >= quiet.Milliseconds() {
			res.DatasetS = float64(last-first) / 1000
			break
		}
		if now.After(limit) {
			return res, fmt.Errorf("bounded run of %s: dataset not processed within %s (%d of %d spout tasks done)", spec.Topology.Name, spec.Measure, done, tasks)
		}
	}
	res.MeasureTo = time.Now().UnixMilli()
	res.Reports = append([]protocol.WorkerReport(nil), reports...)
	if execs, _, err := ui.Executors(ctx, id); err == nil {
		res.Executors = execs
	}
	place := PlacementOf(res.Executors)
	capacity := s.dc.Capacity()
	res.Measurement = Measure(res.Reports, place, capacity, res.MeasureFrom, res.MeasureTo)
	if spec.Step > 0 {
		res.Series = Series(res.Reports, place, capacity, res.MeasureFrom, res.MeasureTo, spec.Step.Milliseconds())
	}
	if log, err := s.dc.NimbusLog(ctx); err == nil {
		res.RoundsMs, res.Fallbacks = ParseBridgeLog(log)
	}
	if _, bridged := StormSchedulerClass(spec.Scheduler); bridged && len(res.Fallbacks) > 0 {
		res.Invalid = "bridge fell back to EvenScheduler: " + res.Fallbacks[0]
	}
	return res, nil
}

// ackSpan returns the start of the first report interval with acks, the
// time of the last report with acks and of the newest report (ms).
func ackSpan(reports []protocol.WorkerReport) (first, last, newest int64) {
	for _, r := range reports {
		newest = max(newest, r.TimeMs)
		if r.Acked > 0 {
			start := r.TimeMs - int64(r.IntervalS*1000)
			if first == 0 || start < first {
				first = start
			}
			last = max(last, r.TimeMs)
		}
	}
	return first, last, newest
}

// spoutsDone counts the "stormlab spout ... done" lines of topology id in
// the worker logs of every supervisor.
func (s *Session) spoutsDone(ctx context.Context, id string) int {
	n := 0
	cmd := fmt.Sprintf(`grep -rh 'stormlab spout .* done:' /opt/storm/logs/workers-artifacts/%s 2>/dev/null | wc -l`, id)
	for _, h := range s.Hosts() {
		if _, out, err := s.c.Exec(ctx, h, "sh", "-c", cmd); err == nil {
			if k, err := strconv.Atoi(strings.TrimSpace(lastLine(out))); err == nil {
				n += k
			}
		}
	}
	return n
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
