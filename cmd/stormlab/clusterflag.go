package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
// (a shape) and --target (a file) that it replaces: the shape and the target file to use.
func clusterFlags(cluster, profile, targetFile string) (shape, file string, err error) {
	given := 0
	for _, s := range []string{cluster, profile, targetFile} {
		if s != "" {
			given++
		}
	}
	if given > 1 {
		return "", "", fmt.Errorf("--cluster, --profile and --target: give one (--cluster SHAPE or --cluster target:FILE)")
	}
	switch {
	case profile != "":
		cluster = profile
	case targetFile != "":
		cluster = "target:" + targetFile
	}
	ref, err := clusterref.Parse(cluster)
	if err != nil {
		return "", "", err
	}
	if ref.IsTarget() {
		return "", ref.File, nil
	}
	if ref.Shape == "" {
		return docker.DefaultShape, "", nil
	}
	if _, err := docker.Shape(ref.Shape); err != nil {
		return "", "", fmt.Errorf("--cluster: %w", err)
	}
	return ref.Shape, "", nil
}

// whereOf names the cluster of run and capacity: the target loaded from file, else containers.
func whereOf(file string, tg *target.Target) clusterref.Ref {
	if tg == nil {
		return clusterref.Ref{Kind: clusterref.Containers}
	}
	return clusterref.Ref{Kind: clusterref.Target, File: file, Target: tg}
}
