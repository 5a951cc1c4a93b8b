// Package testsettings is the one place that reads the settings of `go test` runs from the process
// environment (go test passes no flags of its own to them): the scale the experiments run at, where
// their results go, where they run, and which cluster experiments run on containers under ci. Every
// other package takes these as values.
//
//	STORMLAB_SCALE=ci|quick|full   the experiments' scale (default ci: tiny, every claim inconclusive)
//	STORMLAB_OUT=DIR               keep the experiments' results in DIR/<experiment>/ (default: a
//	                               temporary folder removed after the test; never the checkout's results/)
//	STORMLAB_CLUSTER=target:FILE   run the cluster experiments on an existing cluster (default: containers)
//	STORMLAB_CONTAINERS=a,b|all    under ci, also run these cluster experiments on containers (by
//	                               default cmd/stormlab's target tests run them through a standing cluster)
//
// STORMLAB_PROFILE, the old name of STORMLAB_SCALE, is read when STORMLAB_SCALE is unset, with a warning.
package testsettings

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/clusterref"
)

// The environment variables read here, and the scale tests run at by default.
const (
	ScaleEnv      = "STORMLAB_SCALE"
	OldScaleEnv   = "STORMLAB_PROFILE" // deprecated name of ScaleEnv
	OutEnv        = "STORMLAB_OUT"
	ClusterEnv    = "STORMLAB_CLUSTER"
	ContainersEnv = "STORMLAB_CONTAINERS"
	DefaultScale  = "ci"
)

// Scale is the scale the experiments' tests run at (validated by the experiments' Run).
func Scale(t testing.TB) string {
	t.Helper()
	if s := strings.TrimSpace(os.Getenv(ScaleEnv)); s != "" {
		return s
	}
	if s := strings.TrimSpace(os.Getenv(OldScaleEnv)); s != "" {
		t.Logf("$%s is deprecated and goes in the next minor release: use $%s", OldScaleEnv, ScaleEnv)
		return s
	}
	return DefaultScale
}

// Out is the results base folder of an experiment's test: $STORMLAB_OUT when set, else a temporary
// folder removed after the test, so a test never replaces a user's results.
func Out(t testing.TB) string {
	if d := os.Getenv(OutEnv); d != "" {
		return d
	}
	return t.TempDir()
}

// Cluster is where the cluster experiments' tests run: $STORMLAB_CLUSTER, else containers.
func Cluster(t testing.TB) clusterref.Ref {
	t.Helper()
	r, err := clusterref.Resolve(os.Getenv(ClusterEnv))
	if err != nil {
		t.Fatalf("$%s: %v", ClusterEnv, err)
	}
	return r
}

// OnContainersUnderCI reports whether the cluster experiment name runs on containers under the ci
// scale ($STORMLAB_CONTAINERS lists it, or says all); why says how to ask for it when it does not.
func OnContainersUnderCI(name string) (ok bool, why string) {
	list := strings.Split(os.Getenv(ContainersEnv), ",")
	if slices.Contains(list, name) || slices.Contains(list, "all") {
		return true, ""
	}
	return false, fmt.Sprintf("%s=%s (or %s=%s) runs it on containers here", ScaleEnv, "quick", ContainersEnv, name)
}
