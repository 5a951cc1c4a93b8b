package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/harness/hostspeed"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
)

// Thresholds of the precedence (docs/statistics.md).
const (
	NotRunningShare = 0.10 // executors not running for more than this share of the window
	NodeFull        = 0.95 // a node using this share of its quota or more
	ExecutorBusy    = 0.90 // an executor busy this share of the window or more
	// SpinBeside is the other nodes' idle spinning (cores, Threads.Spin summed) at or above which a full
	// node that shares their machine is said to pay for it. An idle executor parks a thousand times in
	// Storm's wait strategy before it sleeps, and on containers of one host each wake-up interrupts
	// whatever runs where it lands: beside a neighbour spinning 0.45 cores a saturated node's threads
	// took 2.3 times the CPU a tuple that they took with the neighbour's parking turned off; beside
	// 0.08-0.24 cores, 1.0-1.5 times (results log, 2026-12-07).
	SpinBeside = 0.25
)

// Input is what a run recorded, as plain values.
type Input struct {
	FromMs, ToMs int64                   // the measurement window
	Capacity     map[string]float64      // node -> CPU quota, percent of a core (100 = one core)
	NodeCPU      map[string]float64      // node -> mean CPU used in the window, percent of a core
	Reports      []protocol.WorkerReport // the topology's worker reports
	Tasks        map[int]Task            // task id -> component and worker
	Decisions    []protocol.DecisionRecord
	// NodeStats are the nodes' cgroup samples at the window's ends (nil: not read, e.g. a target
	// without a control layer; host starvation is then unknown).
	NodeStats *NodeStats
	// Applied are the loads the run's faults put on nodes (stragglers), as their burners carried them.
	Applied []Applied
	// LinkMbit are the nodes' egress limits, Mbit/s (containers' LinkMbit; a node without one has
	// none); LinksKnown whether a node missing from it is unlimited (containers) or of unknown
	// capacity (a target's machine).
	LinkMbit   map[string]float64
	LinksKnown bool
	// Throughput (acked trees per second) and LatencyMeanMs (their mean complete latency) are the
	// measurement's; MaxPending is topology.max.spout.pending per spout task (0: none, in open loop)
	// and PendingKnown whether it is known (the project's topologies: topologies.MaxSpoutPending).
	Throughput, LatencyMeanMs float64
	MaxPending                int
	PendingKnown              bool
	// SharedHost says the nodes are containers of one machine (this project's clusters), where one
	// node's idle spinning costs the others' threads (SpinBeside).
	SharedHost bool
}

// Task is where a task ran.
type Task struct {
	Component string
	Host      string
	Port      int
}

// Diagnosis is what limited a run.
type Diagnosis struct {
	Nodes      []Node     `json:"nodes"`
	Cgroups    []Cgroup   `json:"node_cgroups,omitempty"` // whole-node CPU, throttling, host starvation
	Links      []Link     `json:"links,omitempty"`        // bytes sent and received against link limits
	Applied    []Applied  `json:"applied_load,omitempty"` // loads asked of nodes, as carried
	Busiest    []Executor `json:"busiest"`                // the busiest executors, most first (at most 5)
	Restarts   int        `json:"worker_restarts"`
	SilentS    float64    `json:"silent_s"` // the longest a worker sent no report in the window, seconds
	Migrations int        `json:"migrations"`
	// Pending is a closed loop's trees in flight against its spouts' limit (Little's law), nil where not read.
	Pending *Pending `json:"pending,omitempty"`
	// Threads is each node's CPU by what used it, where every worker's reports carry their other
	// threads (thread_groups).
	Threads []Threads `json:"threads,omitempty"`
	// HostSpeed is what a CPU-second bought on the nodes' host through the window (NodeStats.HostSpeed):
	// runs alike but for it may differ by it (docs/statistics.md, "What limited a run").
	HostSpeed *hostspeed.Summary `json:"host_speed,omitempty"`
	// Bottleneck names what limited the run, with its figure; Rule is the precedence step that named it.
	Bottleneck string   `json:"bottleneck"`
	Rule       string   `json:"rule"`
	Unknown    []string `json:"unknown,omitempty"` // steps of the precedence this run cannot tell
}

