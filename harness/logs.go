package harness

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// logFiles is where a cluster keeps its daemons' logs, as data (Jepsen's db/logFiles protocol, kept
// apart from the lifecycle): the names of the logs and each one's text. infra/docker.Cluster has it.
type logFiles interface {
	LogNames() []string
	Log(ctx context.Context, name string) (string, error)
}

// logTail is the end of one daemon's log.
type logTail struct {
	Name  string `json:"name"`
	Lines string `json:"lines"`
	Err   string `json:"error,omitempty"` // the log could not be read
}

// logTails returns the last n lines of every log (bounded by 10 s each, on a context that survives
// cancellation, so a failed or interrupted run still gets them).
func logTails(ctx context.Context, lf logFiles, n int) []logTail {
	var out []logTail
	for _, name := range lf.LogNames() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		text, err := lf.Log(tctx, name)
		cancel()
		t := logTail{Name: name, Lines: lastLines(text, n)}
		if err != nil {
			t.Err = err.Error()
		}
		out = append(out, t)
	}
	return out
}

// formatTails renders the tails for a terminal, one header per log.
func formatTails(tails []logTail) string {
	var b strings.Builder
	for _, t := range tails {
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

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
