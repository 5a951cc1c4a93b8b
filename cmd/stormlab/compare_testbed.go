package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/stormlab/stormlab/experiments/compare"
)

// checkTestbeds warns, one stderr line per experiment, where base and new
// were measured on different testbeds (host cores or CPU model, cluster,
// supervisors: compare.Testbed). The gate (gate: --fail-on-regression)
// refuses to judge them: a nightly runner's hardware can change between
// nights, and a difference it makes is no regression. Where the host ran at
// another speed (compare.SpeedDiffs) it warns too, and the gate still
// judges: a shared machine's speed moves within minutes.
func checkTestbeds(stderr io.Writer, baseDir, newDir string, gate bool) error {
	diffs, speeds, err := compare.CompareTestbeds(baseDir, newDir)
	if err != nil {
		return err
	}
	for _, d := range diffs {
		fmt.Fprintf(stderr, "warning: measured on different testbeds: %s\n", d)
	}
	for _, d := range speeds {
		fmt.Fprintf(stderr, "warning: the host ran at another speed, a difference may be the host's: %s\n", d)
	}
	if gate && len(diffs) > 0 {
		names := make([]string, len(diffs))
		for i, d := range diffs {
			names[i], _, _ = strings.Cut(d, ": ")
		}
		return fmt.Errorf("the gate does not judge results measured on different testbeds (%s, warned above): "+
			"run base and new on one testbed (the same runner or target file), or make NEW the baseline", strings.Join(names, ", "))
	}
	return nil
}
