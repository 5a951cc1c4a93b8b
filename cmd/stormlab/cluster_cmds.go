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

// newCleanupCmd removes the stormlab containers and networks whose owner process is gone.
func newCleanupCmd() *cobra.Command {
	var dryRun, force bool
	cmd := &cobra.Command{
		Use:   "cleanup [--dry-run] [--force]",
		Short: "Remove the stormlab containers and networks left by dead runs (images are kept)",
		Long: "cleanup removes every container and network labelled stormlab=true whose owner process (labels\n" +
			"stormlab.owner.pid and stormlab.owner.start) is gone, e.g. after a run was killed with SIGKILL;\n" +
			"every cluster run does the same when it starts. A live owner's containers are never touched.\n" +
			"Containers without owner labels (from older versions) are removed only while no stormlab cluster\n" +
			"runs on this machine (no process holds the cluster lock), or with --force.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cleanup(cmd.Context(), dryRun, force, cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "only list what would be removed")
	cmd.Flags().BoolVar(&force, "force", false, "also remove containers without owner labels while a stormlab cluster runs")
	return cmd
}

func cleanup(ctx context.Context, dryRun, force bool, stdout io.Writer) error {
	left, err := docker.ListLeftovers(ctx, docker.LabelAll+"=true")
	if err != nil {
		return failed(err)
	}
	if len(left) == 0 {
		fmt.Fprintln(stdout, "nothing to remove: no stormlab container or network")
		return nil
	}
	var dead, unknown, live int
	for _, l := range left {
		state := "owner gone: remove"
		switch {
		case l.Standing:
			live++
			state = "standing cluster: keep (stormlab cluster down removes it)"
		case l.Owner.PID == 0:
			unknown++
			state = "no owner labels: remove unless a cluster runs"
		case l.Owner.Alive():
			live++
			state = "owner alive: keep"
		default:
			dead++
		}
		fmt.Fprintf(stdout, "%s (run %s, %s): %s\n", l, l.Run, l.Owner, state)
	}
	if dryRun {
		fmt.Fprintf(stdout, "dry run: nothing removed (%d of dead owners, %d without owner, %d of live owners)\n", dead, unknown, live)
		return nil
	}
	note := func(f string, a ...any) { fmt.Fprintf(stdout, f+"\n", a...) }
	if _, err := docker.RemoveOrphans(ctx, note); err != nil {
		return failed(err)
	}
	if unknown > 0 {
		if !force && clusterRunning() {
			return failed(fmt.Errorf("%d containers/networks have no owner labels and a stormlab cluster is running on this machine (lock %s held): they may be its own; use --force to remove them now", unknown, clusterLockPath))
		}
		if err := docker.RemoveLeftovers(ctx); err != nil {
			return failed(err)
		}
	}
	fmt.Fprintf(stdout, "removed %d, kept %d of live owners\n", dead+unknown, live)
	return nil
}
