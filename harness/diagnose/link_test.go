package diagnose

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// withLinks gives base's two nodes cgroup samples over its 40 s window (each at 0.6 of its quota, not
// throttled, the host 30% idle) and interface counters: sup1 sent sent1 bytes and sup2 sent2, each
// received 1 MB.
func withLinks(sent1, sent2 int64, limit map[string]float64, known bool) Input {
	in := base()
	st := &NodeStats{Quota: map[string]float64{"sup1": 50, "sup2": 50}, From: map[string]Sample{}, To: map[string]Sample{}}
	for host, sent := range map[string]int64{"sup1": sent1, "sup2": sent2} {
		a := sample(0, 0, 0, 0, 0, 0, 0, 0, -1)
		b := sample(40, 12, 400, 0, 0, 5600, 8000, 1, -1)
		a.TxBytes, a.RxBytes = i64(1e6), i64(0)
		b.TxBytes, b.RxBytes = i64(1e6+sent), i64(1e6)
		st.From[host], st.To[host] = a, b
	}
	in.NodeStats, in.LinkMbit, in.LinksKnown = st, limit, known
	return in
}

// withoutCounters takes host's interface counters out of in's closing sample, as a failed read leaves it.
func withoutCounters(in Input, host string) Input {
	b := in.NodeStats.To[host]
	b.TxBytes, b.RxBytes = nil, nil
	in.NodeStats.To[host] = b
	return in
}

// TestLinks: the link step of the precedence and the links' figures. By hand: 9.8e6 bytes in 40 s =
// 1.96 Mbit/s = 98% of a 2 Mbit/s limit; 8e6 bytes = 1.6 Mbit/s = 80%; 1 MB received = 0.2 Mbit/s.
func TestLinks(t *testing.T) {
	two := map[string]float64{"sup1": 2}
	cases := []struct {
		name       string
		in         Input
		rule, want string
		unknown    string // a line Unknown must hold ("" none of the link's)
	}{
		{"a limited link at 98%", withLinks(9.8e6, 20e6, two, true), "link at its limit", "sup1 link 98% of 2 Mbit/s", ""},
		{"a limited link at 80%", withLinks(8e6, 20e6, two, true), "none found", "not read: pending limits, transfer threads)", ""},
		{"no limit on containers", withLinks(9.8e6, 20e6, nil, true), "none found", "not read: pending limits, transfer threads)", ""},
		{"a target's links", withLinks(9.8e6, 20e6, nil, false), "none found", "pending limits, links, transfer threads)", "link capacity of sup1, sup2"},
		{"counters not read", base(), "none found", "pending limits, links, transfer threads)", unreadLinks},
		{"one node's counters not read", withoutCounters(withLinks(9.8e6, 20e6, two, true), "sup2"), "link at its limit", "sup1 link 98%", "saturated link of [sup2]"},
		{"one node's counters not read, none full", withoutCounters(withLinks(8e6, 20e6, two, true), "sup2"), "none found", "pending limits, links, transfer threads)", "saturated link of [sup2]"},
	}
	for _, c := range cases {
		d := Run(c.in)
		if d.Rule != c.rule || !strings.Contains(d.Bottleneck, c.want) {
			t.Errorf("%s: rule %q, bottleneck %q; want %q containing %q", c.name, d.Rule, d.Bottleneck, c.rule, c.want)
		}
		linkLine := slices.IndexFunc(d.Unknown, func(u string) bool { return strings.Contains(u, "link") })
		if c.unknown == "" && linkLine >= 0 || c.unknown != "" && (linkLine < 0 || !strings.Contains(d.Unknown[linkLine], c.unknown)) {
			t.Errorf("%s: unknown %v, want a link line %q", c.name, d.Unknown, c.unknown)
		}
		if !slices.Contains(d.Unknown, unreadTransfer) {
			t.Errorf("%s: unknown %v, want the transfer threads named", c.name, d.Unknown)
		}
	}
	d := Run(withLinks(9.8e6, 20e6, two, true))
	if len(d.Links) != 2 || d.Links[0].Host != "sup1" || math.Abs(d.Links[0].SentMbit-1.96) > 1e-9 || math.Abs(*d.Links[0].UsedOfLimit-0.98) > 1e-9 ||
		math.Abs(d.Links[0].RecvMbit-0.2) > 1e-9 || d.Links[1].LimitMbit != 0 || d.Links[1].UsedOfLimit != nil || math.Abs(d.Links[1].SentMbit-4) > 1e-9 {
		t.Errorf("links %+v: want sup1 1.96 of 2 Mbit/s (0.98), 0.2 received; sup2 4 Mbit/s, no limit", d.Links)
	}
	if got, want := d.LinksText(), "sup1 sent 1.96 of 2 Mbit/s (98%), received 0.20; sup2 sent 4.00 Mbit/s, received 0.20"; got != want {
		t.Errorf("links text %q, want %q", got, want)
	}
	// A full link comes before a full node: the link cannot send more, whatever the CPU, and a node
	// reads full also while its idle executors spin in Storm's wait strategy.
	in := withLinks(9.8e6, 20e6, two, true)
	b := in.NodeStats.To["sup1"]
	b.UsageNs = i64(20e9)
	in.NodeStats.To["sup1"] = b
	if d := Run(in); d.Rule != "link at its limit" {
		t.Errorf("a full node and a full link: rule %q (%s), want the link", d.Rule, d.Bottleneck)
	}
}
