package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/stormlab/stormlab/harness"
)

// liveLines is the live progress of a run for stderr when stderr is a terminal (one line per report
// interval: phase, acked rate, p99, decisions, offered rate), else nil: logs and pipes get no ticker.
func liveLines(stderr io.Writer) func(harness.Live) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return func(l harness.Live) { fmt.Fprintf(stderr, "run: live: %s\n", l) }
}
