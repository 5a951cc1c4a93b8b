package clusterref

import (
	"fmt"
	"strings"

	"github.com/stormlab/stormlab/infra/target"
)

// Kind is the kind of cluster a Ref names.
type Kind string

const (
	// Containers: a cluster of containers started for the run and removed after it.
	Containers Kind = "containers"
	// Target: an existing Storm cluster, reached through its target file.
	Target Kind = "target"
)

// Ref says where cluster runs happen. The zero value is containers in each experiment's own shape.
type Ref struct {
	Kind  Kind
	Shape string // Containers: a named shape; "" is the experiment's (or command's) own
	File  string // Target: the target file's path
	Arg   string // any other kind: what follows "KIND:" (the kind's registry entry reads it)
	// Costs is, for a simulated cluster (sim:NAME), the cost-model file that charges it (--sim-costs);
	// "" is the model shipped with the project.
	Costs string
	// Target is the target file, loaded by Resolve (nil from Parse, and for containers).
	Target *target.Target
}

// Usage is the flag's help text.
const Usage = "where cluster runs happen: containers (the default), containers:SHAPE or SHAPE (e.g. heterogeneous-2), target:FILE (an existing Storm cluster's target file), sim:NAME (a simulated cluster: stormlab sim clusters)"

// Parse reads a --cluster value (see the package doc) without touching any file; "" is containers.
func Parse(s string) (Ref, error) {
	s = strings.TrimSpace(s)
	kind, arg, hasArg := strings.Cut(s, ":")
	switch {
	case s == "" || s == string(Containers):
		return Ref{Kind: Containers}, nil
	case kind == string(Containers) && hasArg:
		if arg == "" {
			return Ref{}, fmt.Errorf("--cluster %q names no shape: give containers:SHAPE, e.g. containers:heterogeneous-2", s)
		}
		return Ref{Kind: Containers, Shape: arg}, nil
	case kind == string(Target):
		if arg == "" {
			return Ref{}, fmt.Errorf("--cluster %q names no file: give target:FILE (stormlab cluster up --detach writes one)", s)
		}
		return Ref{Kind: Target, File: arg}, nil
	case hasArg:
		// Another kind: the registry of cluster kinds (harness/clusters) knows it or refuses it.
		return Ref{Kind: Kind(kind), Arg: arg}, nil
	}
	return Ref{Kind: Containers, Shape: s}, nil
}

// Resolve is Parse and, for a target, loads its file: a bad file is an error here, before any run.
func Resolve(s string) (Ref, error) {
	r, err := Parse(s)
	if err != nil || r.Kind != Target {
		return r, err
	}
	if r.Target, err = target.Load(r.File); err != nil {
		return Ref{}, fmt.Errorf("--cluster %s: %w", s, err)
	}
	return r, nil
}

// String is the flag value that gives r back.
func (r Ref) String() string {
	switch {
	case r.Kind == Target:
		return string(Target) + ":" + r.File
	case r.Shape != "":
		return string(Containers) + ":" + r.Shape
	case r.Kind != "" && r.Kind != Containers:
		return string(r.Kind) + ":" + r.Arg
	}
	return string(Containers)
}

// Caps are what a cluster offers beyond running topologies. Experiments and commands ask for these,
// never for a cluster's kind, so a new kind of cluster needs no change in them.
type Caps struct {
	// Control: faults on its hosts (stop a supervisor, pause a process) and their whole-node CPU.
	Control bool
	// Delay: emulated network delay between its nodes.
	Delay bool
	// OwnShapes: clusters of the experiment's own shapes (supervisors and their capacities) are
	// started for it; without, the experiment runs on the nodes the cluster has.
	OwnShapes bool
	// Model: the cluster is a model of Storm (a simulated cluster): it runs the project's own
	// topologies in timed windows and over finite datasets, and has no Storm statistics or burner
	// topologies (background load is threads of the model).
	Model bool
}

// IsTarget reports whether r is an existing cluster reached through a target file.
func (r Ref) IsTarget() bool { return r.Kind == Target }
