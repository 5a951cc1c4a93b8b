package measure

import (
	"fmt"
	"sort"

	"github.com/stormlab/stormlab/infra/protocol"
)

// TimelineEvent is one line of a run's timeline.jsonl: what happened when (epoch ms). Event is one of
// window-open, window-close, fault-start, fault-end, round (a scheduling round of the bridge), decision, fallback, worker-start and throughput
// (one per interval of the recovery series: acked tuples/s and the mean sampled complete latency).
type TimelineEvent struct {
	TimeMs    int64    `json:"time_ms"`
	Event     string   `json:"event"`
	Fault     string   `json:"fault,omitempty"`
	Detail    string   `json:"detail,omitempty"`
	Tput      *float64 `json:"tuples_s,omitempty"`
	LatencyMs *float64 `json:"latency_ms,omitempty"`
}

// Events are the records of a run that its timeline shows (the run loop's RunResult holds them).
type Events struct {
	FromMs                    int64 // the run's start (or the window's, if later); the series starts here
	MeasureFrom, MeasureTo    int64 // the window
	StepMs                    int64 // the run's time-series step (0: none)
	Faults                    []FaultEvent
	Rounds                    []protocol.RoundTime
	Decisions                 []protocol.DecisionRecord
	Fallbacks, FaultFallbacks []protocol.Fallback
	Reports                   []protocol.WorkerReport
}

// FaultEvent is one injected fault as the timeline shows it.
type FaultEvent struct {
	Name           string // the fault as written (fault.Fault's String)
	StartMs, EndMs int64  // 0 StartMs: the fault never started
	AtMs           int64  // when it was due, from the window's opening
	Error          string
	Recovery       Recovery
}

// Timeline lists a run's events in time order: its window, its faults' starts and ends, the scheduler
// service's decisions and the bridge's fallbacks, every worker incarnation's start (WorkerStartMs of
// the reports) and the throughput/latency series from the run's start to the window's end.
func Timeline(r Events) []TimelineEvent {
	var ev []TimelineEvent
	add := func(t int64, event, fault, detail string) {
		ev = append(ev, TimelineEvent{TimeMs: t, Event: event, Fault: fault, Detail: detail})
	}
	if r.MeasureFrom > 0 {
		add(r.MeasureFrom, "window-open", "", "")
	}
	if r.MeasureTo > 0 {
		add(r.MeasureTo, "window-close", "", "")
	}
	for _, f := range r.Faults {
		if f.StartMs > 0 {
			add(f.StartMs, "fault-start", f.Name, f.Error)
			add(f.EndMs, "fault-end", f.Name, f.Recovery.Verdict())
		} else {
			add(r.MeasureFrom+f.AtMs, "fault-start", f.Name, f.Error)
		}
	}
	for _, rt := range r.Rounds {
		add(rt.TimeMs, "round", "", fmt.Sprintf("executors=%d service_ms=%.1f", rt.Executors, rt.ServiceMs))
	}
	for _, d := range r.Decisions {
		add(d.TimeMs, "decision", "", fmt.Sprintf("%s %s applied=%t executors=%d nodes=%d %s", d.Scheduler, d.Kind, d.Applied, d.Executors, d.Nodes, d.Error))
	}
	for _, f := range append(append([]fallbackOf(nil), fallbacksOf(r.Fallbacks, false)...), fallbacksOf(r.FaultFallbacks, true)...) {
		add(f.TimeMs, "fallback", "", f.Reason)
	}
	seen := map[string]bool{}
	for _, x := range r.Reports {
		k := fmt.Sprintf("%s:%d@%d", x.Host, x.Port, x.WorkerStartMs)
		if x.WorkerStartMs > 0 && !seen[k] {
			seen[k] = true
			add(x.WorkerStartMs, "worker-start", "", fmt.Sprintf("%s:%d", x.Host, x.Port))
		}
	}
	from, to := r.FromMs, r.MeasureTo
	if step := RecoveryStepMs(r.StepMs, r.Reports); from > 0 && to > from {
		n := int((to - from + step - 1) / step)
		acked := ackedPerInterval(r.Reports, from, step, n)
		lat, latN := make([]float64, n), make([]int, n)
		for _, x := range r.Reports {
			if x.TimeMs <= from || x.TimeMs > to {
				continue
			}
			i := int((x.TimeMs - from - 1) / step)
			for _, l := range x.CompleteLatencyMs {
				lat[i] += l
				latN[i]++
			}
		}
		for i := range acked {
			t := acked[i] / (float64(step) / 1000)
			e := TimelineEvent{TimeMs: from + int64(i+1)*step, Event: "throughput", Tput: &t}
			if latN[i] > 0 {
				m := lat[i] / float64(latN[i])
				e.LatencyMs = &m
			}
			ev = append(ev, e)
		}
	}
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].TimeMs < ev[j].TimeMs })
	return ev
}

// fallbackOf is a bridge fallback with whether a fault explains it.
type fallbackOf struct {
	TimeMs int64
	Reason string
}

func fallbacksOf(fbs []protocol.Fallback, fault bool) []fallbackOf {
	var out []fallbackOf
	for _, f := range fbs {
		r := f.Reason
		if fault {
			r = "during a fault: " + r
		}
		out = append(out, fallbackOf{f.TimeMs, r})
	}
	return out
}