// Node is one supervisor's CPU against its quota.
type Node struct {
	Host        string  `json:"host"`
	CPU         float64 `json:"cpu"`           // percent of a core
	Quota       float64 `json:"quota"`         // percent of a core
	UsedOfQuota float64 `json:"used_of_quota"` // CPU / Quota
}

// Executor is one task's busy fraction.
type Executor struct {
	Task      int     `json:"task"`
	Component string  `json:"component"`
	Host      string  `json:"host"`
	Busy      float64 `json:"busy"` // thread CPU time over the window
}

// Steps of the precedence a run may not read: named "unknown" in its diagnosis rather than passed over.
const (
	unreadPending  = "spouts at their pending limit"
	unreadLinks    = "saturated link (interface counters not read)"
	unreadTransfer = "saturated transfer thread" // a worker reported without its other threads (thread_groups)
)

// Run diagnoses one run.
func Run(in Input) Diagnosis {
	d := Diagnosis{Nodes: nodes(in), Busiest: busiest(in), Migrations: migrations(in), Applied: in.Applied, Pending: pending(in), Links: links(in)}
	var unread []string
	d.Cgroups, unread = cgroups(in.NodeStats)
	d.Unknown = starvationUnknown(in.NodeStats, unread)
	if !pendingRead(in, d) {
		d.Unknown = append(d.Unknown, unreadPending)
	}
	d.Unknown = append(d.Unknown, linksUnknown(in, d.Links)...)
	if ts, ok := threads(in); ok {
		d.Threads = ts
	} else {
		d.Unknown = append(d.Unknown, unreadTransfer)
	}
	if in.NodeStats != nil {
		d.HostSpeed = in.NodeStats.HostSpeed
	}
	d.Restarts, d.SilentS = placementEvents(in)
	d.Bottleneck, d.Rule = bottleneck(in, d)
	if d.Rule == "node at its quota" && in.SharedHost {
		d.Bottleneck += spinBeside(d)
	}
	return d
}

// spinBeside is ", beside sup2 spinning 0.45 cores idle on one host" where the other nodes of the full
// node's machine spun SpinBeside cores or more in the window (their executors' counted idle CPU), ""
// otherwise or where the threads were not read.
func spinBeside(d Diagnosis) string {
	full, _ := fullNodeOf(d)
	var who []string
	spin := 0.0
	for _, t := range d.Threads {
		if t.Host != full && t.Spin > 0 {
			who, spin = append(who, t.Host), spin+t.Spin
		}
	}
	if spin < SpinBeside {
		return ""
	}
	return fmt.Sprintf(", beside %s spinning %.2f cores idle on one host", strings.Join(who, " and "), spin)
}

func windowS(in Input) float64 { return float64(in.ToMs-in.FromMs) / 1000 }

func nodes(in Input) []Node {
	var out []Node
	for host, q := range in.Capacity {
		cpu, ok := in.NodeCPU[host]
		if !ok || !(q > 0) {
			continue
		}
		out = append(out, Node{Host: host, CPU: cpu, Quota: q, UsedOfQuota: cpu / q})
	}
	slices.SortFunc(out, func(a, b Node) int {
		return cmp.Or(cmp.Compare(b.UsedOfQuota, a.UsedOfQuota), cmp.Compare(a.Host, b.Host))
	})
	return out
}

// busiest are the executors with the most thread CPU over the window (reports inside it).
func busiest(in Input) []Executor {
	w := windowS(in)
	if w <= 0 {
		return nil
	}
	ns := map[int]int64{}
	for _, r := range in.Reports {
		if r.TimeMs <= in.FromMs || r.TimeMs > in.ToMs {
			continue
		}
		for _, c := range r.CPU {
			ns[c.Task] += c.CPUNs
		}
	}
	var out []Executor
	for task, n := range ns {
		t, ok := in.Tasks[task]
		if !ok || len(t.Component) > 1 && t.Component[:2] == "__" { // Storm's own executors
			continue
		}
		out = append(out, Executor{Task: task, Component: t.Component, Host: t.Host, Busy: float64(n) / 1e9 / w})
	}
	slices.SortFunc(out, func(a, b Executor) int { return cmp.Or(cmp.Compare(b.Busy, a.Busy), cmp.Compare(a.Task, b.Task)) })
	return out[:min(5, len(out))]
}

