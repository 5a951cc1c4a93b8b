package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// TransferBusy is the share of the window at which a worker's transfer thread is busy: as an executor's
// (ExecutorBusy), one thread that cannot do more.
const TransferBusy = 0.90

// transferGroup is the thread of a Storm 2 worker that takes its executors' tuples for other workers
// off the transfer queue and hands them to Netty in one batch per destination (WorkerTransfer).
const transferGroup = "Worker-Transfer"

// Threads is one node's CPU in the window by what used it, in cores, summed over its workers (the
// reports' thread CPU, thread_groups and process CPU): the executors' threads (Spin the part of it they
// spent idle in Storm's wait strategy: counted, and the estimate of each spell's last park), the workers' messaging threads (Netty's, sending and
// receiving, and the transfer thread), Storm's other threads (timers, heartbeats, the reporter), and the
// JVMs' own (garbage collection, the JIT compilers: what the process used besides its Java threads).
type Threads struct {
	Host      string  `json:"host"`
	Workers   int     `json:"workers"`
	Executors float64 `json:"executors"`
	Spin      float64 `json:"spin"`
	// Spells is how often a second the executors' threads went idle (their wait strategy's spells,
	// where counted): a twin that idles more often than its run shows here.
	Spells float64 `json:"spells,omitempty"`
	// Parks is how often a second they parked in it (each a timer's wake-up, where counted).
	Parks     float64 `json:"parks,omitempty"`
	Messaging float64 `json:"messaging"`
	Storm     float64 `json:"storm"`
	JVM       float64 `json:"jvm"`
	// Transfer is its busiest worker's transfer thread: its CPU over the window, and the worker.
	Transfer       float64 `json:"transfer"`
	TransferWorker string  `json:"transfer_worker,omitempty"`
}

// messaging says whether a thread group is one of a worker's messaging threads: the transfer thread and
// Netty's (Storm 2.8 names its server threads "Netty-server-HOST-PORT-worker-N" and its client threads
// "client-worker-N", "client-boss-N").
func messaging(group string) bool {
	return group == transferGroup || strings.Contains(group, "Netty") || strings.HasPrefix(group, "client-")
}

// threads splits each node's CPU by what used it, from the reports inside the window; ok is false when
// a worker reported in the window without its other threads (instrumentation that predates them).
func threads(in Input) (out []Threads, ok bool) {
	w := windowS(in)
	if w <= 0 || !anyReport(in) {
		return nil, false
	}
	byHost := map[string]*Threads{}
	seen, grouped := map[string]bool{}, map[string]bool{}
	transfer := map[string]float64{}
	for _, r := range in.Reports {
		if r.TimeMs <= in.FromMs || r.TimeMs > in.ToMs {
			continue
		}
		worker := fmt.Sprintf("%s:%d", r.Host, r.Port)
		n := byHost[r.Host]
		if n == nil {
			n = &Threads{Host: r.Host}
			byHost[r.Host] = n
		}
		if !seen[worker] {
			seen[worker] = true
			n.Workers++
		}
		java := 0.0
		for _, c := range r.CPU {
			n.Executors += float64(c.CPUNs-c.Idle()) / 1e9
			n.Spin += float64(c.Idle()) / 1e9
			n.Spells += float64(c.Spells)
			n.Parks += float64(c.Parks)
			java += float64(c.CPUNs) / 1e9
		}
		for _, g := range r.ThreadGroups {
			grouped[worker] = true
			s := float64(g.CPUNs) / 1e9
			java += s
			switch {
			case g.Name == transferGroup:
				transfer[worker] += s
				n.Messaging += s
			case messaging(g.Name):
				n.Messaging += s
			default:
				n.Storm += s
			}
		}
		if len(r.ThreadGroups) > 0 {
			n.JVM += max(0, r.WorkerCPUPercent/100*r.IntervalS-java)
		}
	}
	for _, n := range byHost {
		n.Executors, n.Spin, n.Spells, n.Parks, n.Messaging, n.Storm, n.JVM = n.Executors/w, n.Spin/w, n.Spells/w, n.Parks/w, n.Messaging/w, n.Storm/w, n.JVM/w
		out = append(out, *n)
	}
	for worker, s := range transfer {
		host := worker[:strings.LastIndexByte(worker, ':')]
		n := &out[slices.IndexFunc(out, func(t Threads) bool { return t.Host == host })]
		if s/w > n.Transfer || s/w == n.Transfer && worker < n.TransferWorker {
			n.Transfer, n.TransferWorker = s/w, worker
		}
	}
	slices.SortFunc(out, func(a, b Threads) int { return cmp.Compare(a.Host, b.Host) })
	return out, len(grouped) == len(seen)
}

// busyTransfer names the busiest transfer thread when it is busy TransferBusy of the window or more.
func busyTransfer(ts []Threads) string {
	var top *Threads
	for i, t := range ts {
		if top == nil || t.Transfer > top.Transfer {
			top = &ts[i]
		}
	}
	if top == nil || top.Transfer < TransferBusy {
		return ""
	}
	return fmt.Sprintf("transfer thread of %s busy %.2f", top.TransferWorker, top.Transfer)
}

// ThreadsText is the nodes' CPU by what used it in one line, for a person reading a run's output ("sup1
// executors 0.21 (0.02 spinning), messaging 0.17, Storm 0.02, JVM 0.03 cores; sup2 ..."); "" when the
// reports did not carry it.
func (d *Diagnosis) ThreadsText() string {
	if d == nil {
		return ""
	}
	var parts []string
	for _, t := range d.Threads {
		parts = append(parts, fmt.Sprintf("%s executors %.2f (%.2f spinning), messaging %.2f, Storm %.2f, JVM %.2f cores",
			t.Host, t.Executors+t.Spin, t.Spin, t.Messaging, t.Storm, t.JVM))
	}
	return strings.Join(parts, "; ")
}
