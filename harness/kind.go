package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/control"
)

// Kind is one kind of cluster: how to open one, and what it offers. A new kind (a simulated cluster)
// is a package with a Kind and one line in the registry, harness/clusters.
type Kind struct {
	// Open gives the cluster cs describes (cs.Where names it); scheduler runs the topologies that name
	// none. On error the returned Cluster (possibly partial) must still be closed; it is nil only when
	// nothing was started or opened.
	Open func(ctx context.Context, cs ClusterSpec, scheduler string) (Cluster, error)
	// Caps is what a cluster of this kind at where offers.
	Caps func(where clusterref.Ref) clusterref.Caps
	// Check refuses what this kind cannot do with spec, before anything is opened; nil checks nothing.
	Check func(where clusterref.Ref, spec RunSpec) error
	// Existing: the cluster exists before the run (a user's), so failing to reach it is bad input (a
	// refused run), not a failure of the run.
	Existing bool
}

// Kinds is a registry of cluster kinds by name: harness/clusters.Kinds lists them.
type Kinds map[clusterref.Kind]Kind

// Disturber disturbs a cluster on purpose: Inject starts a fault (fault.Fault: the faults of a
// measurement window, background load, stragglers) and returns its undo; what the cluster cannot do
// it refuses, naming what to add.
type Disturber interface {
	Inject(ctx context.Context, f fault.Fault) (control.Undo, error)
}

// Kind is the registry's entry for where, or an error naming the kinds it knows.
func (k Kinds) Kind(where clusterref.Ref) (Kind, error) {
	name := where.Kind
	if name == "" {
		name = clusterref.Containers
	}
	if kind, ok := k[name]; ok {
		return kind, nil
	}
	var known []string
	for n := range k {
		known = append(known, string(n))
	}
	slices.Sort(known)
	return Kind{}, fmt.Errorf("--cluster %s: unknown kind of cluster %q; known: %s", where, name, strings.Join(known, ", "))
}

// Caps is what the cluster at where offers.
func (k Kinds) Caps(where clusterref.Ref) (clusterref.Caps, error) {
	kind, err := k.Kind(where)
	if err != nil {
		return clusterref.Caps{}, err
	}
	return kind.Caps(where), nil
}

// Open gives the cluster cs.Where names (see Kind.Open).
func (k Kinds) Open(ctx context.Context, cs ClusterSpec, scheduler string) (Cluster, error) {
	kind, err := k.Kind(cs.Where)
	if err != nil {
		return nil, err
	}
	return kind.Open(ctx, cs, scheduler)
}

// RunOnNew opens the cluster cs describes, runs spec on it and always closes it: containers and
// networks it made are removed, also when the run fails or ctx is cancelled (interrupt).
func (k Kinds) RunOnNew(ctx context.Context, cs ClusterSpec, spec RunSpec) (res *RunResult, err error) {
	kind, err := k.Kind(cs.Where)
	if err != nil {
		return nil, err
	}
	if kind.Check != nil {
		if err := kind.Check(cs.Where, spec); err != nil { // refused before the cluster is reached
			return nil, &RunError{Topology: spec.Topology.Name, Stage: stageSpec, Err: err}
		}
	}
	c, err := kind.Open(ctx, cs, spec.Scheduler)
	if c != nil {
		defer func() {
			if cerr := c.Close(ctx); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}()
	}
	if err != nil && kind.Existing {
		return nil, &RunError{Topology: spec.Topology.Name, Stage: stageSpec, Err: err}
	}
	if err != nil {
		return nil, err
	}
	return c.Run(ctx, spec)
}

// Containers is the kind of clusters of containers this process starts (a Session), of cs.Shape.
func Containers() Kind {
	return Kind{
		Open: func(ctx context.Context, cs ClusterSpec, scheduler string) (Cluster, error) {
			s, err := StartSession(ctx, cs, scheduler)
			if s == nil {
				return nil, err
			}
			return s, err
		},
		Caps: func(clusterref.Ref) clusterref.Caps {
			return clusterref.Caps{Control: true, Delay: true, OwnShapes: true}
		},
	}
}

// Targets is the kind of existing Storm clusters reached through a target file (where.Target, loaded
// by clusterref.Resolve): control when the file has a control section.
func Targets() Kind {
	return Kind{
		Open:     openTargetKind,
		Existing: true,
		Caps: func(where clusterref.Ref) clusterref.Caps {
			return clusterref.Caps{Control: where.Target != nil && where.Target.Control != nil}
		},
		Check: func(where clusterref.Ref, spec RunSpec) error {
			if where.Target == nil {
				return fmt.Errorf("--cluster %s: the target file is not loaded", where)
			}
			return CheckTargetFaults(where.Target, spec.Faults)
		},
	}
}

func openTargetKind(ctx context.Context, cs ClusterSpec, scheduler string) (Cluster, error) {
	if cs.Where.Target == nil {
		return nil, fmt.Errorf("--cluster %s: the target file is not loaded (clusterref.Resolve loads it)", cs.Where)
	}
	opts, err := cs.optionsJSON()
	if err != nil {
		return nil, err
	}
	tc, err := openTarget(ctx, cs.Where.Target, cs.Logf)
	if err != nil {
		return nil, err
	}
	return &targetSession{tc: tc, scheduler: scheduler, choice: serviceChoice{options: opts, every: cs.rescheduleEvery()}}, nil
}
