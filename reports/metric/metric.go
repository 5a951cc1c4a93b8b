package metric

import (
	"fmt"
	"slices"
	"strings"
)

// Direction says which change of a metric is better.
type Direction int

const (
	// LowerBetter: latency, cut rate, cost, imbalance.
	LowerBetter Direction = iota + 1
	// HigherBetter: throughput, recovered runs.
	HigherBetter
	// Stable: a descriptive quantity (nodes used, executors moved) with no
	// better side; a significant change means the system or its inputs
	// changed, and a gate reports it as "changed".
	Stable
)

func (d Direction) String() string {
	switch d {
	case LowerBetter:
		return "lower is better"
	case HigherBetter:
		return "higher is better"
	case Stable:
		return "should not change"
	}
	return "unknown direction"
}

// Statistical units: what one independent value of a metric is.
const (
	UnitRun      = "run"            // one cluster run (its measurement window)
	UnitInstance = "graph instance" // one generated graph or problem instance
)

// Aggregations: how an experiment folds a unit's values (and repetitions).
const (
	Mean = "mean" // mean over units, 95% CI of the mean (Student's t)
)

// Metric is one registered metric.
type Metric struct {
	Name      string
	Unit      string // physical unit, e.g. "ms", "tuples/s", "1" for ratios
	Direction Direction
	StatUnit  string // UnitRun or UnitInstance
	Aggregate string // Mean
}

// registry: every metric name the experiments (experiments.Spec.Metrics)
// and `stormlab run` (run.json's measurement, see harness.Measurement)
// write. cut_rate is both a run metric (cluster experiments) and a graph
// metric (partition experiments); its entry names the run, the more common.
var registry = []Metric{
	// cluster runs: harness.Measurement
	{"throughput", "tuples/s", HigherBetter, UnitRun, Mean},
	{"latency_mean_ms", "ms", LowerBetter, UnitRun, Mean},
	{"latency_p99_ms", "ms", LowerBetter, UnitRun, Mean},
	{"cut_rate", "1", LowerBetter, UnitRun, Mean},
	{"balance", "% of capacity", LowerBetter, UnitRun, Mean},
	{"inter_node_rate", "tuples/s", LowerBetter, UnitRun, Mean},
	{"inter_node_tps", "tuples/s", LowerBetter, UnitRun, Mean},
	{"processing_ms", "ms", LowerBetter, UnitRun, Mean},
	{"qos_rate", "1", LowerBetter, UnitRun, Mean},
	{"nodes_used", "nodes", Stable, UnitRun, Mean},
	// deadline
	{"dataset_s", "s", LowerBetter, UnitRun, Mean},
	{"proc_ms", "ms", LowerBetter, UnitRun, Mean},
	{"qos_pct", "% of deadline", LowerBetter, UnitRun, Mean},
	{"qos_node_max_pct", "% of deadline", LowerBetter, UnitRun, Mean},
	{"misses", "tuples", LowerBetter, UnitRun, Mean},
	{"migrations", "executors", Stable, UnitRun, Mean},
	// recovery
	{"recovery_s", "s", LowerBetter, UnitRun, Mean},
	{"recovered", "1", HigherBetter, UnitRun, Mean},
	{"lost_pct", "% of pre-fault throughput", LowerBetter, UnitRun, Mean},
	{"lost_tuples", "tuples", LowerBetter, UnitRun, Mean},
	{"failed_tuples", "tuples", LowerBetter, UnitRun, Mean},
	{"executors_moved", "executors", Stable, UnitRun, Mean},
	{"pre_tput", "tuples/s", HigherBetter, UnitRun, Mean},
	// load-curve: open-loop runs
	{"offered_tps", "tuples/s", Stable, UnitRun, Mean},
	{"latency_intended_p50_ms", "ms", LowerBetter, UnitRun, Mean},
	{"latency_intended_p99_ms", "ms", LowerBetter, UnitRun, Mean},
	{"send_lag_p99_ms", "ms", LowerBetter, UnitRun, Mean},
	{"sustainable", "1", HigherBetter, UnitRun, Mean},
	// observer
	{"failed", "tuples", LowerBetter, UnitRun, Mean},
	// partition experiments
	{"std", "weight", LowerBetter, UnitInstance, Mean},
	{"max_dev", "1", LowerBetter, UnitInstance, Mean},
	{"max_over", "1", LowerBetter, UnitInstance, Mean},
	{"empty_parts", "parts", LowerBetter, UnitInstance, Mean},
	{"cut_ratio", "1", LowerBetter, UnitInstance, Mean},
	// spd: costs over a lower bound, resources over c
	{"ratio", "1", LowerBetter, UnitInstance, Mean},
	{"proc_ratio", "1", LowerBetter, UnitInstance, Mean},
	{"used", "1", LowerBetter, UnitInstance, Mean},
}

// Lookup returns the registered metric called name.
func Lookup(name string) (Metric, bool) {
	i := slices.IndexFunc(registry, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return registry[i], true
}

// All returns every registered metric, in registry order.
func All() []Metric { return slices.Clone(registry) }

// Check returns an error naming every name not in the registry, for tests
// and writers that must refuse an unknown metric.
func Check(names ...string) error {
	var unknown []string
	for _, n := range names {
		if _, ok := Lookup(n); !ok && !slices.Contains(unknown, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("metric %s not in the registry: add it to reports/metric with its unit and direction", strings.Join(unknown, ", "))
	}
	return nil
}
