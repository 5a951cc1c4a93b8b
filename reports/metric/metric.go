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

// Statistical units: what one independent value is. The unit is a
// property of an experiment's design (instance x repetition), not of a
// metric: cut_rate is per run on a cluster and per graph in a partition
// sweep. An experiment declares it (lab.Spec.Unit), manifest.json records
// it ("unit"), and tables, claims and stormlab compare count n in it.
const (
	// UnitRun: every repetition is independent (a cluster run: its own
	// topology, workers and measurement window).
	UnitRun = "run"
	// UnitInstance: the repetitions on one problem instance (a generated
	// graph, named by its instance number and seed) share it and are
	// averaged; the instance is the unit.
	UnitInstance = "instance"
)

// CheckUnit refuses anything but UnitRun and UnitInstance.
func CheckUnit(u string) error {
	if u != UnitRun && u != UnitInstance {
		return fmt.Errorf("statistical unit %q: use %q (every repetition independent) or %q (repetitions on one instance averaged)", u, UnitRun, UnitInstance)
	}
	return nil
}

// Aggregations: how an experiment folds a unit's values (and repetitions).
const (
	Mean = "mean" // mean over units, 95% CI of the mean (Student's t)
)

// Metric is one registered metric.
type Metric struct {
	Name      string
	Unit      string // physical unit, e.g. "ms", "tuples/s", "1" for ratios
	Direction Direction
	Aggregate string // Mean
}

// registry: every metric name the experiments (lab.Spec.Metrics)
// and `stormlab run` (run.json's measurement, see harness.Measurement)
// write. What one independent value is (a run, a graph) is the
// experiment's, not the metric's (UnitRun, UnitInstance).
var registry = []Metric{
	// cluster runs: harness.Measurement
	{"throughput", "tuples/s", HigherBetter, Mean},
	{"latency_mean_ms", "ms", LowerBetter, Mean},
	{"latency_p50_ms", "ms", LowerBetter, Mean},
	{"latency_p99_ms", "ms", LowerBetter, Mean},
	{"cut_rate", "1", LowerBetter, Mean},
	{"balance", "% of capacity", LowerBetter, Mean},
	{"inter_node_rate", "tuples/s", LowerBetter, Mean},
	{"inter_node_tps", "tuples/s", LowerBetter, Mean},
	{"processing_ms", "ms", LowerBetter, Mean},
	{"qos_rate", "1", LowerBetter, Mean},
	{"nodes_used", "nodes", Stable, Mean},
	// deadline
	{"dataset_s", "s", LowerBetter, Mean},
	{"proc_ms", "ms", LowerBetter, Mean},
	{"qos_pct", "% of deadline", LowerBetter, Mean},
	{"qos_node_max_pct", "% of deadline", LowerBetter, Mean},
	{"misses", "tuples", LowerBetter, Mean},
	{"migrations", "executors", Stable, Mean},
	{"load_applied_pct", "% of the level asked", Stable, Mean},
	// recovery
	{"recovery_s", "s", LowerBetter, Mean},
	{"recovered", "1", HigherBetter, Mean},
	{"lost_pct", "% of pre-fault throughput", LowerBetter, Mean},
	{"lost_tuples", "tuples", LowerBetter, Mean},
	{"failed_tuples", "tuples", LowerBetter, Mean},
	{"executors_moved", "executors", Stable, Mean},
	{"pre_tput", "tuples/s", HigherBetter, Mean},
	// load-curve: open-loop runs
	{"offered_tps", "tuples/s", Stable, Mean},
	{"latency_intended_p50_ms", "ms", LowerBetter, Mean},
	{"latency_intended_p99_ms", "ms", LowerBetter, Mean},
	{"send_lag_p99_ms", "ms", LowerBetter, Mean},
	{"sustainable", "1", HigherBetter, Mean},
	// observer
	{"failed", "tuples", LowerBetter, Mean},
	// sim-validation: all nodes' CPU and bytes sent per acked tuple
	{"cpu_us_per_tuple", "µs", LowerBetter, Mean},
	{"link_bytes_per_tuple", "bytes", LowerBetter, Mean},
	// partition experiments
	{"std", "weight", LowerBetter, Mean},
	{"max_dev", "1", LowerBetter, Mean},
	{"max_over", "1", LowerBetter, Mean},
	{"empty_parts", "parts", LowerBetter, Mean},
	{"cut_ratio", "1", LowerBetter, Mean},
	// spd: costs over a lower bound, resources over c
	{"ratio", "1", LowerBetter, Mean},
	{"proc_ratio", "1", LowerBetter, Mean},
	{"used", "1", LowerBetter, Mean},
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
