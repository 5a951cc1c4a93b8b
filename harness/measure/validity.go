package measure

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Level is how far a run can be trusted. Levels merge as Jepsen's merge-valid: Invalid beats Suspect
// beats Valid, so a run is as bad as its worst reason.
type Level string

// ReasonKind says what a Reason is about, so that readers act on kinds, not on texts.
type ReasonKind string

// The levels of a Validity and the kinds of a Reason.
const (
	Valid   Level = "valid"   // the run counts
	Suspect Level = "suspect" // some figures are in doubt (see the reasons' kinds); it stays in tables
	Invalid Level = "invalid" // the run must not be reported

	ReasonScheduler    ReasonKind = "scheduler"     // another scheduler than asked placed the topology (invalid)
	ReasonUnassigned   ReasonKind = "unassigned"    // executors stayed unassigned (invalid)
	ReasonNoThroughput ReasonKind = "no-throughput" // no tuple acked in the window (invalid)
	ReasonStormUnread  ReasonKind = "storm-unread"  // Storm's counters, the yardstick, did not cover the window (invalid)
	ReasonStormCounts  ReasonKind = "storm-counts"  // acked or throughput disagree with Storm's (suspect)
	ReasonStormLatency ReasonKind = "storm-latency" // mean latency disagrees with Storm's, counts agree (suspect)
	ReasonUnsteady     ReasonKind = "unsteady"      // the window opened at the maximum warm-up, throughput not steady (suspect)
	ReasonUnknown      ReasonKind = "unknown"       // the run could not be judged (suspect: never valid)
	ReasonHostStarved  ReasonKind = "host-starved"  // the host did not give a node its quota (suspect)
	ReasonLoadShort    ReasonKind = "load-short"    // a load was applied more than 10% below its level (suspect)
)

// Reason is one cause of a run's Level.
type Reason struct {
	Kind  ReasonKind `json:"kind"`
	Level Level      `json:"level"`
	Text  string     `json:"text"`
}

// Validity is the one judgement of a run (Judge), saved in run.json as "validity".
type Validity struct {
	Level   Level    `json:"level"`
	Reasons []Reason `json:"reasons,omitempty"`
}

// Err is nil unless the run is invalid; then it is the invalid reasons' texts, one a line (what keeps
// the run from counting). A suspect run counts: read its reasons with Text(Suspect).
func (v Validity) Err() error {
	if v.Level != Invalid {
		return nil
	}
	return errors.New(strings.Join(v.texts(Invalid), "\n"))
}

// Text joins the texts of the reasons at level l with "; " ("" when none).
func (v Validity) Text(l Level) string { return strings.Join(v.texts(l), "; ") }

func (v Validity) texts(l Level) []string {
	var out []string
	for _, r := range v.Reasons {
		if r.Level == l {
			out = append(out, r.Text)
		}
	}
	return out
}

// Doubts reports whether a suspect reason of v concerns metric (a Measurement field's JSON name or
// an experiment's metric): a storm-latency reason concerns the latency metrics only (the counts
// agreed with Storm's), every other suspect reason concerns every metric.
func (v Validity) Doubts(metric string) bool {
	for _, r := range v.Reasons {
		if rank(r.Level) == 1 && (r.Kind != ReasonStormLatency || slices.Contains(latencyMetrics, metric)) {
			return true
		}
	}
	return false
}

// Counts reports whether the run's figure for metric may feed a statistic or a claim: the run is not
// invalid and no suspect reason concerns metric. The zero Validity (a run never judged: the graph
// experiments') counts.
func (v Validity) Counts(metric string) bool { return v.Level != Invalid && !v.Doubts(metric) }

// latencyMetrics are the metrics computed from complete latency (Measurement's JSON names), the
// ones a storm-latency reason puts in doubt.
var latencyMetrics = []string{"latency_mean_ms", "latency_p99_ms"}

// Waive sets aside v's reasons of the given kinds: they stay, their text prefixed with why, at level
// Valid (so they still read in run.json and raw.csv but count against nothing), and the level is the
// worst of the others. For an experiment whose design breaks a check's premise (a killed supervisor
// takes Storm's counters, the cross-check's yardstick, with it).
func (v Validity) Waive(why string, kinds ...ReasonKind) Validity {
	rs := make([]Reason, len(v.Reasons))
	for i, r := range v.Reasons {
		if slices.Contains(kinds, r.Kind) {
			r.Level, r.Text = Valid, why+": "+r.Text
		}
		rs[i] = r
	}
	return Validity{Level: Valid}.merge(rs...)
}

