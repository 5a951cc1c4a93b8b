package fault

import (
	"strings"
	"testing"
	"time"
)

func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Fault
		err  string
	}{
		{"kill-supervisor@30s+20s:supervisor-1", Fault{KillSupervisor, 30 * time.Second, 20 * time.Second, "supervisor-1"}, ""},
		{"restart-zookeeper@1m+10s", Fault{RestartZooKeeper, time.Minute, 10 * time.Second, ""}, ""},
		{"pause-worker@0s+5s:s2", Fault{PauseWorker, 0, 5 * time.Second, "s2"}, ""},
		{"restart-service@10s+5s", Fault{RestartService, 10 * time.Second, 5 * time.Second, ""}, ""},
		{"reboot@10s+5s", Fault{}, `unknown kind "reboot"`},
		{"kill-supervisor+5s", Fault{}, "no @AT"},
		{"kill-supervisor@10s", Fault{}, "no +DURATION"},
		{"kill-supervisor@ten+5s", Fault{}, `AT "ten"`},
		{"kill-supervisor@10s+x:s1", Fault{}, `DURATION "x"`},
		{"delay@30s+20s:sup1-sup2=50ms", Fault{Delay, 30 * time.Second, 20 * time.Second, "sup1-sup2=50ms"}, ""},
		{"delay@0s+1m:a-b-c=0s", Fault{Delay, 0, time.Minute, "a-b-c=0s"}, ""},
		{"delay@30s+20s:sup1-sup2", Fault{}, "no =DELAY"},
		{"delay@30s+20s:sup1=50ms", Fault{}, "no NODE_A-NODE_B"},
		{"delay@30s+20s:sup1-sup2=soon", Fault{}, `DELAY "soon" is not a duration`},
		{"delay@30s+20s:sup1-sup2=1.5ms", Fault{}, "whole milliseconds"},
		{"delay@30s+20s:sup1-sup2=-5ms", Fault{}, "whole milliseconds"},
		{"delay@30s+20s:sup1-sup2=11s", Fault{}, "whole milliseconds in [0, 10s]"},
		{"delay@30s+20s", Fault{}, "no =DELAY"},
		{"straggler@10s+40s:sup1=80", Fault{Straggler, 10 * time.Second, 40 * time.Second, "sup1=80"}, ""},
		{"straggler@10s+40s:sup1=12.5", Fault{Straggler, 10 * time.Second, 40 * time.Second, "sup1=12.5"}, ""},
		{"straggler@10s+40s:sup1", Fault{}, "is not HOST=PERCENT"},
		{"straggler@10s+40s:=50", Fault{}, "is not HOST=PERCENT"},
		{"straggler@10s+40s:sup1=0", Fault{}, "must be a number in (0, 100]"},
		{"straggler@10s+40s:sup1=150", Fault{}, "must be a number in (0, 100]"},
		{"straggler@10s+40s:sup1=lots", Fault{}, "must be a number in (0, 100]"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "write KIND@AT") {
				t.Errorf("Parse(%q) error %v, want one containing %q and the syntax", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("Parse(%q.String()=%q) = %+v, %v", tc.in, got.String(), back, err)
		}
	}
}

