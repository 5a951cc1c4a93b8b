package simcluster

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/topologies"
)

// flags are a topology main class's flags as Storm would read them: --key value or --key=value, the
// last one given wins (the harness appends its own after a main's defaults); each --conf k=v is kept
// as "conf.k".
type flags map[string]string

func parseFlags(args []string) flags {
	f := flags{}
	set := func(k, v string) {
		if k == "conf" {
			ck, cv, _ := strings.Cut(v, "=")
			k, v = "conf."+ck, cv
		}
		f[k] = v
	}
	for i := 0; i < len(args); i++ {
		k, ok := strings.CutPrefix(args[i], "--")
		if !ok {
			continue
		}
		if key, v, eq := strings.Cut(k, "="); eq && key != "conf" {
			set(key, v)
			continue
		}
		if i+1 < len(args) {
			set(k, args[i+1])
			i++
		}
	}
	return f
}

func (f flags) num(key string, def float64) (float64, error) {
	s, ok := f[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: give a number", key, s)
	}
	return v, nil
}

// runTopology is a run's topology as the model needs it: the main's Go spec, its flags and costs.
type runTopology struct {
	main      topologies.StormMain
	streams   []topologies.Stream // the component-level streams, as the snapshot lists them
	spoutRate map[string]float64  // open loop per spout task, where spouts differ (a replay); else rate
	args      []string            // the main's arguments, its defaults first
	flags     flags
	costs     sim.TopologyCosts
	workers   int
	ackers    bool
	nAckers   int // acker executors: --ackers when above 0, else one per worker (Storm's default)
	par       map[string]int
	pending   int
	loadAware bool    // Storm 2's load-aware shuffle (topology.disable.loadaware.messaging not set)
	rate      float64 // open loop, per spout task; 0 = closed loop
	poisson   bool
	intervalS float64 // report interval
	workUs    float64 // extra CPU per bolt tuple the main's --work-us adds
	delayMs   float64 // the topology's own emulated delay per inter-node message (the delay transport's conf)
	waitParks float64 // the bolts' wait strategy: parks before it sleeps (level2.count), sleep in ms (level3)
	waitSleep float64
}

// resolve reads tr (one of the project's main classes, with its defaults and args) against the cost
// model: a main the model has no costs for, or one run at other work flags, is refused naming what
// measures it.
func resolve(tr harness.TopologyRun, model *sim.CostModel) (*runTopology, error) {
	if tr.MainClass == topologies.ReplayClass {
		return resolveReplay(tr)
	}
	i := slices.IndexFunc(topologies.StormMains(), func(m topologies.StormMain) bool { return m.Class == tr.MainClass })
	if i < 0 {
		return nil, fmt.Errorf("a simulated cluster runs the project's topologies (throughput, wordcount, kmeans), not %s: "+
			"capture yours on a real cluster (stormlab capture) and simulate its replay", tr.MainClass)
	}
	rt := &runTopology{main: topologies.StormMains()[i], par: map[string]int{}}
	rt.streams = rt.main.Spec(1).Streams
	rt.args = append(slices.Clone(rt.main.DefaultArgs), tr.Args...)
	rt.flags = parseFlags(rt.args)
	var err error
	if rt.costs, err = model.Topology(tr.MainClass); err != nil {
		return nil, err
	}
	for k, want := range rt.costs.WorkArgs {
		if got := rt.flags[k]; got != want {
			return nil, fmt.Errorf("cost model %q has %s's costs at --%s %s, this run has %q: record runs at this value and measure them (stormlab sim costs)", model.Name, rt.main.Name, k, want, got)
		}
	}
	return rt, rt.readFlags()
}

// Charges says whether model can charge a run of tr: nil, or why not (a topology it has no costs for,
// or one run at other work flags), naming what measures it.
func Charges(model *sim.CostModel, tr harness.TopologyRun) error {
	_, err := resolve(tr, model)
	return err
}

