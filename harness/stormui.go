package harness

import (
	"github.com/stormlab/stormlab/infra/stormui"
)

// placesOf reads the placement of a topology page of the Storm UI (system executors included).
func placesOf(t *stormui.Topology) []ExecutorPlace {
	out := make([]ExecutorPlace, 0, len(t.Executors))
	for _, e := range t.Executors {
		out = append(out, ExecutorPlace{Component: e.Component, Start: e.TaskStart, End: e.TaskEnd, Host: e.Host, Port: e.Port})
	}
	return out
}
