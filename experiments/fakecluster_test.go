package experiments

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/control"
)

// fakeCluster is a kind of cluster that runs nothing and records every call made to it, so a test can
// see what an experiment asks of a cluster without a Docker engine.
type fakeCluster struct {
	calls []string
}

func (f *fakeCluster) record(format string, a ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, a...))
}

func (f *fakeCluster) Run(_ context.Context, spec harness.RunSpec) (*harness.RunResult, error) {
	f.record("run %s %s", spec.Scheduler, spec.Topology.Name)
	m := harness.Measurement{Throughput: 100, LatencyMean: 5, LatencyP99: 9, CutRate: 0.5, Balance: 1}
	return &harness.RunResult{TopologyID: spec.Topology.Name + "-1", Measurement: m}, nil
}

func (f *fakeCluster) Capacity() map[string]float64 {
	f.record("capacity")
	return map[string]float64{"n1": 100, "n2": 100}
}

func (f *fakeCluster) Nemesis() harness.Disturber { f.record("nemesis"); return f }

func (f *fakeCluster) Inject(_ context.Context, ft fault.Fault) (control.Undo, error) {
	f.record("inject %s", ft)
	return func(context.Context) error { return nil }, nil
}

func (f *fakeCluster) StartNodeCPUReports(context.Context, time.Duration) (func() error, error) {
	f.record("node cpu reports")
	return func() error { return nil }, nil
}

func (f *fakeCluster) Close(context.Context) error { f.record("close"); return nil }

// fakeKinds is the registry with one more kind, "fake", whose opens are recorded too.
func fakeKinds(f *fakeCluster, caps clusterref.Caps) harness.Kinds {
	return harness.Kinds{"fake": {
		Open: func(_ context.Context, cs harness.ClusterSpec, scheduler string) (harness.Cluster, error) {
			f.record("open %s for %s", cs.Where, scheduler)
			return f, nil
		},
		Caps: func(clusterref.Ref) clusterref.Caps { return caps },
	}}
}

// TestExperimentOnFakeCluster: an experiment runs on any kind of cluster of the registry without
// knowing it: smoke on a fake kind opens it once, runs its two schedulers on it, and closes it.
func TestExperimentOnFakeCluster(t *testing.T) {
	f := &fakeCluster{}
	where, err := clusterref.Parse("fake:lab")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := Lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), spec, lab.Options{Log: io.Discard, Scale: "ci", Cluster: where, Kinds: fakeKinds(f, clusterref.Caps{})})
	if err != nil {
		t.Fatalf("smoke on the fake cluster: %v", err)
	}
	want := []string{"open fake:lab for storm-even", "run storm-even smoke-0", "run kpart smoke-1", "close"}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
	if n := len(rep.Results.Rows); n != 2 {
		t.Errorf("%d rows, want one per scheduler", n)
	}
}

// TestExperimentRefusesAnUnknownKind: a kind the registry does not know is refused before any run,
// naming the kinds it knows.
func TestExperimentRefusesAnUnknownKind(t *testing.T) {
	spec, err := Lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	where, _ := clusterref.Parse("moon:big")
	_, err = Run(context.Background(), spec, lab.Options{Log: io.Discard, Scale: "ci", Cluster: where})
	if err == nil || !strings.Contains(err.Error(), `unknown kind of cluster "moon"; known: containers, sim, target`) {
		t.Errorf("Run on moon:big: %v, want the kinds named", err)
	}
}