func TestValidateFaults(t *testing.T) {
	hosts := []string{"s1", "s2"}
	f := func(s string) Fault {
		x, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, tc := range []struct {
		name   string
		faults []Fault
		err    string
	}{
		{"each kind once", []Fault{f("kill-supervisor@10s+10s:s1"), f("pause-worker@25s+5s:s2"), f("restart-zookeeper@35s+5s"), f("restart-service@45s+5s")}, ""},
		{"ends at the window's end", []Fault{f("restart-service@50s+10s")}, ""},
		{"unknown node", []Fault{f("kill-supervisor@10s+10s:s9")}, `node "s9" is not a supervisor`},
		{"no target", []Fault{f("pause-worker@10s+10s")}, `node "" is not a supervisor`},
		{"target on zookeeper", []Fault{f("restart-zookeeper@10s+10s:s1")}, "takes no argument"},
		{"after the window", []Fault{f("restart-service@55s+10s")}, "after the 1m0s measurement window"},
		{"zero duration", []Fault{{Kind: RestartService, At: time.Second}}, "DURATION > 0"},
		{"last supervisor", []Fault{f("kill-supervisor@10s+20s:s1"), f("kill-supervisor@20s+5s:s2")}, "kills the last running supervisor"},
		{"kills one after the other", []Fault{f("kill-supervisor@10s+10s:s1"), f("kill-supervisor@20s+5s:s2")}, ""},
		{"unknown kind", []Fault{{Kind: "x", Duration: time.Second}}, `unknown kind "x"`},
		{"delay", []Fault{f("delay@10s+20s:s1-s2=50ms")}, ""},
		{"delay unknown node", []Fault{f("delay@10s+20s:s1-s9=50ms")}, `"s1-s9" is not two supervisors of this cluster`},
		{"delay same node", []Fault{{Kind: Delay, At: time.Second, Duration: time.Second, Arg: "s2-s2=5ms"}}, "both nodes are s2"},
		{"delay after the window", []Fault{f("delay@50s+20s:s1-s2=50ms")}, "after the 1m0s measurement window"},
		{"delay before the window", []Fault{{Kind: Delay, At: -time.Second, Duration: time.Second, Arg: "s1-s2=5ms"}}, "AT must be >= 0"},
		{"delay bad target", []Fault{{Kind: Delay, At: time.Second, Duration: time.Second, Arg: "s1-s2"}}, "no =DELAY"},
		{"two delays on one node", []Fault{f("delay@10s+20s:s1-s2=50ms"), f("delay@25s+10s:s2-s1=5ms")}, "one delay per node at a time"},
		{"two delays one after the other", []Fault{f("delay@10s+20s:s1-s2=50ms"), f("delay@30s+10s:s2-s1=5ms")}, ""},
		{"straggler", []Fault{f("straggler@10s+40s:s1=80")}, ""},
		{"straggler unknown node", []Fault{f("straggler@10s+40s:s9=80")}, `"s9" is not a supervisor of this cluster`},
		{"straggler after the window", []Fault{f("straggler@30s+40s:s1=80")}, "after the 1m0s measurement window"},
		{"two stragglers on one node", []Fault{f("straggler@10s+20s:s1=50"), f("straggler@20s+20s:s1=30")}, "overlaps"},
		{"stragglers on two nodes", []Fault{f("straggler@10s+20s:s1=50"), f("straggler@20s+20s:s2=30")}, ""},
	} {
		err := Validate(tc.faults, hosts, time.Minute)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: ValidateFaults = %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestParseDelayTarget: node names are split where both halves are supervisors (names may hold '-').
func TestParseDelayTarget(t *testing.T) {
	hosts := []string{"sup-1", "sup-2", "sup3"}
	for _, tc := range []struct {
		in   string
		want DelayArg
		err  string
	}{
		{"sup-1-sup-2=50ms", DelayArg{"sup-1", "sup-2", 50 * time.Millisecond}, ""},
		{"sup3-sup-1=0s", DelayArg{"sup3", "sup-1", 0}, ""},
		{"sup3-sup-1=1s", DelayArg{"sup3", "sup-1", time.Second}, ""},
		{"sup3-sup4=1ms", DelayArg{}, `"sup3-sup4" is not two supervisors of this cluster joined by '-' (supervisors: sup-1, sup-2, sup3)`},
		{"sup3=1ms", DelayArg{}, "no NODE_A-NODE_B"},
		{"-sup3=1ms", DelayArg{}, "is not two supervisors"},
		{"sup3-sup3=1ms", DelayArg{}, "both nodes are sup3"},
	} {
		got, err := ParseDelayArg(tc.in, hosts)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseDelayTarget(%q) error %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseDelayTarget(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}
