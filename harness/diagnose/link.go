package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// LinkFull is the share of a node's link limit at which its link is named the bottleneck. Both figures
// count the same bytes (a tbf shapes whole frames, the interface's counter counts them); 0.9 leaves room
// for the window's edges falling between the shaper's bursts.
const LinkFull = 0.90

// Link is one node's egress over the window: what its interfaces sent against its link limit.
type Link struct {
	Host     string  `json:"host"`
	SentMbit float64 `json:"sent_mbit"` // Mbit/s sent over the window, frames' headers included
	RecvMbit float64 `json:"recv_mbit"` // Mbit/s received
	// LimitMbit is the node's egress limit (a container's LinkMbit); 0 where it has none or none is known.
	LimitMbit   float64  `json:"limit_mbit,omitempty"`
	UsedOfLimit *float64 `json:"used_of_limit,omitempty"`
}

// links computes every node's Link from the interface counters at the window's ends, sorted by host;
// nodes without both counters are left out.
func links(in Input) []Link {
	st := in.NodeStats
	if st == nil {
		return nil
	}
	var out []Link
	for host, a := range st.From {
		b, ok := st.To[host]
		dt := float64(b.TimeMs-a.TimeMs) / 1000
		tx, okTx := delta(a.TxBytes, b.TxBytes)
		rx, okRx := delta(a.RxBytes, b.RxBytes)
		if !ok || dt <= 0 || !okTx || !okRx {
			continue
		}
		l := Link{Host: host, SentMbit: tx * 8 / 1e6 / dt, RecvMbit: rx * 8 / 1e6 / dt, LimitMbit: in.LinkMbit[host]}
		if l.LimitMbit > 0 {
			l.UsedOfLimit = ptr(l.SentMbit / l.LimitMbit)
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Link) int { return cmp.Compare(a.Host, b.Host) })
	return out
}

// fullLink names the limited link sending the largest share of its limit when that share is LinkFull
// or more ("sup1 link 98% of 2 Mbit/s"), "" when none.
func fullLink(d Diagnosis) string {
	var top *Link
	for i, l := range d.Links {
		if l.UsedOfLimit != nil && (top == nil || *l.UsedOfLimit > *top.UsedOfLimit) {
			top = &d.Links[i]
		}
	}
	if top == nil || *top.UsedOfLimit < LinkFull {
		return ""
	}
	return fmt.Sprintf("%s link %.0f%% of %g Mbit/s", top.Host, 100**top.UsedOfLimit, top.LimitMbit)
}

// linksUnknown is what the run cannot tell of its links: nothing where every node's limit is known
// (containers: a limit or none, and none is the host's own bridge), their capacity where the counters
// were read but the limits are not known (a target's machines), the whole step where no counter was
// read (no control layer, runs recorded before the counters), and the nodes whose counters were not
// read at both ends of the window while others' were.
func linksUnknown(in Input, ls []Link) []string {
	if len(ls) == 0 {
		return []string{unreadLinks}
	}
	var out []string
	if missing := LinksUnread(in.NodeStats, ls); len(missing) > 0 {
		out = append(out, fmt.Sprintf("saturated link of %v (interface counters not read at both ends of the window)", missing))
	}
	if !in.LinksKnown {
		hosts := make([]string, len(ls))
		for i, l := range ls {
			hosts[i] = l.Host
		}
		out = append(out, "link capacity of "+strings.Join(hosts, ", ")+" (not known on a target: its sent Mbit/s are in links)")
	}
	return out
}

// LinksUnread are the sampled nodes (those with a quota or a sample) that have no Link, sorted.
func LinksUnread(st *NodeStats, ls []Link) []string {
	if st == nil {
		return nil
	}
	var out []string
	for _, m := range []map[string]Sample{st.From, st.To} {
		for host := range m {
			out = append(out, host)
		}
	}
	for host := range st.Quota {
		out = append(out, host)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(h string) bool {
		return slices.ContainsFunc(ls, func(l Link) bool { return l.Host == h })
	})
}

// LinksText is the nodes' egress in one line, for a person reading a run's output ("sup1 sent 1.96 of 2
// Mbit/s (98%), received 0.20; sup2 sent 4.00 Mbit/s, received 0.20"); "" when no counter was read.
func (d *Diagnosis) LinksText() string {
	if d == nil {
		return ""
	}
	parts := make([]string, len(d.Links))
	for i, l := range d.Links {
		if l.UsedOfLimit != nil {
			parts[i] = fmt.Sprintf("%s sent %.2f of %g Mbit/s (%.0f%%), received %.2f", l.Host, l.SentMbit, l.LimitMbit, 100**l.UsedOfLimit, l.RecvMbit)
		} else {
			parts[i] = fmt.Sprintf("%s sent %.2f Mbit/s, received %.2f", l.Host, l.SentMbit, l.RecvMbit)
		}
	}
	return strings.Join(parts, "; ")
}
