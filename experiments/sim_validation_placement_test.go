package experiments

import (
	"testing"

	"github.com/stormlab/stormlab/harness"
)

// TestPlacedOtherwise: a simulated run placed alike when every host holds as many executors of each
// component as in the real run, whatever the slots and task numbers; otherwise both are described.
// The mirrored case is K-PART's WordCount on two starts of heterogeneous-2 (the quick sim-validation,
// 2026-12-05), cut to two components.
func TestPlacedOtherwise(t *testing.T) {
	run := func(places ...harness.ExecutorPlace) *harness.RunResult { return &harness.RunResult{Executors: places} }
	real := run(harness.ExecutorPlace{Component: "count", Start: 5, End: 8, Host: "sup1", Port: 6700},
		harness.ExecutorPlace{Component: "sentence", Start: 13, End: 13, Host: "sup2", Port: 6701})
	for _, tc := range []struct {
		name string
		sim  *harness.RunResult
		want string
	}{
		{"same", real, ""},
		{"other slots and tasks, same hosts", run(harness.ExecutorPlace{Component: "count", Start: 5, End: 6, Host: "sup1", Port: 6701},
			harness.ExecutorPlace{Component: "count", Start: 7, End: 8, Host: "sup1", Port: 6700},
			harness.ExecutorPlace{Component: "sentence", Start: 13, End: 13, Host: "sup2", Port: 6700}), ""},
		{"mirrored", run(harness.ExecutorPlace{Component: "count", Start: 5, End: 8, Host: "sup2", Port: 6700},
			harness.ExecutorPlace{Component: "sentence", Start: 13, End: 13, Host: "sup1", Port: 6701}),
			"real sup1 (count 4); sup2 (sentence 1), simulated sup1 (sentence 1); sup2 (count 4)"},
	} {
		if got := placedOtherwise(real, tc.sim); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
