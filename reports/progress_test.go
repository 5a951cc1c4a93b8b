package reports

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// A fake clock drives the plain Meter: run 1 takes 100 s, so at the start
// of run 2 of 3 the ETA is 2 runs x 100 s = 200 s; 30 s into run 2's 60 s
// measure phase the countdown says 30 s left and the ETA 170 s.
func TestMeterPlain(t *testing.T) {
	var b strings.Builder
	m := NewMeter(&b, false)
	now := time.Unix(0, 0)
	m.now = func() time.Time { return now }
	m.Run(1, 3, "even rep 0")
	m.Phase("cluster up", 0)
	now = now.Add(100 * time.Second)
	m.Run(2, 3, "kpart rep 0")
	now = now.Add(10 * time.Second)
	m.Phase("measure", 60*time.Second)
	now = now.Add(30 * time.Second)
	if got := m.message(now); got != "run 2/3 kpart rep 0: measure, 30s left; ETA 2m40s" {
		t.Errorf("message %q", got)
	}
	now = now.Add(60 * time.Second)
	m.Run(3, 3, "tpart rep 0")
	m.Stop()
	m.Stop() // twice is fine
	want := []string{
		"run 1/3 even rep 0; ETA after the first run",
		"run 1/3 even rep 0: cluster up; ETA after the first run",
		"run 2/3 kpart rep 0; ETA 3m20s",
		"run 2/3 kpart rep 0: measure, 1m0s left; ETA 3m10s",
		// mean of 100 s and 100 s, one run left
		"run 3/3 tpart rep 0; ETA 1m40s",
		"3 runs in 3m20s",
	}
	if got := strings.Split(strings.TrimSpace(b.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Runs read back (--resume) stay out of the ETA: runs 1-2 of 5 are read
// back in a second each, run 3 takes 120 s; at the start of run 4 the ETA
// is the mean of the runs actually run (120 s) times the 2 runs left.
func TestMeterResumedRuns(t *testing.T) {
	var b strings.Builder
	m := NewMeter(&b, false)
	now := time.Unix(0, 0)
	m.now = func() time.Time { return now }
	var _ Resumer = m
	for i := 1; i <= 2; i++ {
		m.Run(i, 5, "kept")
		m.Resumed()
		m.Resumed() // twice for one run counts once
		now = now.Add(time.Second)
	}
	m.Run(3, 5, "run")
	if got := m.message(now); got != "run 3/5 run; ETA after the first run" {
		t.Errorf("after two resumed runs: %q", got)
	}
	now = now.Add(120 * time.Second)
	m.Run(4, 5, "run")
	if got := m.message(now); got != "run 4/5 run; ETA 4m0s" {
		t.Errorf("after one real run: %q", got)
	}
	m.Stop()
}

// The bar mode draws (go-pretty) and passes log lines through above it.
func TestMeterBar(t *testing.T) {
	var b syncBuilder
	m := NewMeter(&b, true)
	m.Run(1, 2, "even")
	m.Phase("measure", time.Minute)
	if _, err := m.Write([]byte("a log line\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	m.Stop()
	out := b.String()
	for _, want := range []string{"a log line", "run 1/2 even: measure", "left"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar output lacks %q:\n%s", want, out)
		}
	}
}

// syncBuilder is a strings.Builder safe for the renderer's goroutine.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Without a total (n = 0) the Meter counts runs and gives no ETA; a phase
// before the first run says "starting".
func TestMeterUnknownTotal(t *testing.T) {
	var b strings.Builder
	m := NewMeter(&b, false)
	m.Phase("cluster up for even", 0)
	m.Run(1, 0, "even")
	m.Run(2, 0, "kpart")
	m.Stop()
	want := "starting: cluster up for even\nrun 1 even\nrun 2 kpart\n2 runs in 0s\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