// migrations counts the applied reschedules inside the window.
func migrations(in Input) int {
	n := 0
	for _, d := range in.Decisions {
		if d.Kind == "reschedule" && d.Applied && d.TimeMs > in.FromMs && d.TimeMs <= in.ToMs {
			n++
		}
	}
	return n
}

// placementEvents counts worker restarts in the window (a worker reporting with a new incarnation) and
// the longest any worker of the run went without a report in it.
func placementEvents(in Input) (restarts int, silentS float64) {
	type worker struct {
		starts  map[int64]bool
		covered float64
	}
	ws := map[string]*worker{}
	for _, t := range in.Tasks {
		ws[fmt.Sprintf("%s:%d", t.Host, t.Port)] = &worker{starts: map[int64]bool{}}
	}
	for _, r := range in.Reports {
		w, ok := ws[fmt.Sprintf("%s:%d", r.Host, r.Port)]
		if !ok || r.TimeMs <= in.FromMs || r.TimeMs > in.ToMs {
			continue
		}
		w.starts[r.WorkerStartMs] = true
		w.covered += r.IntervalS
	}
	for _, w := range ws {
		restarts += max(0, len(w.starts)-1)
		silentS = max(silentS, windowS(in)-w.covered)
	}
	return restarts, max(0, silentS)
}

// starvationUnknown names host starvation among the unknown steps when no node could be judged, with
// why, or the nodes that could not.
func starvationUnknown(st *NodeStats, unread []string) []string {
	switch {
	case st == nil:
		return []string{"host starvation (cgroup throttling and host idle not read: no control layer)"}
	case len(unread) > 0 && len(unread) == len(st.Quota):
		return []string{"host starvation (" + cmp.Or(st.Unread, "no node's cgroup read at both ends of the window") + ")"}
	case len(unread) > 0:
		return []string{fmt.Sprintf("host starvation of %v (%s)", unread, cmp.Or(st.Unread, "cgroup not read at both ends of the window"))}
	}
	return nil
}

// bottleneck applies the precedence: executors not running, a host-starved node, a full link, a full
// node, a busy executor, a busy transfer thread, spouts at their pending limit, else none found among
// what was read.
func bottleneck(in Input, d Diagnosis) (what, rule string) {
	w := windowS(in)
	switch {
	case !anyReport(in):
		return "unknown: no worker report in the window", "unknown"
	case w > 0 && d.SilentS > NotRunningShare*w:
		return fmt.Sprintf("executors not running: a worker silent %.0f s of the %.0f s window (%d restarted, %d migrations)", d.SilentS, w, d.Restarts, d.Migrations), "not running"
	case len(StarvedText(d.Cgroups)) > 0:
		return StarvedText(d.Cgroups)[0], "host-starved"
	case fullLink(d) != "": // before the nodes: a node reads full also while its idle executors spin
		return fullLink(d), "link at its limit"
	case fullNode(d) != "":
		return fullNode(d), "node at its quota"
	case len(d.Busiest) > 0 && d.Busiest[0].Busy >= ExecutorBusy:
		e := d.Busiest[0]
		return fmt.Sprintf("%s task %d busy %.2f (%s)", e.Component, e.Task, e.Busy, e.Host), "executor busy"
	case busyTransfer(d.Threads) != "":
		return busyTransfer(d.Threads), "transfer thread busy"
	case d.Pending != nil && d.Pending.Share >= PendingFull:
		return pendingText(d.Pending, in), "pending limit"
	case len(d.Nodes) == 0 && len(d.Busiest) == 0:
		return "unknown: no CPU measured in the window", "unknown"
	}
	var notRead []string
	if len(d.Cgroups) == 0 {
		notRead = append(notRead, "host starvation")
	}
	if !pendingRead(in, d) {
		notRead = append(notRead, "pending limits")
	}
	if len(d.Links) == 0 || !in.LinksKnown || len(LinksUnread(in.NodeStats, d.Links)) > 0 {
		notRead = append(notRead, "links")
	}
	if d.Threads == nil {
		notRead = append(notRead, "transfer threads")
	}
	what = "none found (CPU below the quotas, executors below 0.9 busy"
	if d.Threads != nil {
		what += ", transfer threads too"
	}
	if len(notRead) > 0 {
		what += "; not read: " + strings.Join(notRead, ", ")
	}
	return what + ")", "none found"
}

