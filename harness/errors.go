package harness

import (
	"errors"
	"fmt"

	"github.com/stormlab/stormlab/infra/tail"
)

// Stages of a run, for RunError.Stage: they name, in the error text, where a run failed (callers act on
// RunError.Refused).
const (
	stageSubmit  = "submit"       // copying the jar and running its main class in Nimbus
	stageStart   = "start"        // waiting until every executor runs
	stageWorkers = "workers"      // waiting until every worker is ready (see unready)
	stageWarmUp  = "warm-up"      // waiting for steady throughput
	stageWindow  = "window"       // the measurement window (or the dataset)
	stageCollect = "collect"      // reading reports, placement, service state and Storm's statistics
	stageKill    = "kill"         // killing the topology afterwards
	stageIdle    = "wait idle"    // before the run: the previous topology and workers must be gone
	stageSpec    = "bad run spec" // the spec was refused before anything started
)

// RunError is why a run failed: the stage, the topology and the cause (wrapped: errors.Is and
// errors.As see through it). Logs holds the last lines of every daemon's log at the time of failure
// (Session.Run fills it), as data for the caller to show; Error() stays one line.
type RunError struct {
	Topology string
	Stage    string
	Err      error
	Logs     []logTail
}

func (e *RunError) Error() string {
	return fmt.Sprintf("run %s: %s: %v", e.Topology, e.Stage, e.Err)
}

func (e *RunError) Unwrap() error { return e.Err }

// Refused reports whether the run was refused before anything was submitted (a bad spec, or a target
// that cannot take it).
func (e *RunError) Refused() bool { return e.Stage == stageSpec }

// LogText renders Logs for a terminal, one header per daemon log ("" when there are none).
func (e *RunError) LogText() string { return tail.Format(e.Logs) }

// errNotIdle is wrapped by waitIdle's error when the cluster did not become idle in time.
var errNotIdle = errors.New("cluster not idle")

// errDatasetUnfinished is wrapped when a bounded run's dataset was not processed within its limit.
var errDatasetUnfinished = errors.New("dataset not processed in time")
