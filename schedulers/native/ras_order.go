package native

import (
	"slices"
	"strings"
)

// rasTopology is a Topology with RAS's defaults filled in and the lookups
// its strategy uses.
type rasTopology struct {
	Topology
	comp    map[Executor]string
	execs   map[string][]Executor // TopologyDetails.componentToExecs order
	links   map[string][]string   // children and parents of a user component
	maxHeap float64
	perWkr  int
	maxSt   int
}

func newRASTopology(t Topology) *rasTopology {
	r := &rasTopology{Topology: t, comp: map[Executor]string{}, execs: map[string][]Executor{}, links: map[string][]string{}}
	byStart := slices.Clone(t.Executors)
	slices.SortStableFunc(byStart, func(a, b Executor) int { return a.Start - b.Start })
	// TopologyDetails copies Nimbus's executor map into new HashMap<>(0).
	for _, e := range javaOrder(byStart, executorHash, capPutAll(len(byStart))) {
		r.comp[e] = e.Component
		r.execs[e.Component] = append(r.execs[e.Component], e)
	}
	for to, froms := range t.Inputs {
		for _, from := range froms {
			r.link(to, from)
			r.link(from, to)
		}
	}
	r.maxHeap = orDefault(t.WorkerMaxHeapMB, DefaultWorkerMaxHeapMB)
	r.perWkr = t.AckersPerWorker
	if r.perWkr == 0 {
		r.perWkr = DefaultAckersPerWorker
	}
	r.maxSt = t.MaxStateSearch
	if r.maxSt <= 0 {
		r.maxSt = DefaultMaxStateSearch
	}
	return r
}

func (r *rasTopology) link(a, b string) {
	if !slices.Contains(r.links[a], b) {
		r.links[a] = append(r.links[a], b)
	}
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// request is an executor's resources, Storm's defaults for zeros.
func (r *rasTopology) request(e Executor) Resources {
	res := r.Resources[e.Component]
	res.CPU = orDefault(res.CPU, DefaultCPU)
	res.OnHeapMB = orDefault(res.OnHeapMB, DefaultOnHeapMB)
	return res
}

// userComponents are the components of Inputs, sorted.
func (r *rasTopology) userComponents() []string {
	out := make([]string, 0, len(r.Inputs))
	for c := range r.Inputs {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// orderExecutors is ExecSorterByConnectionCount.sortExecutors followed by
// BaseResourceAwareStrategy.isolateAckersToEnd: components by connection
// count (descending, then id), each followed by its neighbours (ascending
// count, then id), one executor of each in turn; then the system executors
// (in the order of Java's HashSet of unassigned executors); then the
// unassigned ackers (in the order of getComponentToExecutors' HashSet),
// which it also returns.
func (r *rasTopology) orderExecutors(unassigned []Executor) (order, ackers []Executor) {
	todo := map[Executor]bool{}
	for _, e := range unassigned {
		todo[e] = true
	}
	queue := map[string][]Executor{}
	for _, c := range r.userComponents() {
		for _, e := range r.execs[c] {
			if todo[e] {
				queue[c] = append(queue[c], e)
			}
		}
	}
	seen := map[Executor]bool{}
	add := func(e Executor) {
		if !seen[e] {
			seen[e] = true
			order = append(order, e)
		}
	}
	for _, c := range r.sortComponents() {
		nbs := r.sortNeighbors(c)
		for more := true; more; {
			more = false
			for _, x := range append([]string{c}, nbs...) {
				if q := queue[x]; len(q) > 0 {
					add(q[0])
					queue[x] = q[1:]
					more = true
				}
			}
		}
	}
	byStart := slices.Clone(unassigned)
	slices.SortStableFunc(byStart, func(a, b Executor) int { return a.Start - b.Start })
	for _, e := range javaOrder(byStart, executorHash, capCopy(len(byStart))) {
		add(e)
	}
	all := r.execs[AckerComponent]
	for _, e := range javaOrder(all, executorHash, capGrown(len(all))) {
		if todo[e] {
			ackers = append(ackers, e)
		}
	}
	order = slices.DeleteFunc(order, func(e Executor) bool { return e.Component == AckerComponent })
	return append(order, ackers...), ackers
}

// connections is a component's connection count in sortComponents.
func (r *rasTopology) connections(c string) int {
	n := 0
	for _, nb := range r.links[c] {
		n += len(r.execs[nb]) * len(r.execs[c])
	}
	return n
}

func (r *rasTopology) sortComponents() []string {
	out := r.userComponents()
	slices.SortStableFunc(out, func(a, b string) int {
		if ca, cb := r.connections(a), r.connections(b); ca != cb {
			return cb - ca
		}
		return strings.Compare(a, b)
	})
	return out
}

func (r *rasTopology) sortNeighbors(c string) []string {
	out := slices.Clone(r.links[c])
	slices.SortStableFunc(out, func(a, b string) int {
		if na, nb := len(r.execs[a]), len(r.execs[b]); na != nb {
			return na - nb
		}
		return strings.Compare(a, b)
	})
	return out
}