// fullNode names the node using the largest share of its quota when that share is NodeFull or more
// ("sup1 CPU 99% of 0.50 core"), "" when none: by its cgroup where the run read them (the whole node:
// a straggler's burner, the supervisor), else by its workers' process CPU (" (workers)").
func fullNode(d Diagnosis) string {
	_, text := fullNodeOf(d)
	return text
}

// fullNodeOf is fullNode with the node's host ("", "" when none is full).
func fullNodeOf(d Diagnosis) (host, text string) {
	var top *Cgroup
	for i, c := range d.Cgroups {
		if top == nil || c.UsedOfQuota > top.UsedOfQuota {
			top = &d.Cgroups[i]
		}
	}
	switch {
	case top != nil && top.UsedOfQuota >= NodeFull:
		return top.Host, fmt.Sprintf("%s CPU %.0f%% of %.2f core", top.Host, 100*top.UsedOfQuota, top.Quota/100)
	case top == nil && len(d.Nodes) > 0 && d.Nodes[0].UsedOfQuota >= NodeFull:
		n := d.Nodes[0]
		return n.Host, fmt.Sprintf("%s CPU %.0f%% of %.2f core (workers)", n.Host, 100*n.UsedOfQuota, n.Quota/100)
	}
	return "", ""
}

func anyReport(in Input) bool {
	return slices.ContainsFunc(in.Reports, func(r protocol.WorkerReport) bool { return r.TimeMs > in.FromMs && r.TimeMs <= in.ToMs })
}

// Starved is the run's host-starved nodes, one text each, most starved first (StarvedText); none
// without a diagnosis (d nil).
func (d *Diagnosis) Starved() []string {
	if d == nil {
		return nil
	}
	return StarvedText(d.Cgroups)
}

// LoadShort is the run's loads applied short of their level, one text each (ShortText); none without
// a diagnosis (d nil).
func (d *Diagnosis) LoadShort() []string {
	if d == nil {
		return nil
	}
	return ShortText(d.Applied)
}

// Records are a run's records as the harness keeps them, from which Of builds the Input.
type Records struct {
	FromMs, ToMs      int64
	NodeCPU, NodeUtil map[string]float64 // the measurement's: NodeUtil is 100 x CPU / capacity
	Reports           []protocol.WorkerReport
	Decisions         []protocol.DecisionRecord
	Executors         []measure.ExecutorPlace
	NodeStats         *NodeStats
	Applied           []*Applied // per fault, nil where it put no load
	// LinkMbit and LinksKnown are Input's.
	LinkMbit   map[string]float64
	LinksKnown bool
	// As Input's: the measurement's throughput and mean latency, the spouts' pending limit per task.
	Throughput, LatencyMeanMs float64
	MaxPending                int
	PendingKnown              bool
	SharedHost                bool // Input's
}

// Of diagnoses a run from its records (the collect step, and Load for stored runs).
func Of(r Records) Diagnosis {
	in := Input{FromMs: r.FromMs, ToMs: r.ToMs, NodeCPU: r.NodeCPU, NodeStats: r.NodeStats,
		Capacity: map[string]float64{}, Reports: r.Reports, Decisions: r.Decisions, Tasks: map[int]Task{},
		Throughput: r.Throughput, LatencyMeanMs: r.LatencyMeanMs, MaxPending: r.MaxPending, PendingKnown: r.PendingKnown,
		LinkMbit: r.LinkMbit, LinksKnown: r.LinksKnown, SharedHost: r.SharedHost}
	for _, a := range r.Applied {
		if a != nil {
			in.Applied = append(in.Applied, *a)
		}
	}
	if r.NodeStats != nil {
		in.Applied = append(in.Applied, r.NodeStats.Background...)
	}
	for host, cpu := range r.NodeCPU {
		if u := r.NodeUtil[host]; u > 0 {
			in.Capacity[host] = 100 * cpu / u
		}
	}
	for _, e := range r.Executors {
		for t := e.Start; t <= e.End; t++ {
			in.Tasks[t] = Task{Component: e.Component, Host: e.Host, Port: e.Port}
		}
	}
	return Run(in)
}
