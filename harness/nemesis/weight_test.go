package nemesis

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/protocol"
)

// fakeControl answers Exec with answer(host, cmd) and records the commands.
type fakeControl struct {
	control.Control
	answer func(host, cmd string) (string, error)
	cmds   []string
}

func (f *fakeControl) Exec(_ context.Context, host, cmd string) (string, error) {
	f.cmds = append(f.cmds, host+": "+cmd)
	return f.answer(host, cmd)
}

// TestBurnerPlansSpread: a burner runs at least as many tasks as its node has CPUs, splitting the same
// cores among them (80% of 0.5 core on 2 CPUs: 2 tasks of 0.2; 20% of 0.25 core: 2 of 0.025; 100% of
// 2 cores on 2 CPUs: unchanged, 2 tasks of 1; a node of unknown CPUs: ceil of the cores, 1 task).
func TestBurnerPlansSpread(t *testing.T) {
	got, err := burnerPlans(80, map[string]float64{"a": 0.5, "b": 0.25, "c": 2, "d": 0.5}, map[string]int{"a": 2, "b": 2, "c": 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []burnerPlan{{host: "a", tasks: 2, busy: 0.2}, {host: "b", tasks: 2, busy: 0.1}, {host: "c", tasks: 2, busy: 0.8}, {host: "d", tasks: 1, busy: 0.4}}
	for i, w := range want {
		if g := got[i]; g.host != w.host || g.tasks != w.tasks || math.Abs(g.busy-w.busy) > 1e-9 {
			t.Errorf("plan %d = %+v, want %+v", i, g, w)
		}
	}
	if args := (burnerPlan{host: "a", tasks: 2, busy: 0.2}).args(); !strings.Contains(strings.Join(args, " "), "--busy-clock cpu") {
		t.Errorf("args %v: a burner must spin on CPU time", args)
	}
}

// TestSpread reads nproc through the control layer, capped at maxSpread; an unreadable host is left
// out (its burner sized by its cores alone), and without a control layer nothing is read.
func TestSpread(t *testing.T) {
	ctl := &fakeControl{answer: func(host, _ string) (string, error) {
		switch host {
		case "two":
			return "2\n", nil
		case "many":
			return "64\n", nil
		}
		return "", errors.New("exit 127")
	}}
	n := &Nemesis{ctl: ctl, name: "t", logf: t.Logf}
	got := n.spread(t.Context(), []string{"two", "many", "gone"})
	if len(got) != 2 || got["two"] != 2 || got["many"] != maxSpread {
		t.Errorf("spread = %v, want two:2 many:%d", got, maxSpread)
	}
	if got := (&Nemesis{name: "t", logf: t.Logf}).spread(t.Context(), []string{"two"}); len(got) != 0 {
		t.Errorf("spread without control = %v, want none", got)
	}
}

// TestRaiseWeight: the burner's threads are reniced on its host through the control layer; a host
// that refuses (no capability) is logged, not an error, naming the capability.
func TestRaiseWeight(t *testing.T) {
	var logs []string
	logf := func(format string, a ...any) { logs = append(logs, format) }
	p := burnerPlan{host: "sup1", tasks: 2, busy: 0.2, role: "straggler-"}
	ok := &fakeControl{answer: func(string, string) (string, error) { return "31\n", nil }}
	(&Nemesis{ctl: ok, name: "t", logf: logf}).raiseWeight(t.Context(), p)
	if len(ok.cmds) != 1 || !strings.HasPrefix(ok.cmds[0], "sup1: ") || !strings.Contains(ok.cmds[0], "[s]tormlab-burner-straggler-sup1-") || !strings.Contains(ok.cmds[0], "renice -n -20") {
		t.Errorf("commands %q: want one renice of the burner's JVM on sup1", ok.cmds)
	}
	refused := &fakeControl{answer: func(string, string) (string, error) {
		return "renice: failed to set priority for 77 (process ID): Permission denied", errors.New("exit status 4")
	}}
	logs = nil
	(&Nemesis{ctl: refused, name: "t", logf: logf}).raiseWeight(t.Context(), p)
	if len(logs) != 1 || !strings.Contains(logs[0], "CAP_SYS_NICE") || !strings.Contains(logs[0], "applied load is recorded") {
		t.Errorf("log %q: want the refusal said, naming the capability", logs)
	}
}

// TestReniceCmd runs the renice script on this machine against a process of its own (a positive nice:
// any user may lower a priority) and checks every thread of it got the value, and that the probe's
// own shell did not match. Skipped where pgrep or renice is missing.
func TestReniceCmd(t *testing.T) {
	for _, tool := range []string{"pgrep", "renice", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	mark := "stormlab-renice-test-" + strconv.Itoa(os.Getpid())
	cmd := exec.Command("sh", "-c", "sleep 30; : "+mark) // two commands: the shell stays, holding mark
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	out, err := exec.Command("sh", "-c", reniceCmd(mark, 7)).CombinedOutput()
	if err != nil {
		t.Fatalf("renice script: %v %s", err, out)
	}
	if strings.TrimSpace(string(out)) != "1" { // the shell has one thread
		t.Errorf("reniced %q threads, want 1", out)
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if fields[16] != "7" { // field 19 of stat: nice
		t.Errorf("nice %s, want 7", fields[16])
	}
	var exit *exec.ExitError
	if out, err := exec.Command("sh", "-c", reniceCmd(mark+"-none", 7)).CombinedOutput(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("no such JVM: %v %s, want exit 3", err, out)
	}
}

// TestLoadApplied: background load records, per node, the cores its burner was asked and what its
// worker's reports say it used: 20% of sup1's 0.5 core is 0.10 asked, reports of 0.04 and 0.08 core
// in the window give 0.06 used; sup2's burner sent no report in it, its use unknown. Without a
// background load there is none.
func TestLoadApplied(t *testing.T) {
	plans, err := burnerPlans(20, map[string]float64{"sup1": 0.5, "sup2": 1}, map[string]int{"sup1": 2, "sup2": 2})
	if err != nil {
		t.Fatal(err)
	}
	n := &Nemesis{load: &backgroundLoad{plans: plans, fromMs: 1_000}}
	tops := []protocol.TopologyState{{ID: plans[0].name() + "-4-17", WorkerCPU: []protocol.WorkerSample{
		{TimeMs: 9_000, CPUPercent: 90}, {TimeMs: 13_000, CPUPercent: 4}, {TimeMs: 15_000, CPUPercent: 8}}}}
	got := n.LoadApplied(tops, 10_000, 30_000)
	if len(got) != 2 {
		t.Fatalf("applied %+v, want one per node", got)
	}
	a, b := got[0], got[1]
	if a.Host != "sup1" || a.Kind != string(fault.CPULoad) || math.Abs(a.Asked-0.10) > 1e-9 || a.Used == nil || math.Abs(*a.Used-0.06) > 1e-9 || a.Reports != 2 {
		t.Errorf("sup1 %+v, want 0.10 asked, 0.06 used over 2 reports", a)
	}
	if b.Host != "sup2" || math.Abs(b.Asked-0.20) > 1e-9 || b.Used != nil {
		t.Errorf("sup2 %+v, want 0.20 asked, use unknown", b)
	}
	if got := (&Nemesis{}).LoadApplied(tops, 10_000, 30_000); got != nil {
		t.Errorf("without background load: %+v", got)
	}
	var none *Nemesis
	if got := none.LoadApplied(tops, 0, time.Now().UnixMilli()); got != nil {
		t.Errorf("nil nemesis: %+v", got)
	}
}

// stateStorm is a Storm whose service state holds tops.
type stateStorm struct {
	Storm
	tops []protocol.TopologyState
}

func (s stateStorm) State(context.Context, int64) (*protocol.State, error) {
	return &protocol.State{Topologies: s.tops}, nil
}

// TestSampleIntoRecordsBackground: a window's node samples record, at its close, the background load
// each node carried since its opening (reports after the opening only; the reads themselves left out
// here, as a run measuring their cost does, which Unread says).
func TestSampleIntoRecordsBackground(t *testing.T) {
	plans, err := burnerPlans(50, map[string]float64{"sup1": 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	tops := []protocol.TopologyState{{ID: plans[0].name() + "-4-17", WorkerCPU: []protocol.WorkerSample{
		{TimeMs: now - 40_000, CPUPercent: 90}, {TimeMs: now - 10_000, CPUPercent: 24}}}}
	n := &Nemesis{storm: stateStorm{tops: tops}, name: "t", logf: t.Logf, load: &backgroundLoad{plans: plans, fromMs: now - 120_000}}
	st := n.SampleInto(t.Context(), nil, map[string]float64{"sup1": 50}, []string{"sup1"}, true)
	if st.Background != nil || n.load.openMs < now {
		t.Errorf("at the opening: background %+v, window opened at %d (want none, and at or after %d)", st.Background, n.load.openMs, now)
	}
	n.load.openMs = now - 30_000 // a 30 s window, its close now
	st = n.SampleInto(t.Context(), st, nil, []string{"sup1"}, true)
	if len(st.Background) != 1 || st.Background[0].Used == nil || math.Abs(*st.Background[0].Used-0.24) > 1e-9 || math.Abs(st.Background[0].Asked-0.25) > 1e-9 {
		t.Errorf("background %+v: want sup1 0.25 asked, 0.24 used (the report before the opening left out)", st.Background)
	}
	if !strings.Contains(st.Unread, "left the node samples out") {
		t.Errorf("unread %q: want the left-out reads said", st.Unread)
	}
}

// namedControl is a fakeControl with a Name.
type namedControl struct {
	*fakeControl
	name string
}

func (c namedControl) Name() string { return c.name }

// TestSampleIntoHostSpeed: the host's speed is sampled from a window's opening to its close where the
// nodes share the harness's machine (the docker control), and not on a target's machines (ssh) nor when
// the run leaves the node reads out.
func TestSampleIntoHostSpeed(t *testing.T) {
	sample := func(host, _ string) (string, error) { return "usage_ns 1\n", nil }
	for _, c := range []struct {
		ctl  string
		off  bool
		want bool
	}{{"docker", false, true}, {"ssh", false, false}, {"docker", true, false}} {
		n := &Nemesis{ctl: namedControl{&fakeControl{answer: sample}, c.ctl}, name: "t", logf: t.Logf}
		st := n.SampleInto(t.Context(), nil, map[string]float64{"sup1": 50}, []string{"sup1"}, c.off)
		st = n.SampleInto(t.Context(), st, nil, []string{"sup1"}, c.off)
		if got := st.HostSpeed != nil; got != c.want {
			t.Errorf("%s off=%v: host speed %+v, want sampled %v", c.ctl, c.off, st.HostSpeed, c.want)
		}
		if st.HostSpeed != nil && (st.HostSpeed.Samples < 1 || !(st.HostSpeed.NsPerStep > 0)) {
			t.Errorf("%s: host speed %+v: want at least the opening's sample", c.ctl, st.HostSpeed)
		}
		if n.speed != nil {
			t.Errorf("%s: the sampling still runs after the close", c.ctl)
		}
	}
}