// rank orders levels for merge; an unknown level ranks as Suspect (never as Valid).
func rank(l Level) int {
	switch l {
	case Valid, "":
		return 0
	case Invalid:
		return 2
	}
	return 1
}

// merge adds reasons to v; its level becomes the worst of all (merge-valid).
func (v Validity) merge(reasons ...Reason) Validity {
	out := Validity{Level: Valid, Reasons: append(append([]Reason(nil), v.Reasons...), reasons...)}
	for _, r := range out.Reasons {
		if rank(r.Level) > rank(out.Level) {
			out.Level = r.Level
			if rank(r.Level) == 1 {
				out.Level = Suspect
			}
		}
	}
	return out
}

// Records are what a run's validity is judged from, as values (the run loop's RunResult holds them),
// so that judging needs nothing of the loop.
type Records struct {
	Scheduler string // the scheduler asked for
	Bridged   bool   // it runs behind the bridge, in the scheduler service (not a native one)
	// ServiceScheduler is the scheduler the service ran ("" in a run saved before it was recorded).
	ServiceScheduler string
	// Fallbacks and Decisions are the bridge's fallbacks and the service's decisions for the topology.
	Fallbacks  []protocol.Fallback
	Decisions  []protocol.DecisionRecord
	Unassigned int
	// Timed and StormCounted say the run's end condition; a storm-counted run's yardstick is Storm's counters.
	Timed, StormCounted bool
	Measurement         Measurement
	Storm               StormCheck
	WarmUp              WarmUp
	// Window is the run's window judged by SteadySpan's rules when its warm-up ended at the maximum
	// (WarmUpWindow; nil when that was not judged).
	Window *SpanSteadiness
	Prior  Validity // the validity the run was saved with
	// HostStarved are the run's host-starved nodes, one text each (diagnose.StarvedText): the testbed
	// was not what its shape declares.
	HostStarved []string
	// LoadShort are the loads (stragglers) applied short of their level, one text each
	// (diagnose.ShortText): the run was not under the load it claims.
	LoadShort []string
}

// Judge is the one place a run's validity is computed, from its records: the scheduler service's
// state (which scheduler ran, fallbacks, decisions), Nimbus's assignment, the measurement and the
// cross-check with Storm's statistics. A panic while judging becomes an "unknown" reason at Suspect
// (like Jepsen's check-safe): a run that could not be judged is never valid. The records are read
// inside that guard (records is called there), so a run whose records cannot be read is judged so too.
func Judge(records func() Records) (v Validity) {
	defer func() {
		if p := recover(); p != nil {
			v = Validity{Level: Valid}.merge(Reason{ReasonUnknown, Suspect, fmt.Sprintf("judging the run failed: %v", p)})
		}
	}()
	r := records()
	rs := schedulerReasons(r)
	if r.Unassigned > 0 {
		rs = append(rs, Reason{ReasonUnassigned, Invalid, fmt.Sprintf("%d executors stayed unassigned", r.Unassigned)})
	}
	rs = append(rs, throughputReasons(r)...)
	rs = append(rs, r.Storm.reasons()...)
	rs = append(rs, warmUpReasons(r)...)
	for _, text := range r.HostStarved {
		rs = append(rs, Reason{ReasonHostStarved, Suspect, text})
	}
	for _, text := range r.LoadShort {
		rs = append(rs, Reason{ReasonLoadShort, Suspect, text})
	}
	return Validity{Level: Valid}.merge(rs...)
}

// warmUpReasons: a timed run whose window opened at its maximum warm-up, before throughput was steady
// (open loop: before the start-up backlog drained), may have measured a transient. It is in doubt
// unless the window itself proved steady by SteadySpan's rules (r.Window): the warm-up's range rule
// (3 intervals within 10%) never passes at a saturation whose intervals swing with the acks' jitter,
// as WordCount's on a 0.5-core node do, while a ramp or an undrained backlog still fails the window's.
// A run that asked for no warm-up (WarmUp 0) measures from the start on purpose.
func warmUpReasons(r Records) []Reason {
	w := r.WarmUp
	if !w.atMaximum(r.Timed) || (r.Window != nil && r.Window.Steady) {
		return nil
	}
	text := fmt.Sprintf("the window opened at the maximum warm-up (%.0f s) before throughput was steady (last intervals %s tuples/s)", w.MaxS, ratesText(w.Rates))
	if w.OfferedRate > 0 {
		text += fmt.Sprintf(", offered %.0f tuples/s", w.OfferedRate)
	}
	if r.Window != nil {
		text += fmt.Sprintf(", nor was the window (%s)", r.Window.Why)
	}
	return []Reason{{ReasonUnsteady, Suspect, text}}
}

