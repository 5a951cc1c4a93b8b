package harness

import (
	"strings"

	"github.com/stormlab/stormlab/infra/stormui"
)

// ExecutorPlace is one executor's task range and where it runs (Host "" while unplaced).
type ExecutorPlace struct {
	Component  string
	Start, End int
	Host       string
	Port       int
}

// placesOf reads the placement of a topology page of the Storm UI (system executors included).
func placesOf(t *stormui.Topology) []ExecutorPlace {
	out := make([]ExecutorPlace, 0, len(t.Executors))
	for _, e := range t.Executors {
		out = append(out, ExecutorPlace{Component: e.Component, Start: e.TaskStart, End: e.TaskEnd, Host: e.Host, Port: e.Port})
	}
	return out
}

// placementOf turns executor places into task -> host, leaving out system components (__acker,
// __system, ...): the cut rate counts topology tuples.
func placementOf(execs []ExecutorPlace) taskPlacement {
	p := taskPlacement{}
	for _, e := range execs {
		if strings.HasPrefix(e.Component, "__") {
			continue
		}
		for t := e.Start; t <= e.End; t++ {
			p[t] = e.Host
		}
	}
	return p
}
