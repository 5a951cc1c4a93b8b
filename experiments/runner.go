package experiments

import "github.com/stormlab/stormlab/experiments/lab"

// runBase is what the runs of one cluster experiment share besides its knobs: the environment, the
// results their rows go to and the progress counter. Each cluster experiment's runner embeds it beside
// its knobs (k), so a run reads the same everywhere: runner.run(ctx, s, what varies), with s the
// cluster view of the run's scheduler as the only other thing passed.
type runBase struct {
	env     lab.Env
	res     *lab.Results
	counter *runCounter
}