func ratesText(rates []float64) string {
	if len(rates) == 0 {
		return "none"
	}
	parts := make([]string, len(rates))
	for i, x := range rates {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, ", ")
}

// schedulerReasons: a bridged run counts only if the service ran the scheduler asked, the bridge never
// fell back and a placement was applied. A run saved before the service's scheduler was recorded keeps
// the scheduler reasons it was saved with.
func schedulerReasons(r Records) []Reason {
	if r.Bridged && r.ServiceScheduler == "" {
		var kept []Reason
		for _, x := range r.Prior.Reasons {
			if x.Kind == ReasonScheduler {
				kept = append(kept, x)
			}
		}
		return kept
	}
	if why := invalid(r); why != "" {
		return []Reason{{ReasonScheduler, Invalid, why}}
	}
	return nil
}

// throughputReasons: a run whose window saw no acked tuple (by its yardstick) does not count.
func throughputReasons(r Records) []Reason {
	switch {
	case r.StormCounted && !r.Storm.Compared && len(r.Storm.Spouts) == 0:
		// Storm's counters are this run's yardstick.
		return []Reason{{ReasonStormUnread, Invalid, "Storm's statistics did not cover the window: " + r.Storm.Note}}
	case r.StormCounted && r.Storm.Throughput <= 0:
		return []Reason{{ReasonNoThroughput, Invalid, "throughput is zero: Storm counted no acked tuple in the measurement window"}}
	case !r.StormCounted && r.Measurement.Throughput <= 0:
		return []Reason{{ReasonNoThroughput, Invalid, "throughput is zero: no tuple was acked in the measurement window"}}
	}
	return nil
}

// LegacyValidity is the validity of a run.json saved before "validity" was: its "invalid" and
// "suspect" strings become reasons (kind scheduler, and storm-counts or storm-latency by the saved
// cross-check's differences). Load judges a kept run again from its records in any case.
func LegacyValidity(invalid, suspect string, storm StormCheck) Validity {
	var rs []Reason
	if invalid != "" {
		rs = append(rs, Reason{ReasonScheduler, Invalid, invalid})
	}
	if suspect != "" {
		kind := ReasonStormCounts
		if storm.Diff <= storm.countTolerance() {
			kind = ReasonStormLatency
		}
		rs = append(rs, Reason{kind, Suspect, suspect})
	}
	return Validity{Level: Valid}.merge(rs...)
}

// invalid says why a run cannot count as r.Scheduler's result, or "": for a scheduler behind the bridge,
// the service must run asked (not another scheduler), must have decided the topology's placement, and
// the bridge must never have fallen back to EvenScheduler.
func invalid(r Records) string {
	asked, serviceRuns, fallbacks, decisions := r.Scheduler, r.ServiceScheduler, r.Fallbacks, r.Decisions
	if !r.Bridged {
		// A bridged Nimbus runs Storm's own schedulers in process; an older bridge, without
		// per-topology choice, sends every topology to the service instead.
		if len(decisions) > 0 {
			return fmt.Sprintf("the bridge on Nimbus sent %s's topology to the service instead of running %s in Nimbus: install the current bridge jar (stormlab bridge install-files)", asked, asked)
		}
		return ""
	}
	var why []string
	if serviceRuns != asked {
		why = append(why, fmt.Sprintf("the scheduler service runs %q, not %q", serviceRuns, asked))
	}
	if len(fallbacks) > 0 {
		why = append(why, fmt.Sprintf("bridge fell back to EvenScheduler %d times (first: %s)", len(fallbacks), fallbacks[0].Reason))
	}
	applied := false
	for _, d := range decisions {
		applied = applied || d.Applied
	}
	if !applied {
		why = append(why, "the scheduler service applied no placement for the topology")
	}
	return strings.Join(why, "; ")
}

// With is v with reasons added, its level the worst of them all.
func (v Validity) With(reasons ...Reason) Validity { return v.merge(reasons...) }
