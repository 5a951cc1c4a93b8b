package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jedib0t/go-pretty/v6/progress"
)

// Progress receives the state of long work (cluster experiments: minutes
// per run). Experiments call it; the command line shows it. Calls come from
// one goroutine at a time.
type Progress interface {
	// Run says run i (1-based) of n starts; label names it ("kpart rep 2").
	Run(i, n int, label string)
	// Phase says the current run entered a phase ("cluster up", "submit,
	// warm-up and measure", "teardown"); expect > 0 is how long it should
	// take, shown as a countdown.
	Phase(name string, expect time.Duration)
}

// Resumer is implemented by displays that leave a run read back from disk
// (--resume) out of their ETA: such a run takes no time, and counting it
// made the mean run look seconds long (an ETA of 11 s before five clusters).
type Resumer interface {
	// Resumed says the current run was read back, not run.
	Resumed()
}

// NoProgress discards everything.
type NoProgress struct{}

// Run implements Progress.
func (NoProgress) Run(int, int, string) {}

// Phase implements Progress.
func (NoProgress) Phase(string, time.Duration) {}

// Meter shows Progress on a writer (stderr): as a go-pretty progress bar
// redrawn in place when the writer is a terminal, otherwise as one plain
// line per run and phase (logs, CI). Both show run i of N, the phase with
// its countdown, and an ETA for the rest of the work from the mean time of
// the finished runs. Lines written to the Meter (it is an io.Writer) are
// printed above the bar, so other logs can share the stream. Stop it when
// the work ends.
type Meter struct {
	mu      sync.Mutex
	w       io.Writer
	now     func() time.Time
	pw      progress.Writer // nil in plain mode
	tr      *progress.Tracker
	partial []byte // a log line not yet ended by '\n'

	i, n        int
	label       string
	phase       string
	phaseStart  time.Time
	expect      time.Duration
	runStart    time.Time
	firstStart  time.Time
	finishedDur time.Duration // total time of finished runs
	finished    int
	resumed     int  // runs read back, not run: out of the mean and of the runs left
	curResumed  bool // the current run was read back
	stop        chan struct{}
	stopped     bool
}

// NewMeter makes a Meter writing to w; bar chooses the in-place bar (use
// it when w is a terminal).
func NewMeter(w io.Writer, bar bool) *Meter {
	m := &Meter{w: w, now: time.Now, stop: make(chan struct{})}
	if bar {
		pw := progress.NewWriter()
		pw.SetOutputWriter(w)
		pw.SetAutoStop(false)
		pw.SetUpdateFrequency(500 * time.Millisecond)
		pw.SetTrackerLength(24)
		pw.SetMessageLength(70)
		pw.ShowETA(false) // ours: from finished runs, not from the bar's rate
		pw.ShowTime(false)
		pw.ShowValue(true)
		pw.SetStyle(progress.StyleDefault)
		pw.Style().Visibility.Percentage = false
		m.pw = pw
		go pw.Render()
		go m.tick()
	}
	return m
}

// Run implements Progress.
func (m *Meter) Run(i, n int, label string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if i == 1 && m.i > 0 {
		// A new experiment of a suite: its own runs make its ETA.
		m.finishedDur, m.finished, m.resumed, m.firstStart = 0, 0, 0, time.Time{}
	} else if m.i > 0 && i != m.i && !m.curResumed {
		m.finishedDur += now.Sub(m.runStart)
		m.finished++
	}
	m.curResumed = false
	if m.firstStart.IsZero() {
		m.firstStart = now
	}
	m.i, m.n, m.label, m.runStart = i, n, label, now
	m.phase, m.expect, m.phaseStart = "", 0, now
	if m.pw != nil {
		if m.tr == nil {
			m.tr = &progress.Tracker{Total: int64(n), Units: progress.Units{Notation: " runs"}}
			m.pw.AppendTracker(m.tr)
		}
		m.tr.UpdateTotal(int64(n))
		m.tr.SetValue(int64(i - 1))
		m.tr.UpdateMessage(m.message(now))
		return
	}
	fmt.Fprintln(m.w, m.message(now))
}