// readFlags reads the flags the model needs (TopologySetup's shared ones and --work-us).
func (rt *runTopology) readFlags() error {
	var errs []error
	get := func(key string, def float64) float64 {
		v, err := rt.flags.num(key, def)
		errs = append(errs, err)
		return v
	}
	rt.workers = int(get("workers", float64(max(1, rt.workers))))
	par := int(get("parallelism", 1))
	for name, p := range rt.componentPar() {
		rt.par[name] = int(get("parallelism."+name, float64(cmp.Or(p, par))))
	}
	rt.ackers = get("ackers", -1) != 0
	rt.nAckers = max(0, int(get("ackers", -1)))
	// As TopologySetup sets it: its default in closed loop, none in open loop (--rate) unless given.
	rt.pending, _ = topologies.MaxSpoutPending(rt.main.Class, rt.args)
	rt.rate = get("rate", 0)
	rt.intervalS = get("report-interval-secs", 5)
	rt.workUs = get("work-us", 0)
	if iv := get("interval-ms", 0); rt.rate == 0 && iv > 0 {
		rt.rate = 1000 / iv // a paced spout: one tuple every interval per task
	} else if rt.rate > 0 && rt.flags["rate-per"] != "task" {
		rt.rate /= float64(rt.par[rt.spout()])
	}
	rt.poisson = rt.flags["arrivals"] == "poisson"
	if rt.flags["conf.storm.messaging.transport"] == docker.DelayTransport {
		rt.delayMs = get("conf."+docker.DelayConf, 0)
	}
	rt.loadAware = rt.flags["conf.topology.disable.loadaware.messaging"] != "true"
	rt.waitParks = get("conf."+waitParksConf, defaultWaitParks)
	rt.waitSleep = get("conf."+waitSleepConf, 1)
	if ws := rt.flags["conf.topology.bolt.wait.strategy"]; ws != "" {
		errs = append(errs, fmt.Errorf("--conf topology.bolt.wait.strategy=%s: the model knows Storm's progressive wait strategy only (its counts: --conf %s, %s); leave the strategy as the topologies set it", ws, waitParksConf, waitSleepConf))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if rt.waitParks < 0 || rt.waitSleep < 0 {
		return fmt.Errorf("--conf %s=%v, %s=%v: give counts of 0 or more", waitParksConf, rt.waitParks, waitSleepConf, rt.waitSleep)
	}
	if rt.workers < 1 || rt.intervalS <= 0 || slices.ContainsFunc(slices.Collect(maps.Values(rt.par)), func(p int) bool { return p < 1 }) {
		return fmt.Errorf("topology flags: %d workers, report interval %v s, parallelism %v: give workers, intervals and parallelism >= 1", rt.workers, rt.intervalS, rt.par)
	}
	return nil
}

// The bolts' wait strategy as the model reads it from the topology's conf: Storm's progressive strategy
// parks an idle bolt's thread level2.count times (1,000 by default), then sleeps level3.sleep.millis at a
// time. Its level-1 busy polls (one by default) are too short to charge.
const (
	waitParksConf    = "topology.bolt.wait.progressive.level2.count"
	waitSleepConf    = "topology.bolt.wait.progressive.level3.sleep.millis"
	defaultWaitParks = 1000
)

// idleWait is the model's spell of parks and its sleep for rt's bolts (sim.Config.IdleSpinFor and
// IdleSleep): the times measured at Storm's defaults (sim.DefaultIdleSpinFor for a thousand parks,
// sim.DefaultIdleSleep for a 1 ms sleep, its overshoot the timer's) scaled to rt's counts; no parks is a
// sleep at once.
func (rt *runTopology) idleWait() (spinFor, sleep float64) {
	spinFor = sim.DefaultIdleSpinFor * (rt.waitParks / defaultWaitParks) // exactly the default at Storm's
	sleep = sim.DefaultIdleSleep + (rt.waitSleep-1)*1e-3
	return spinFor, sleep
}

// openLoop says whether the spouts offer a schedule (open loop or paced), not as fast as they may.
func (rt *runTopology) openLoop() bool {
	for _, r := range rt.spoutRate {
		if r > 0 {
			return true
		}
	}
	return rt.rate > 0
}

// componentPar is each component's parallelism before the flags: a replay's as captured, else 0 (the
// main's --parallelism).
func (rt *runTopology) componentPar() map[string]int {
	out := map[string]int{}
	if len(rt.par) > 0 {
		return maps.Clone(rt.par)
	}
	for _, c := range rt.main.Spec(1).Components {
		out[c.Name] = 0
	}
	return out
}

// spout is the main's spout component (every project topology has one).
func (rt *runTopology) spout() string {
	for name, c := range rt.costs.Components {
		if c.Spout {
			return name
		}
	}
	return ""
}

// components are the model's components from the measured costs; draws vary per tuple (log-normal,
// sim.ServiceCV, as storm-loadgen's default spread), the between-run uncertainty is drawn per run.
func (rt *runTopology) components(draw func(mean, sd float64) float64) []sim.Component {
	var out []sim.Component
	for _, name := range slices.Sorted(maps.Keys(rt.costs.Components)) {
		c := rt.costs.Components[name]
		us := draw(c.CPUMicros, c.CPUMicrosSD)
		if !c.Spout {
			us += rt.workUs
		}
		comp := sim.Component{Name: name, Spout: c.Spout, Bytes: int(c.Bytes + 0.5),
			Service: sim.Dist{Mean: us * 1e-6, CV: sim.ServiceCV, Kind: sim.LogNormal}}
		if c.Spout {
			comp.Rate = rt.rate
			if r, ok := rt.spoutRate[name]; ok {
				comp.Rate = r
			}
		}
		for _, s := range c.Streams {
			comp.Streams = append(comp.Streams, sim.Stream{To: s.To, PerTuple: s.PerTuple, Grouping: sim.GroupingOf(s.Grouping)})
		}
		out = append(out, comp)
	}
	return out
}

// tasks numbers the executors as Storm does: components in id order ("__acker" first), each one's
// tasks consecutively from 1, one task per executor.
func (rt *runTopology) tasks() (names []string, first map[string]int) {
	names = slices.Sorted(maps.Keys(rt.par))
	if rt.ackers {
		names = append([]string{topologies.AckerComponent}, names...)
	}
	first, next := map[string]int{}, 1
	for _, n := range names {
		first[n] = next
		next += rt.parOf(n)
	}
	return names, first
}

func (rt *runTopology) parOf(name string) int {
	if name == topologies.AckerComponent {
		return cmp.Or(rt.nAckers, rt.workers) // Storm's default: one acker per worker
	}
	return rt.par[name]
}
