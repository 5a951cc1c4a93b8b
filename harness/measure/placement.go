package measure

import (
	"fmt"
	"strings"
)

// ExecutorPlace is one executor's task range and where it runs (Host "" while unplaced), as Nimbus
// reports it: what the cut rate and a fault's moved executors are counted from.
type ExecutorPlace struct {
	Component  string
	Start, End int
	Host       string
	Port       int
}

func (e ExecutorPlace) key() string { return fmt.Sprintf("%s[%d-%d]", e.Component, e.Start, e.End) }

// Placement is where each task ran, read from Nimbus: task id -> node (supervisor host name). Tasks
// of system components are left out, so traffic to ackers and metrics tasks does not count towards
// the cut rate.
type Placement map[int]string

// PlacementOf turns executor places into task -> host, leaving out system components (__acker,
// __system, ...): the cut rate counts topology tuples.
func PlacementOf(execs []ExecutorPlace) Placement {
	p := Placement{}
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
