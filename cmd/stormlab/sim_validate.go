package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/experiments"
	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/infra/sim"
)

func newSimValidateCmd() *cobra.Command {
	var from []string
	var out, costs string
	var force bool
	cmd := &cobra.Command{
		Use:   "validate --from DIR [--from DIR ...] --out DIR [--costs FILE] [--force]",
		Short: "Judge the simulator against real runs recorded before, without a cluster",
		Long: "validate simulates again every real run recorded under --from (an experiment's results, a\n" +
			"`stormlab run --out` folder) on its cluster's twin with the run's own topology, flags,\n" +
			"scheduler and the scheduler's options as the run recorded them (a run recorded without them: seed 1,\n" +
			"K-PART's Mul 5, the experiments'), and writes what the sim-validation experiment writes (OUT/sim-validation: validation.csv,\n" +
			"predicted-against-real figures, the validation goals judged in notes.md). Runs that measured the\n" +
			"cost model, invalid runs, runs with faults and finite datasets are skipped and listed.\n" +
			"docs/simulator.md.",
		Args: exactArgs(0, "sim validate takes no arguments: stormlab sim validate --from DIR --out DIR"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(from) == 0 || out == "" {
				return fmt.Errorf("sim validate needs --from DIR (recorded real runs) and --out DIR")
			}
			dir := filepath.Join(out, "sim-validation")
			if _, err := os.Stat(dir); err == nil && !force {
				return fmt.Errorf("%s already holds results: give another --out, or --force to replace them", dir)
			}
			runs, err := loadRuns(from)
			if err != nil {
				return err
			}
			model, err := readCostModel(costs)
			if err != nil {
				return err
			}
			spec := experiments.SimValidationOf(runs, strings.Join(from, ", "), model)
			rep, err := experiments.Run(cmd.Context(), spec, lab.Options{Out: out, Log: cmd.ErrOrStderr()})
			if err != nil {
				return failed(err)
			}
			return rep.WriteSummary(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringSliceVar(&from, "from", nil, "a folder of recorded real runs (repeatable)")
	cmd.Flags().StringVar(&out, "out", "", "the results base folder (written to OUT/sim-validation)")
	cmd.Flags().StringVar(&costs, "costs", "", "the cost model to charge the twins (a `stormlab sim costs` file; default: the one shipped, measured on this project's containers)")
	cmd.Flags().BoolVar(&force, "force", false, "replace OUT/sim-validation")
	return cmd
}

// readCostModel reads the cost-model file at path; "" is the shipped model (nil).
func readCostModel(path string) (*sim.CostModel, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--costs %s: %w", path, err)
	}
	defer f.Close()
	m, err := sim.ReadCostModel(f)
	if err != nil {
		return nil, fmt.Errorf("--costs %s: %w (write one with stormlab sim costs)", path, err)
	}
	return m, nil
}
