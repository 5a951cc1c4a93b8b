package diagnose

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// withGroups gives base()'s workers their other threads. Per 5 s report, by hand: sup1's worker has its
// transfer thread at transferNs, Netty's server and client threads at 0.25 s each, a timer at 0.05 s,
// and its process at 70% of a core (3.5 s) over split's 2 s, of which spinNs spinning in 500 spells and 20,000 parks: its JVM's own
// is 3.5 - 2 - transfer - 0.55 s. sup2's worker: Netty at 0.5 s, its process at 130% (6.5 s) over
// 6 s of executors: 0 s of its own.
func withGroups(transferNs, spinNs int64) Input {
	in := base()
	for i := range in.Reports {
		r := &in.Reports[i]
		if r.Host == "sup1" {
			r.CPU[0].SpinNs, r.CPU[0].Spells, r.CPU[0].Parks = spinNs, 500, 20_000
			r.WorkerCPUPercent = 70
			r.ThreadGroups = []protocol.ThreadGroupCPU{{Name: "Netty-server-localhost-#-worker-#", Threads: 2, CPUNs: 25e7},
				{Name: "Worker-Transfer", Threads: 1, CPUNs: transferNs}, {Name: "client-worker-#", Threads: 1, CPUNs: 25e7},
				{Name: "heartbeat-timer", Threads: 1, CPUNs: 5e7}}
		} else {
			r.WorkerCPUPercent = 130
			r.ThreadGroups = []protocol.ThreadGroupCPU{{Name: "Netty-server-localhost-#-worker-#", Threads: 2, CPUNs: 5e8}}
		}
	}
	return in
}

// TestThreads: each node's CPU by what used it, in cores over the 40 s window (by hand from withGroups:
// sup1 executors 0.40 of which 0.10 spinning in 100 spells and 4,000 parks a second, messaging (0.5 + 0.25 + 0.25) / 5 = 0.20, Storm 0.01, JVM
// (3.5 - 2 - 1.05) / 5 = 0.09; sup2 executors 1.20, messaging 0.10, JVM 0), within 1e-9.
func TestThreads(t *testing.T) {
	d := Run(withGroups(5e8, 5e8))
	want := []Threads{
		{Host: "sup1", Workers: 1, Executors: 0.30, Spin: 0.10, Spells: 100, Parks: 4000, Messaging: 0.20, Storm: 0.01, JVM: 0.09, Transfer: 0.10, TransferWorker: "sup1:6700"},
		{Host: "sup2", Workers: 1, Executors: 1.20, Messaging: 0.10},
	}
	if len(d.Threads) != len(want) {
		t.Fatalf("threads %+v, want %+v", d.Threads, want)
	}
	for i, w := range want {
		g := d.Threads[i]
		for _, f := range [][2]float64{{g.Executors, w.Executors}, {g.Spin, w.Spin}, {g.Spells, w.Spells}, {g.Parks, w.Parks}, {g.Messaging, w.Messaging}, {g.Storm, w.Storm},
			{g.JVM, w.JVM}, {g.Transfer, w.Transfer}} {
			if math.Abs(f[0]-f[1]) > 1e-9 {
				t.Errorf("%s: %+v, want %+v", w.Host, g, w)
				break
			}
		}
		if g.Host != w.Host || g.Workers != w.Workers || g.TransferWorker != w.TransferWorker {
			t.Errorf("%s: %+v, want %+v", w.Host, g, w)
		}
	}
	if slices.Contains(d.Unknown, unreadTransfer) {
		t.Errorf("unknown %v: every worker sent its other threads, the transfer threads are read", d.Unknown)
	}
	if got, want := d.ThreadsText(), "sup1 executors 0.40 (0.10 spinning), messaging 0.20, Storm 0.01, JVM 0.09 cores; "+
		"sup2 executors 1.20 (0.00 spinning), messaging 0.10, Storm 0.00, JVM 0.00 cores"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// TestTransferPrecedence: a transfer thread busy 0.9 of the window or more is the bottleneck after a busy
// executor (4.6 s of each 5 s = 0.92), none found below it; a worker that reported without its other
// threads leaves the step unknown and the split unread.
func TestTransferPrecedence(t *testing.T) {
	busyExecutor := withGroups(46e8, 0)
	for i := range busyExecutor.Reports {
		if busyExecutor.Reports[i].Host == "sup2" {
			busyExecutor.Reports[i].CPU[0].CPUNs = 4.8e9
		}
	}
	oneWithout := withGroups(46e8, 0)
	for i := range oneWithout.Reports {
		if oneWithout.Reports[i].Host == "sup2" {
			oneWithout.Reports[i].ThreadGroups = nil // instrumentation that predates them
		}
	}
	for _, c := range []struct {
		name       string
		in         Input
		rule, want string
		read       bool
	}{
		{"busy transfer thread", withGroups(46e8, 0), "transfer thread busy", "transfer thread of sup1:6700 busy 0.92", true},
		{"a busy executor first", busyExecutor, "executor busy", "count task 2 busy 0.96 (sup2)", true},
		{"below 0.9", withGroups(44e8, 0), "none found", "executors below 0.9 busy, transfer threads too; not read: host starvation, pending limits, links)", true},
		{"a worker without its threads", oneWithout, "none found", "not read: host starvation, pending limits, links, transfer threads)", false},
	} {
		d := Run(c.in)
		if d.Rule != c.rule || !strings.Contains(d.Bottleneck, c.want) {
			t.Errorf("%s: rule %q, bottleneck %q; want %q containing %q", c.name, d.Rule, d.Bottleneck, c.rule, c.want)
		}
		if read := !slices.Contains(d.Unknown, unreadTransfer); read != c.read || (d.Threads != nil) != c.read {
			t.Errorf("%s: unknown %v, %d nodes split: want the transfer threads read %v", c.name, d.Unknown, len(d.Threads), c.read)
		}
	}
}