// Resumed implements Resumer.
func (m *Meter) Resumed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.curResumed {
		m.curResumed = true
		m.resumed++
	}
}

// Phase implements Progress.
func (m *Meter) Phase(name string, expect time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.phase, m.expect, m.phaseStart = name, expect, now
	if m.pw != nil {
		if m.tr != nil {
			m.tr.UpdateMessage(m.message(now))
		}
		return
	}
	fmt.Fprintln(m.w, m.message(now))
}

// message is "run 3/8 kpart rep 1: measure, 42s left; ETA 12m0s".
func (m *Meter) message(now time.Time) string {
	var b strings.Builder
	switch {
	case m.i == 0:
		b.WriteString("starting")
	case m.n > 0:
		fmt.Fprintf(&b, "run %d/%d", m.i, m.n)
	default: // total not known ahead
		fmt.Fprintf(&b, "run %d", m.i)
	}
	if m.label != "" {
		b.WriteString(" " + m.label)
	}
	if m.phase != "" {
		b.WriteString(": " + m.phase)
		if m.expect > 0 {
			left := m.expect - now.Sub(m.phaseStart)
			if left < 0 {
				fmt.Fprintf(&b, ", %s over the expected %s", (-left).Round(time.Second), m.expect.Round(time.Second))
			} else {
				fmt.Fprintf(&b, ", %s left", left.Round(time.Second))
			}
		}
	}
	if eta, ok := m.eta(now); ok {
		fmt.Fprintf(&b, "; ETA %s", eta.Round(time.Second))
	} else if m.n > 0 {
		b.WriteString("; ETA after the first run")
	}
	return b.String()
}

// eta is the time left for all n runs: the mean duration of the finished
// runs times the runs neither finished nor read back, less the time the
// current run has taken so far. Unknown until a run has finished.
func (m *Meter) eta(now time.Time) (time.Duration, bool) {
	if m.finished == 0 || m.n == 0 {
		return 0, false
	}
	mean := m.finishedDur / time.Duration(m.finished)
	left := mean*time.Duration(m.n-m.finished-m.resumed) - now.Sub(m.runStart)
	return max(left, 0), true
}

// tick refreshes the countdown of the bar once a second.
func (m *Meter) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.mu.Lock()
			if m.tr != nil {
				m.tr.UpdateMessage(m.message(m.now()))
			}
			m.mu.Unlock()
		}
	}
}

// Write prints log lines: above the bar, or as they are in plain mode.
func (m *Meter) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pw == nil || m.tr == nil { // no bar (yet): lines go straight out
		return m.w.Write(p)
	}
	m.partial = append(m.partial, p...)
	for {
		i := bytes.IndexByte(m.partial, '\n')
		if i < 0 {
			break
		}
		m.pw.Log("%s", string(m.partial[:i]))
		m.partial = m.partial[i+1:]
	}
	return len(p), nil
}

// Stop ends the bar (marking the tracker done) and the countdown; plain
// mode prints the total time. Safe to call more than once.
func (m *Meter) Stop() {
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	m.stopped = true
	close(m.stop)
	if m.pw != nil {
		if len(m.partial) > 0 {
			m.pw.Log("%s", string(m.partial))
		}
		if m.tr != nil {
			m.tr.UpdateMessage(fmt.Sprintf("%d runs in %s", m.i, m.now().Sub(m.firstStart).Round(time.Second)))
			m.tr.MarkAsDone()
		}
		pw := m.pw
		m.mu.Unlock()
		// Let the renderer draw the final state, then stop it.
		time.Sleep(600 * time.Millisecond)
		pw.Stop()
		for pw.IsRenderInProgress() {
			time.Sleep(50 * time.Millisecond)
		}
		return
	}
	if m.i > 0 {
		fmt.Fprintf(m.w, "%d runs in %s\n", m.i, m.now().Sub(m.firstStart).Round(time.Second))
	}
	m.mu.Unlock()
}
