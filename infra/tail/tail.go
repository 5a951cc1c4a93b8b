// Package tail keeps the last lines of command output and of daemons' logs, for error messages: a
// failed step shows the end of what it printed, not all of it.
package tail

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Lines is the last n lines of s (its trailing newlines dropped).
func Lines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Log is the end of one daemon's log.
type Log struct {
	Name  string `json:"name"`
	Lines string `json:"lines"`
	Err   string `json:"error,omitempty"` // the log could not be read
}

// Logs are where a cluster keeps its daemons' logs, as data (Jepsen's db/logFiles protocol, kept apart
// from the lifecycle): the names of the logs and each one's text.
type Logs interface {
	LogNames() []string
	Log(ctx context.Context, name string) (string, error)
}

// Of returns the last n lines of every log of lf (bounded by 10 s each, on a context that survives
// cancellation, so a failed or interrupted run still gets them).
func Of(ctx context.Context, lf Logs, n int) []Log {
	var out []Log
	for _, name := range lf.LogNames() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		text, err := lf.Log(tctx, name)
		cancel()
		t := Log{Name: name, Lines: Lines(text, n)}
		if err != nil {
			t.Err = err.Error()
		}
		out = append(out, t)
	}
	return out
}

// Format renders logs for a terminal, one header per log.
func Format(logs []Log) string {
	var b strings.Builder
	for _, t := range logs {
		fmt.Fprintf(&b, "--- %s ---\n", t.Name)
		if t.Err != "" {
			fmt.Fprintf(&b, "(log unavailable: %s)\n", t.Err)
		}
		if t.Lines != "" {
			fmt.Fprintln(&b, t.Lines)
		}
	}
	return b.String()
}
