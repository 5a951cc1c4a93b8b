package experiments

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness/usertopo"
	"github.com/stormlab/stormlab/topologies"
)

// List returns every experiment, sorted by name. It is built on each call,
// so nobody can change the registry at run time. Add new experiments here.
func List() []*lab.Spec {
	l := []*lab.Spec{
		KPartMul(),
		PartitionK(),
		PartitionDensity(),
		SPDAllocation(),
		Smoke(),
		CommCost(),
		KPartCluster(),
		Deadline(),
		Recovery(),
		Observer(),
		LoadCurve(),
		SimValidation(),
		// Add new experiments here (one constructor per experiment file).
	}
	sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	return l
}

// Suite is a named, ordered group of experiments.
type Suite struct {
	Name        string
	Description string
	Experiments []string
}

// Suites returns the experiment suites.
func Suites() []Suite {
	return []Suite{{
		Name:        "default",
		Description: "`make experiment`: the partition experiments of Jian, Lu and Zhang, \"Storm heuristic balanced graph-partition scheduling optimization method\", 2018 (Figs. 5-7), SPD allocation, and the real-cluster smoke run",
		Experiments: []string{
			"kpart-mul", "partition-k", "partition-density", "spd", "smoke",
		},
	}}
}

// Names lists experiment names, sorted.
func Names() []string {
	var n []string
	for _, s := range List() {
		n = append(n, s.Name)
	}
	return n
}

// Lookup finds an experiment by name.
func Lookup(name string) (*lab.Spec, error) {
	for _, s := range List() {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown experiment %q: choose one of %s, or a suite (%s); see `stormlab experiment list`", name, strings.Join(Names(), ", "), strings.Join(suiteNames(), ", "))
}

// OwnQuestion stands where a paper would be cited for an experiment that reproduces none (no Source):
// in `experiment list` and the README's table.
const OwnQuestion = "this project's own question"

// CalibratedExperiments names the experiments whose open-loop load is a fraction of a measured
// reference rate, which Env.Calibration (--calibration) can state instead (Spec.TakesCalibration).
func CalibratedExperiments() []string {
	return namesWhere(func(s *lab.Spec) bool { return s.TakesCalibration })
}

// namesWhere lists the registered experiments for which keep holds, sorted.
func namesWhere(keep func(*lab.Spec) bool) []string {
	var n []string
	for _, s := range List() {
		if keep(s) {
			n = append(n, s.Name)
		}
	}
	return n
}

// CheckCalibration refuses a stated calibration that is not a positive finite rate, or that names an
// experiment (or suite) that does not read one; 0 (none stated) always passes.
func CheckCalibration(name string, tps float64) error {
	switch {
	case tps == 0:
		return nil
	case math.IsNaN(tps) || math.IsInf(tps, 0) || tps < 0:
		return fmt.Errorf("--calibration %v: give the reference rate in tuples/s (> 0), e.g. a capacity from `stormlab capacity`", tps)
	case !slices.Contains(CalibratedExperiments(), name):
		return fmt.Errorf("--calibration applies to one experiment whose open-loop load is a fraction of a measured rate (%s), not to %s", strings.Join(CalibratedExperiments(), ", "), name)
	}
	return nil
}

// TopologyExperiments names the experiments that run on a topology of the user's (OnTopology;
// Spec.OnReplay).
func TopologyExperiments() []string {
	return namesWhere(func(s *lab.Spec) bool { return s.OnReplay != nil })
}

// OnTopology is experiment name run on a topology of the user's instead of its own: topology is
// `replay:FILE`, a topology captured with `stormlab capture` and rebuilt live (the only kind whose
// offered load an experiment can set, as load-curve must). Bad input (an experiment that takes no
// topology, another kind of topology, a file that is no captured topology) is an error naming the fix;
// nothing has run then.
func OnTopology(name, topology string) (*lab.Spec, error) {
	spec, err := Lookup(name)
	if err != nil || spec.OnReplay == nil {
		return nil, fmt.Errorf("experiment %s runs its own topologies: --topology applies to %s only", name, strings.Join(TopologyExperiments(), ", "))
	}
	file, ok := topologies.ReplayFile(topology)
	if !ok {
		return nil, fmt.Errorf("--topology %q: give replay:FILE, a topology captured with `stormlab capture` (an experiment sets the offered load, which only a replay lets it do)", topology)
	}
	_, warnings, err := usertopo.Replay(file)
	if err != nil {
		return nil, err
	}
	return spec.OnReplay(file, warnings), nil
}

// LookupSuite finds a suite by name.
func LookupSuite(name string) (Suite, bool) {
	for _, s := range Suites() {
		if s.Name == name {
			return s, true
		}
	}
	return Suite{}, false
}

func suiteNames() []string {
	var n []string
	for _, s := range Suites() {
		n = append(n, s.Name)
	}
	return n
}

// RunSuite runs each experiment of a suite in order and stops at the first
// error (returning the reports so far with it).
func RunSuite(ctx context.Context, s Suite, o lab.Options) ([]*lab.Report, error) {
	var out []*lab.Report
	for _, name := range s.Experiments {
		spec, err := Lookup(name)
		if err != nil {
			return out, fmt.Errorf("suite %s: %w", s.Name, err)
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "== %s: %s\n", spec.Name, spec.Description)
		}
		rep, err := Run(ctx, spec, o)
		if err != nil {
			return out, fmt.Errorf("suite %s: %w", s.Name, err)
		}
		out = append(out, rep)
	}
	return out, nil
}
