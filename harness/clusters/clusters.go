// Package clusters is the registry of the kinds of cluster runs go to: one line per kind. Commands
// and experiments open clusters through it (Kinds().Open, RunOnNew) and ask it what a cluster offers
// (Caps), never for a kind by name.
package clusters

import (
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/clusterref"
)

// Kinds lists every kind of cluster (a new kind: its package's Kind, one line here).
func Kinds() harness.Kinds {
	return harness.Kinds{
		clusterref.Containers: harness.Containers(), // containers this process starts (infra/docker)
		clusterref.Target:     harness.Targets(),    // an existing Storm cluster through its target file
		simcluster.KindName:   simcluster.Kind(),    // a simulated cluster (infra/sim), sim:NAME
	}
}
