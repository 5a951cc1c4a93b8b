package docker

import (
	"strings"
	"testing"
)

// TestTbfArgs: the tc command that limits a supervisor's egress. The rate is in bits (tc's mbit is
// 10^6 bits); the burst is 10 ms of the rate, at least 16 KiB (link.go).
func TestTbfArgs(t *testing.T) {
	for _, c := range []struct {
		mbit float64
		want string
	}{
		{2, "qdisc replace dev eth0 root tbf rate 2000000bit burst 16384 latency 100ms"},         // 10 ms = 2,500 B < 16 KiB
		{0.5, "qdisc replace dev eth0 root tbf rate 500000bit burst 16384 latency 100ms"},        // fractions of a Mbit
		{1000, "qdisc replace dev eth0 root tbf rate 1000000000bit burst 1250000 latency 100ms"}, // 10 ms of 125 MB/s
	} {
		if got := strings.Join(tbfArgs(c.mbit), " "); got != c.want {
			t.Errorf("%g Mbit/s: tc %s\nwant tc %s", c.mbit, got, c.want)
		}
	}
	if got, want := strings.Join(inNetns(4242, "tc", "qdisc", "show"), " "), "nsenter -t 4242 -n tc qdisc show"; got != want {
		t.Errorf("in the container's namespace: %s, want %s", got, want)
	}
}

// TestCheckQdisc reads tc's JSON listing (as `tc -j qdisc show dev eth0` prints it, iproute2 6.1):
// tbf's rate is in bytes per second.
func TestCheckQdisc(t *testing.T) {
	const tbf2 = `[{"kind":"tbf","handle":"8002:","root":true,"refcnt":2,"options":{"rate":250000,"burst":16384,"lat":100000}}]`
	const noqueue = `[{"kind":"noqueue","handle":"0:","root":true,"refcnt":2,"options":{}}]`
	for _, c := range []struct {
		name    string
		listing string
		mbit    float64
		wantErr string
	}{
		{"tbf at the rate", tbf2, 2, ""},
		{"tbf at another rate", tbf2, 4, "want tbf at 500000 B/s"},
		{"no limit set", noqueue, 2, "is noqueue"},
		{"removed", noqueue, 0, ""},
		{"not removed", tbf2, 0, "still tbf"},
		{"empty listing", `[]`, 2, "no root qdisc"},
		{"not JSON", `qdisc noqueue 0: root`, 2, "read tc's qdisc listing"},
	} {
		err := checkQdisc(c.listing, c.mbit)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wantErr)
		}
	}
}

// TestLinkRateOptions: WithLinkRate fills in the supervisors whose spec sets no rate, whichever option
// named them; out-of-range rates are refused naming the range.
func TestLinkRateOptions(t *testing.T) {
	cfg, err := configure([]Option{WithLinkRate(2), WithSupervisors(
		SupervisorSpec{Host: "sup1", CPUs: 0.5, MemoryMB: 1024},
		SupervisorSpec{Host: "sup2", CPUs: 0.5, MemoryMB: 1024, LinkMbit: 10})})
	if err != nil {
		t.Fatal(err)
	}
	if got := []float64{cfg.supervisors[0].LinkMbit, cfg.supervisors[1].LinkMbit}; got[0] != 2 || got[1] != 10 {
		t.Errorf("link rates %v, want [2 10] (the option's, the spec's own)", got)
	}
	if cfg, _ := configure(nil); limited(cfg.supervisors) {
		t.Errorf("default cluster has a link rate: %+v", cfg.supervisors)
	}
	for _, o := range []Option{WithLinkRate(-1), WithLinkRate(2 * MaxLinkMbit),
		WithSupervisors(SupervisorSpec{Host: "sup1", CPUs: 0.5, MemoryMB: 1024, LinkMbit: -3})} {
		if _, err := configure([]Option{o}); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("bad link rate: error %v, want out of range", err)
		}
	}
}

// TestCheckLinkTools: a host without tc or nsenter is told which packages to install.
func TestCheckLinkTools(t *testing.T) {
	saved := linkTools
	defer func() { linkTools = saved }()
	linkTools = []struct{ path, pkg string }{{"/nonexistent/tc", "iproute2"}, {"/nonexistent/ip", "iproute2"}, {"/nonexistent/nsenter", "util-linux"}}
	err := checkLinkTools()
	if err == nil || !strings.Contains(err.Error(), "apt-get install iproute2 util-linux") || !strings.Contains(err.Error(), "/nonexistent/nsenter") {
		t.Errorf("error %v, want one naming the missing tools and `apt-get install iproute2 util-linux`", err)
	}
	linkTools = nil
	if err := checkLinkTools(); err != nil {
		t.Errorf("no tools needed: %v", err)
	}
}
