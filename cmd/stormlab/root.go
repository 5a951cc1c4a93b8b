package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/experiments/lab"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1 // a valid request failed while running
	exitBadInput = 2 // the request itself is wrong
	// exitInterrupted is a shell's code for a process ended by SIGINT (128 + 2).
	exitInterrupted = 130
)

// runFailure marks an error that happened while running a valid request
// (exit 1). Every other error is bad input (exit 2): flags, arguments,
// unknown names, unreadable or inconsistent files.
type runFailure struct{ err error }

func (f runFailure) Error() string { return f.err.Error() }
func (f runFailure) Unwrap() error { return f.err }

// failed marks err as a run failure (exit 1).
func failed(err error) error {
	if err == nil {
		return nil
	}
	return runFailure{err}
}

// newRootCmd builds the command tree. Subcommands are built by their own
// files' newXxxCmd functions, writing to the given streams.
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "stormlab",
		Short: "Experiments with Apache Storm schedulers: graph partitions, clusters, tables and plots",
		Long: "stormlab runs the schedulers of the papers on weighted executor graphs and on Storm clusters,\n" +
			"and turns runs into tables and plots. `stormlab experiment default` is the main job.",
		SilenceUsage:  true, // bad input gets one line, not a usage dump
		SilenceErrors: true, // execute prints the error itself
	}
	root.Version = version()
	root.SetVersionTemplate("stormlab {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) { warnDeprecated(cmd, cmd.ErrOrStderr()) }

	root.AddCommand(
		newPartitionCmd(),
		newSchedulersCmd(),
		newExperimentCmd(),
		newSPDCmd(),
		newRunCmd(),
		newCapacityCmd(),
		newCompareCmd(),
		newReportCmd(),
		newImagesCmd(),
		newCleanupCmd(),
		newTargetCmd(),
		newBridgeCmd(),
		newClusterCmd(),
		newWhatifCmd(),
		newCaptureCmd(),
		newSetupCmd(),
		newSimCmd(),
		// ---- Other subcommands go here, one newXxxCmd per file ----
	)
	return root
}

// version describes this binary from its build info: the module version
// ("(devel)" for a local build), the VCS commit and time that `go build`
// stamps (else the commit `make build` stamps with -ldflags), "+dirty" for
// uncommitted changes, and the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module support)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		var modified bool
		if rev, modified = lab.StampedRevision(); modified {
			dirty = "+dirty"
		}
	}
	if rev != "" {
		v += " commit " + rev[:min(12, len(rev))] + dirty
		if at != "" {
			v += " of " + at
		}
	}
	return v + ", " + bi.GoVersion
}

// execute runs the CLI with args and returns the exit code. It never panics
// on bad input; a panic is a bug and is reported as one line too.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "stormlab: internal error (please report): %v\n", r)
			code = exitFailed
		}
	}()
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil {
		// Ctrl-C (or SIGTERM): what was finished is kept (an experiment's runs, for --resume).
		msg := oneLine(err.Error())
		if errors.Is(err, context.Canceled) && strings.HasSuffix(msg, context.Canceled.Error()) {
			msg = ""
		}
		fmt.Fprintln(stderr, strings.TrimSuffix("stormlab: interrupted: "+msg, ": "))
		return exitInterrupted
	}
	fmt.Fprintf(stderr, "stormlab: %s\n", oneLine(err.Error()))
	var rf runFailure
	if errors.As(err, &rf) {
		return exitFailed
	}
	return exitBadInput
}

// oneLine folds a multi-line message (cobra's "Did you mean this?" hints)
// into a single line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
