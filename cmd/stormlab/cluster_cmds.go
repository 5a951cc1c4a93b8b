package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
)

// newImagesCmd builds (or finds up to date) the cluster images.
func newImagesCmd() *cobra.Command {
	var prune bool
	cmd := &cobra.Command{
		Use:   "images [--prune]",
		Short: "Build the cluster's container images (skipped when up to date) and print their tags",
		Long: "images builds the base, java, zookeeper, storm and service images on the local Docker engine,\n" +
			"tagged by the hash of their inputs; an image whose tag exists is skipped. --prune removes older\n" +
			"stormlab image tags afterwards.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return buildImages(ctx, prune, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVar(&prune, "prune", false, "remove older stormlab images (tags other than the ones just built)")
	return cmd
}

func buildImages(ctx context.Context, prune bool, stdout, stderr io.Writer) error {
	start := time.Now()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	b, err := images.New(ctx, images.WithLogf(logf))
	if err != nil {
		return failed(err)
	}
	defer b.Close()
	set, err := b.BuildAll(ctx)
	if err != nil {
		return failed(err)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "image\ttag\tstatus\n")
	for _, n := range images.Names() {
		tag := map[string]string{images.Base: set.Base, images.Java: set.Java, images.ZooKeeper: set.ZooKeeper,
			images.Storm: set.Storm, images.Service: set.Service}[n]
		status := "up to date (skipped)"
		if d, ok := b.Built[n]; ok {
			status = "built in " + d.Round(100*time.Millisecond).String()
		}
		if tag == "" {
			tag, status = "-", "not built: sources missing"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", n, tag, status)
	}
	if err := tw.Flush(); err != nil {
		return failed(err)
	}
	if prune {
		removed, err := b.Prune(ctx, set)
		for _, r := range removed {
			fmt.Fprintln(stdout, "removed", r)
		}
		if err != nil {
			return failed(err)
		}
	}
	fmt.Fprintf(stdout, "images ready in %s (built: %d)\n", time.Since(start).Round(time.Millisecond), len(b.Built))
	return nil
}

// clusterLockPath is infra/docker's machine-wide cluster lock (lock.go):
// while a stormlab cluster runs on this machine its owner holds it.
var clusterLockPath = filepath.Join(os.TempDir(), "stormlab-cluster.lock")

// clusterRunning reports whether another process holds the cluster lock.
func clusterRunning() bool {
	f, err := os.OpenFile(clusterLockPath, os.O_RDONLY, 0)
	if err != nil {
		return false // no lock file: no cluster was ever started here
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// newCleanupCmd removes every stormlab-labelled container and network.
func newCleanupCmd() *cobra.Command {
	var dryRun, force bool
	cmd := &cobra.Command{
		Use:   "cleanup [--dry-run] [--force]",
		Short: "Remove every stormlab container and network left by killed runs (images are kept)",
		Long: "cleanup lists and removes every container and network labelled stormlab=true, e.g. after a run\n" +
			"was killed with SIGKILL. While a stormlab cluster is running on this machine (its process holds\n" +
			"the cluster lock) cleanup refuses, because it would remove that cluster too; --force overrides.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cleanup(cmd.Context(), dryRun, force, cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "only list what would be removed")
	cmd.Flags().BoolVar(&force, "force", false, "remove even while a stormlab cluster runs on this machine")
	return cmd
}

func cleanup(ctx context.Context, dryRun, force bool, stdout io.Writer) error {
	left, err := docker.Leftovers(ctx, docker.LabelAll+"=true")
	if err != nil {
		return failed(err)
	}
	if len(left) == 0 {
		fmt.Fprintln(stdout, "nothing to remove: no stormlab container or network")
		return nil
	}
	for _, l := range left {
		fmt.Fprintln(stdout, l)
	}
	if dryRun {
		fmt.Fprintf(stdout, "%d to remove (dry run: nothing removed)\n", len(left))
		return nil
	}
	if !force && clusterRunning() {
		return failed(fmt.Errorf("a stormlab cluster is running on this machine (lock %s held): it removes its own containers when it ends; use --force to remove them now", clusterLockPath))
	}
	if err := docker.RemoveLeftovers(ctx); err != nil {
		return failed(err)
	}
	fmt.Fprintf(stdout, "removed %d\n", len(left))
	return nil
}
