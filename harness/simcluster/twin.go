package simcluster

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/sim"
)

// frameShare is the share of a full Ethernet frame that is the bytes Storm sends: 1,448 bytes of TCP
// payload (MTU 1,500 less 20 of IP, 20 of TCP and 12 of TCP timestamps) in a frame of 1,514 (with the
// 14-byte Ethernet header; no preamble or checksum on a veth). A container's link rate (tbf) counts
// whole frames, the model's NIC counts tuple bytes, so the twin's NIC is the rate times this share.
// A link-bound transfer sends full frames (Netty batches messages); acks and framing per message are
// left out, so the twin's bound is a few percent above the real one for small tuples.
const frameShare = 1448.0 / 1514

// linkNIC is a container link rate in Mbit/s as the model's NIC bandwidth (sim.Node.NICBytesPerS).
func linkNIC(mbit float64) float64 { return mbit * 1e6 / 8 * frameShare }

// FromSupervisors is the simulated twin of a container cluster with these supervisors: a node per
// supervisor with its cores and link rate (LinkMbit; 0, one host's bridge, is unlimited), speed 1 (the
// cost model was measured on these containers), the supervisors' slots (they must agree: the model
// has one value) and the smallest memory Nimbus sees on them (what every node surely holds).
func FromSupervisors(name string, sups []docker.SupervisorSpec) (Named, error) {
	if len(sups) == 0 {
		return Named{}, errors.New("simulated twin: no supervisors; give at least one")
	}
	n := Named{Name: name, Slots: len(sups[0].Ports())}
	var about []string
	for _, s := range sups {
		if got := len(s.Ports()); got != n.Slots {
			return Named{}, fmt.Errorf("simulated twin: %s has %d slots, %s %d: the model takes one slot count for every node; give the supervisors the same Slots",
				sups[0].Host, n.Slots, s.Host, got)
		}
		node := sim.Node{Name: s.Host, Cores: s.CPUs, Speed: 1, QuotaPeriod: dockerCPUPeriod}
		desc := fmt.Sprintf("%s %g cores", s.Host, s.CPUs)
		if s.LinkMbit > 0 {
			node.NICBytesPerS = linkNIC(s.LinkMbit)
			desc += fmt.Sprintf(", link %g Mbit/s", s.LinkMbit)
		}
		n.setMemory(s.Host, float64(s.CapacityMemoryMB()))
		n.Nodes = append(n.Nodes, node)
		about = append(about, desc)
	}
	n.About = fmt.Sprintf("the twin of a container cluster (%s; %d slots each; unlimited links are one host's bridge)", strings.Join(about, "; "), n.Slots)
	return n, nil
}

// WithLinks is n with the outgoing links of the nodes named in mbit limited to those rates (Mbit/s, as
// docker.SupervisorSpec.LinkMbit and a run's link_mbit give them), as FromSupervisors takes them.
func (n Named) WithLinks(mbit map[string]float64) Named {
	n.Nodes = slices.Clone(n.Nodes)
	for i, node := range n.Nodes {
		if r := mbit[node.Name]; r > 0 {
			n.Nodes[i].NICBytesPerS = linkNIC(r)
		}
	}
	return n
}

// TwinOf is the simulated twin of the container cluster cs describes: its shape (cs.Shape, or
// docker's default) with its Options applied as docker.Run applies them (WithSupervisors,
// WithLinkRate, ...).
func TwinOf(cs harness.ClusterSpec) (Named, error) {
	shape := cmp.Or(cs.Shape, docker.DefaultShape)
	sups, name, err := docker.SupervisorsOf(append([]docker.Option{docker.WithShape(shape)}, cs.Options...)...)
	if err != nil {
		return Named{}, fmt.Errorf("simulated twin: %w", err)
	}
	return FromSupervisors("twin-"+name, sups)
}

// OpenNamed is the simulated cluster n, run with cs's seed, scheduler options and emulated delay,
// charged by the cost model cs.Where names (CostsFor: --sim-costs, else the one shipped with the
// project); the rest of cs.Where is not read.
func OpenNamed(n Named, cs harness.ClusterSpec, scheduler string) (*Cluster, error) {
	model, err := CostsFor(cs.Where)
	if err != nil {
		return nil, err
	}
	c, err := openWith(n, model, cs, scheduler)
	if c != nil {
		c.costsFile = cs.Where.Costs
	}
	return c, err
}

// openWith is n charged by model.
func openWith(n Named, model *sim.CostModel, cs harness.ClusterSpec, scheduler string) (*Cluster, error) {
	if len(n.Nodes) == 0 {
		return nil, fmt.Errorf("simulated cluster %q has no nodes", n.Name)
	}
	return &Cluster{named: n, model: model, cs: cs, scheduler: scheduler}, nil
}

// RecordedSupervisorIDs are the supervisor ids by host of the cluster run r ran on: the ids it records,
// or, for a run recorded before it kept them, those its last placing decision names (a worker on
// supervisor id holds executors that the run's placement puts on a host); nil when neither says, or
// when the decision's ids are not one per host (a dynamic scheduler's later move would have to be
// read against a placement the run no longer records).
func RecordedSupervisorIDs(r *harness.RunResult) map[string]string {
	if len(r.Supervisors) > 0 {
		return r.Supervisors
	}
	hostOf := map[int]string{}
	for _, e := range r.Executors {
		hostOf[e.Start] = e.Host
	}
	for k := len(r.Decisions) - 1; k >= 0; k-- {
		if len(r.Decisions[k].Workers) == 0 {
			continue
		}
		ids := map[string]string{}
		for _, w := range r.Decisions[k].Workers {
			for _, e := range w.Executors {
				h := hostOf[e.Start]
				if h == "" || ids[h] != "" && ids[h] != w.Supervisor {
					return nil
				}
				ids[h] = w.Supervisor
			}
		}
		if !oneToOne(ids) {
			return nil
		}
		return ids
	}
	return nil
}

// UseSupervisorIDs gives the cluster's nodes the supervisor ids (by host) of the real cluster it
// stands beside, from its next run on (Named.SupervisorIDs); with none it keeps those it has.
func (c *Cluster) UseSupervisorIDs(ids map[string]string) {
	if len(ids) > 0 {
		c.named = c.named.WithSupervisorIDs(ids)
	}
}
