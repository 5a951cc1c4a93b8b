package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/clusters"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/target"
)

// deprecatedAnnotation marks a flag kept for old command lines: hidden from help, and one line on
// stderr when used (warnDeprecated), until the next minor release removes it.
const deprecatedAnnotation = "stormlab-deprecated"

// deprecate hides cmd's flag old and records what replaces it.
func deprecate(cmd *cobra.Command, old, instead string) {
	f := cmd.Flags().Lookup(old)
	f.Hidden = true
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[deprecatedAnnotation] = []string{instead}
}

// warnDeprecated writes one line to w for each deprecated flag given on the command line.
func warnDeprecated(cmd *cobra.Command, w io.Writer) {
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if instead, ok := f.Annotations[deprecatedAnnotation]; ok {
			fmt.Fprintf(w, "stormlab: --%s is deprecated and goes in the next minor release: use %s\n", f.Name, instead[0])
		}
	})
}

// clusterFlags resolves the one cluster flag of run and capacity, with the deprecated --profile
// (a shape) and --target (a file) that it replaces: containers of a shape (the default shape when
// none is named), a target file, or another kind of the registry (sim:NAME), which it checks.
func clusterFlags(cluster, profile, targetFile string) (clusterref.Ref, error) {
	given := 0
	for _, s := range []string{cluster, profile, targetFile} {
		if s != "" {
			given++
		}
	}
	if given > 1 {
		return clusterref.Ref{}, fmt.Errorf("--cluster, --profile and --target: give one (--cluster SHAPE or --cluster target:FILE)")
	}
	switch {
	case profile != "":
		cluster = profile
	case targetFile != "":
		cluster = "target:" + targetFile
	}
	ref, err := clusterref.Parse(cluster)
	if err != nil || ref.IsTarget() {
		return ref, err
	}
	if ref.Kind == simcluster.KindName && ref.Arg == simcluster.Paper { // only experiments have a paper
		_, err := simcluster.Lookup(ref.Arg)
		return clusterref.Ref{}, err
	}
	if ref.Kind != clusterref.Containers {
		return ref, checkKind(ref)
	}
	if ref.Shape == "" {
		ref.Shape = docker.DefaultShape
	}
	if _, err := docker.Shape(ref.Shape); err != nil {
		return clusterref.Ref{}, fmt.Errorf("--cluster: %w", err)
	}
	return ref, nil
}

// simCostsHelp is the help of --sim-costs.
const simCostsHelp = "with --cluster sim:NAME: the cost-model `FILE` that charges the simulated cluster (written by stormlab sim costs; " +
	"the validation beside it, FILE.validation.json, when there; default: the model shipped with the project, measured on its containers)"

// withSimCosts sets where's cost-model file (--sim-costs): refused for a cluster that is not simulated,
// and read here once, so that a bad file is refused before anything runs.
func withSimCosts(where clusterref.Ref, file string) (clusterref.Ref, error) {
	if file == "" {
		return where, nil
	}
	if where.Kind != simcluster.KindName {
		return clusterref.Ref{}, fmt.Errorf("--sim-costs %s: a cost model charges a simulated cluster only: give --cluster sim:NAME too (stormlab sim clusters)", file)
	}
	where.Costs = file
	if _, err := simcluster.CostsFor(where); err != nil {
		return clusterref.Ref{}, err
	}
	return where, nil
}

// checkKind asks the registry's kind of where whether where names a cluster it has (sim:NAME: a
// simulated cluster of that name), before anything runs.
func checkKind(where clusterref.Ref) error {
	kind, err := clusters.Kinds().Kind(where)
	if err == nil && kind.Check != nil {
		err = kind.Check(where, harness.RunSpec{Measure: time.Minute, Topology: harness.TopologyRun{Name: "check"}})
	}
	return err
}

// whereOf names the cluster of run and capacity: the target loaded from file, else where.
func whereOf(where clusterref.Ref, file string, tg *target.Target) clusterref.Ref {
	if tg == nil {
		return where
	}
	return clusterref.Ref{Kind: clusterref.Target, File: file, Target: tg}
}

// containers says whether the run starts a cluster of containers (not a target, not another kind).
func (o *runOptions) containers() bool {
	return o.target == "" && (o.where.Kind == "" || o.where.Kind == clusterref.Containers)
}

// checkKind asks another kind of cluster (sim:NAME) whether it can run what the flags ask (faults),
// before anything starts.
func (o *runOptions) checkKind() error {
	if o.containers() || o.target != "" {
		return nil
	}
	kind, err := clusters.Kinds().Kind(o.where)
	if err != nil || kind.Check == nil {
		return err
	}
	return kind.Check(o.where, harness.RunSpec{Faults: o.faults, Measure: o.measure, Topology: harness.TopologyRun{Name: "check"}})
}
