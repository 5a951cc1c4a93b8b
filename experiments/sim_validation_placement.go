package experiments

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
)

// placedOtherwise says how the simulated run s placed its topology otherwise than the real run r: each
// host's executors by component, where they differ ("" when they are alike). The simulator's error is
// the model's only where both placed alike; a scheduler that decided otherwise (a dynamic one on
// other measurements, or a recorded run placed by older code) is a difference of decisions.
func placedOtherwise(r, s *harness.RunResult) string {
	real, sim := hostComponents(r), hostComponents(s)
	if maps.EqualFunc(real, sim, maps.Equal) {
		return ""
	}
	return "real " + describeHosts(real) + ", simulated " + describeHosts(sim)
}

// hostComponents counts each host's executors (tasks) by component.
func hostComponents(r *harness.RunResult) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, e := range r.Executors {
		if out[e.Host] == nil {
			out[e.Host] = map[string]int{}
		}
		out[e.Host][e.Component] += e.End - e.Start + 1
	}
	return out
}

// describeHosts is "sup1 (count 4, split 3); sup2 (...)", hosts and components sorted.
func describeHosts(m map[string]map[string]int) string {
	var hosts []string
	for _, h := range slices.Sorted(maps.Keys(m)) {
		var cs []string
		for _, c := range slices.Sorted(maps.Keys(m[h])) {
			cs = append(cs, fmt.Sprintf("%s %d", c, m[h][c]))
		}
		hosts = append(hosts, h+" ("+strings.Join(cs, ", ")+")")
	}
	return strings.Join(hosts, "; ")
}

// notePlacement records in res's manifest (sv_placed_otherwise) and the log a simulated run that placed
// otherwise than its real run.
func notePlacement(env lab.Env, res *lab.Results, name string, r, s *harness.RunResult) {
	d := placedOtherwise(r, s)
	if d == "" {
		return
	}
	list, _ := res.Knobs["sv_placed_otherwise"].([]string)
	res.Knobs["sv_placed_otherwise"] = append(list, name+": "+d)
	fmt.Fprintf(env.Log, "sim-validation: %s placed otherwise than the real run: %s\n", name, d)
}
