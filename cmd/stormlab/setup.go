package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/tail"
)

func newSetupCmd() *cobra.Command {
	var (
		home     string
		useBuilt bool
	)
	cmd := &cobra.Command{
		Use:   "setup [--home DIR] [--use-built]",
		Short: "Build stormlab's parts from a checkout into a home, so the binary works from any folder",
		Long: "setup runs inside a stormlab checkout: it builds the bridge scheduler and topologies jars (Maven),\n" +
			"the scheduler service for Linux (go build), copies them with the topologies' submit classpath and\n" +
			"this binary into DIR (default $XDG_CACHE_HOME/stormlab/home), and marks DIR as a stormlab home.\n" +
			"Afterwards stormlab finds DIR from any working directory (set $STORMLAB_HOME for another DIR).\n" +
			"A failed setup leaves the previous home as it was. --use-built copies the jars the checkout\n" +
			"has already built (make setup builds them) instead of running Maven's package again.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := assets.Checkout()
			if err != nil {
				return err
			}
			if home == "" {
				if home, err = assets.CacheHome(); err != nil {
					return err
				}
			}
			if err := setupHome(cmd.Context(), src, home, useBuilt, cmd.ErrOrStderr()); err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stormlab home: %s\n", home)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "folder to fill (default $XDG_CACHE_HOME/stormlab/home)")
	cmd.Flags().BoolVar(&useBuilt, "use-built", false, "copy the jars already built in the checkout instead of building them")
	return cmd
}

// setupHome builds into a fresh folder beside home and swaps it in at the end, so an interrupted
// or failed setup never leaves a half-written home.
func setupHome(ctx context.Context, src, home string, useBuilt bool, log io.Writer) error {
	if err := os.MkdirAll(filepath.Dir(home), 0o755); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(home), ".stormlab-home-")
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	defer os.RemoveAll(tmp)
	jars := buildJars
	if useBuilt {
		jars = copyBuiltJars
	}
	steps := []func(context.Context, string, string, io.Writer) error{jars, buildService, copySubmitClasspath, copySelf, writeMarker}
	for _, step := range steps {
		if err := step(ctx, src, tmp, log); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
	}
	if err := os.RemoveAll(home); err != nil {
		return fmt.Errorf("setup: replace %s: %w", home, err)
	}
	if err := os.Rename(tmp, home); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	return nil
}

// runIn runs a command in dir, with its output on log only when it fails.
func runIn(ctx context.Context, dir string, env []string, name string, args ...string) error {
	c := exec.CommandContext(ctx, name, args...)
	c.Dir, c.Env = dir, append(os.Environ(), env...)
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail.Lines(string(out), 20))
	}
	return nil
}

func buildJars(ctx context.Context, src, home string, log io.Writer) error {
	for _, jar := range []string{assets.BridgeJar, assets.TopologiesJar} {
		pom := filepath.Join(filepath.Dir(filepath.Dir(assets.Path(src, jar))), "pom.xml")
		fmt.Fprintf(log, "setup: mvn package %s\n", filepath.Dir(pom))
		if err := runIn(ctx, src, nil, "mvn", "-q", "-B", "-DskipTests", "-f", pom, "package"); err != nil {
			return err
		}
		if err := assets.CopyFile(assets.Path(src, jar), assets.Path(home, jar)); err != nil {
			return err
		}
	}
	return assets.CopyFile(assets.Path(src, assets.FluxCoreJar), assets.Path(home, assets.FluxCoreJar))
}

func copyBuiltJars(_ context.Context, src, home string, _ io.Writer) error {
	for _, jar := range []string{assets.BridgeJar, assets.TopologiesJar, assets.FluxCoreJar} {
		if err := assets.CopyFile(assets.Path(src, jar), assets.Path(home, jar)); err != nil {
			return fmt.Errorf("%w: build it first (make setup), or run setup without --use-built", err)
		}
	}
	return nil
}

func buildService(ctx context.Context, src, home string, log io.Writer) error {
	fmt.Fprintf(log, "setup: go build %s\n", assets.ServiceCmd)
	out := assets.Path(home, assets.ServiceBinary)
	return runIn(ctx, src, []string{"GOOS=linux", "GOARCH=" + runtime.GOARCH}, "go", "build", "-trimpath", "-o", out, "./"+assets.ServiceCmd)
}

// copySubmitClasspath copies the jars the local submitter needs besides the topologies jar (Storm's
// client, provided scope) into the home and lists them where the harness looks for the classpath.
func copySubmitClasspath(ctx context.Context, src, home string, log io.Writer) error {
	jar := assets.Path(home, assets.TopologiesJar)
	lib := filepath.Join(filepath.Dir(jar), "submit-lib")
	pom := filepath.Join(filepath.Dir(filepath.Dir(assets.Path(src, assets.TopologiesJar))), "pom.xml")
	fmt.Fprintf(log, "setup: submit classpath -> %s\n", lib)
	if err := runIn(ctx, src, nil, "mvn", "-q", "-B", "-f", pom, "dependency:copy-dependencies",
		"-DincludeScope=provided", "-DoutputDirectory="+lib); err != nil {
		return err
	}
	if jars, _ := filepath.Glob(filepath.Join(lib, "*.jar")); len(jars) == 0 {
		return fmt.Errorf("no submit classpath jars in %s", lib)
	}
	// Relative to the file's folder (the harness resolves it there), so the home can move.
	return os.WriteFile(filepath.Join(filepath.Dir(jar), "submit-classpath.txt"), []byte("submit-lib/*\n"), 0o644)
}

// copySelf puts this binary in the home's bin/, beside the service, so a user can run it from there.
func copySelf(_ context.Context, _, home string, _ io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return assets.CopyFile(exe, filepath.Join(home, "bin", "stormlab"))
}

// writeMarker marks the folder as a stormlab home, with the version that made it.
func writeMarker(_ context.Context, src, home string, _ io.Writer) error {
	m := map[string]string{"version": version(), "built_from": src, "built_at": time.Now().UTC().Format(time.RFC3339)}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, assets.Marker), append(data, '\n'), 0o644)
}

// lastLines returns the last n lines of s.
