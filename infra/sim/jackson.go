package sim

import (
	"errors"
	"math"
)

// Analytic is what a plain analytic queueing model predicts for a Config: the baseline a simulator
// must beat (the issue of every discrete-event model is whether it is worth more than a formula).
type Analytic struct {
	Throughput  float64   // trees per second
	LatencyMean float64   // seconds: the sum of a tree's residence times at the nodes
	NodeCores   []float64 // cores each node is busy
}

// Jackson predicts cfg as a product-form (Jackson) network of the same costs: each node is one
// processor-sharing station of its cores (times its speed), and a tree visits it for the CPU its
// executors spend on the tree (service, serialization and deserialization, acks), with the workers'
// overhead taking its share of the cores first. Open loop (a rate): an open network, each node's
// residence D/(1 - rho). Closed loop (max.spout.pending): a closed network of spouts x pending trees,
// solved exactly by mean value analysis (Reiser and Lavenberg, "Mean-value analysis of closed
// multichain queuing networks", JACM 27(2), 1980). It ignores what the simulator models: a thread
// runs on one core at most, the branches of a tree run in parallel, queues are bounded, links.
func Jackson(cfg Config) (Analytic, error) {
	if err := cfg.check(false); err != nil {
		return Analytic{}, err
	}
	demand, rate := treeDemand(&cfg)
	capacity := make([]float64, len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		speed := n.Speed
		if speed == 0 {
			speed = 1
		}
		workers := 0
		for _, w := range cfg.Topology.Workers {
			if w == i {
				workers++
			}
		}
		capacity[i] = max(1e-9, (n.Cores-float64(workers)*cfg.WorkerOverhead)*speed)
	}
	if rate > 0 {
		return openJackson(demand, capacity, rate)
	}
	spouts := 0
	for _, e := range cfg.Topology.Executors {
		if spoutOf(&cfg, e.Component) {
			spouts++
		}
	}
	return closedMVA(demand, capacity, spouts*cfg.Topology.MaxSpoutPending), nil
}

func openJackson(demand, capacity []float64, rate float64) (Analytic, error) {
	a := Analytic{Throughput: rate, NodeCores: make([]float64, len(demand))}
	for n, d := range demand {
		rho := rate * d / capacity[n]
		if rho >= 1 {
			return Analytic{}, errors.New("open network: a node is loaded beyond its cores (no steady state)")
		}
		a.LatencyMean += d / capacity[n] / (1 - rho)
		a.NodeCores[n] = rate * d
	}
	return a, nil
}

// closedMVA is exact mean value analysis for population k of one class over PS stations.
func closedMVA(demand, capacity []float64, k int) Analytic {
	q := make([]float64, len(demand))
	var x, r float64
	for pop := 1; pop <= k; pop++ {
		r = 0
		res := make([]float64, len(demand))
		for n, d := range demand {
			res[n] = d / capacity[n] * (1 + q[n])
			r += res[n]
		}
		x = float64(pop) / r
		for n := range q {
			q[n] = x * res[n]
		}
	}
	a := Analytic{Throughput: x, LatencyMean: r, NodeCores: make([]float64, len(demand))}
	for n, d := range demand {
		a.NodeCores[n] = x * d
	}
	return a
}

// treeDemand is the CPU seconds one tree costs each node (reference machine), and the trees offered
// per second under open loop (0: closed loop): every component's executions per tree, from the
// spouts down the streams, spread evenly over its executors, the trees of all spouts alike.
func treeDemand(cfg *Config) (demand []float64, rate float64) {
	t := &cfg.Topology
	visits := componentVisits(t)
	execs := map[string][]Executor{}
	for _, e := range t.Executors {
		execs[e.Component] = append(execs[e.Component], e)
	}
	demand = make([]float64, len(cfg.Nodes))
	c := cfg.Costs
	ackers := t.ackerWorkers()
	for _, comp := range t.Components {
		v := visits[comp.Name]
		per := comp.Service.Mean + c.AckCPU // each executed tuple acked
		if t.Ackers {
			per -= c.AckCPU // paid by the ackers, where they run
			for _, w := range ackers {
				demand[t.Workers[w]] += v * c.AckCPU / float64(len(ackers))
			}
		}
		for _, st := range comp.Streams {
			per += st.PerTuple * (c.SerMsg + c.SerByte*float64(comp.Bytes)) // sent to another worker at worst
		}
		for _, e := range execs[comp.Name] {
			demand[t.Workers[e.Worker]] += v * per / float64(len(execs[comp.Name]))
		}
		if comp.Spout {
			r := comp.Rate
			if r == 0 {
				r = t.Rate
			}
			rate += r * float64(len(execs[comp.Name]))
		}
	}
	for n := range demand { // the visits are of one tree from every spout executor: per tree
		demand[n] /= float64(spoutCount(t))
	}
	return demand, rate
}

// componentVisits is each component's executions per tree emitted by each spout executor: the
// spouts' own 1, then down the streams (PerTuple, times the receivers for an all grouping). The
// topology is taken as acyclic; a cycle is cut at its first repeat.
func componentVisits(t *Topology) map[string]float64 {
	byName := map[string]Component{}
	count := map[string]int{}
	for _, c := range t.Components {
		byName[c.Name] = c
	}
	for _, e := range t.Executors {
		count[e.Component]++
	}
	v := map[string]float64{}
	var walk func(name string, n float64, seen map[string]bool)
	walk = func(name string, n float64, seen map[string]bool) {
		if seen[name] || n == 0 || math.IsInf(n, 0) {
			return
		}
		v[name] += n
		seen[name] = true
		for _, st := range byName[name].Streams {
			m := st.PerTuple
			if st.Grouping == All {
				m *= float64(count[st.To])
			}
			walk(st.To, n*m, seen)
		}
		delete(seen, name)
	}
	for _, c := range t.Components {
		if c.Spout {
			walk(c.Name, float64(count[c.Name]), map[string]bool{})
		}
	}
	return v
}

func spoutOf(cfg *Config, name string) bool {
	for _, c := range cfg.Topology.Components {
		if c.Name == name {
			return c.Spout
		}
	}
	return false
}

func spoutCount(t *Topology) int {
	n := 0
	for _, e := range t.Executors {
		for _, c := range t.Components {
			if c.Name == e.Component && c.Spout {
				n++
			}
		}
	}
	return max(1, n)
}
