package harness

import (
	"fmt"
	"strings"

	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
)

// Readiness: a run's warm-up starts once every worker of its topology runs, judged on what each worker
// can do. A worker is ready when
//   - it reported work: tuples executed, emitted, acked or failed (didWork); or
//   - it reported at all and holds only Storm's own executors (__acker, __system, ...): they may have
//     nothing to do (the acker of a topology whose spouts do not anchor never sees a tuple), and a
//     report means the worker's task hooks were prepared, so its executors run; or
//   - it reported idleReports times after the topology as a whole started working, without work of its
//     own: its tasks run but receive nothing (a fields grouping whose keys all go to other tasks), and
//     waiting longer would not change that.
//
// Requiring work of every worker instead never starts a topology that leaves a worker without a tuple to
// move: a scheduler that keeps a word count's tasks together can put its one acker alone on a worker.
const idleReports = measure.SteadyIntervals

// didWork says whether a report shows tuples moved (executed, emitted, acked or failed).
func didWork(x protocol.WorkerReport) bool {
	return len(x.Traffic) > 0 || len(x.Emits) > 0 || x.Acked > 0 || x.Failed > 0
}

// unready returns the worker slots ("host:port", in the order of workerSlots) of topology id, placed
// as execs, that the reports do not show ready (see idleReports).
func unready(reports []protocol.WorkerReport, id string, execs []ExecutorPlace) []string {
	seen, worked := map[string]bool{}, map[string]bool{}
	var firstWork int64 // time of the topology's first report with work; 0: none yet
	for _, x := range reports {
		if x.Topology != id {
			continue
		}
		k := slotKey(x.Host, x.Port)
		seen[k] = true
		if didWork(x) {
			worked[k] = true
			if firstWork == 0 || x.TimeMs < firstWork {
				firstWork = x.TimeMs
			}
		}
	}
	after := map[string]int{} // reports per slot after the topology's first work
	for _, x := range reports {
		if firstWork > 0 && x.Topology == id && x.TimeMs > firstWork {
			after[slotKey(x.Host, x.Port)]++
		}
	}
	system := systemOnly(execs)
	var out []string
	for _, sl := range workerSlots(execs) {
		if !worked[sl] && !(system[sl] && seen[sl]) && after[sl] < idleReports {
			out = append(out, sl)
		}
	}
	return out
}

// systemOnly says, per worker slot, whether all its executors are Storm's own (component "__...").
func systemOnly(execs []ExecutorPlace) map[string]bool {
	out := map[string]bool{}
	for _, e := range execs {
		k := slotKey(e.Host, e.Port)
		sys := strings.HasPrefix(e.Component, "__")
		if v, ok := out[k]; ok {
			sys = sys && v
		}
		out[k] = sys
	}
	return out
}

func slotKey(host string, port int) string { return fmt.Sprintf("%s:%d", host, port) }
