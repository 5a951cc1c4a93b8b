package metric_test

import (
	"testing"

	"github.com/stormlab/stormlab/experiments"
	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/reports/metric"
)

// Every metric a registered experiment writes is in the registry: an
// unknown metric is an error here, so a new experiment cannot ship one the
// tables, claims and compare would not know.
func TestRegistryCoversExperiments(t *testing.T) {
	for _, s := range experiments.List() {
		if len(s.Metrics) == 0 {
			t.Errorf("experiment %s declares no metrics", s.Name)
		}
		for _, m := range s.Metrics {
			if err := metric.Check(m.Name); err != nil {
				t.Errorf("experiment %s: %v", s.Name, err)
			}
		}
	}
}

// Every registered experiment declares a known statistical unit; those on
// generated graphs in process (they need nothing) average a graph's
// repetitions (UnitInstance), the cluster ones count runs (UnitRun, the
// default).
func TestExperimentsDeclareUnit(t *testing.T) {
	for _, s := range experiments.List() {
		u := s.Unit
		if u == "" {
			u = metric.UnitRun
		}
		if err := metric.CheckUnit(u); err != nil {
			t.Errorf("experiment %s: %v", s.Name, err)
		}
		if graphs := s.Needs.Need == lab.NeedsNothing; graphs != (u == metric.UnitInstance) {
			t.Errorf("experiment %s: unit %q, want %q for an experiment on generated graphs, else %q", s.Name, u, metric.UnitInstance, metric.UnitRun)
		}
	}
}
