package simcluster

import (
	"context"
	"errors"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/sim"
)

// KindName is the registry's name of simulated clusters: --cluster sim:NAME.
const KindName clusterref.Kind = "sim"

// Kind is the registry entry of simulated clusters.
func Kind() harness.Kind {
	return harness.Kind{
		Open: func(_ context.Context, cs harness.ClusterSpec, scheduler string) (harness.Cluster, error) {
			return Open(cs, scheduler)
		},
		// Emulated delay is the model's link latency; faults and background load are not modelled yet.
		Caps: func(clusterref.Ref) clusterref.Caps { return clusterref.Caps{Delay: true, Model: true} },
		Check: func(where clusterref.Ref, spec harness.RunSpec) error {
			if where.Arg == Paper { // stands for an experiment's paper cluster (lab.Spec.PaperCluster); Open refuses it
				return check(spec)
			}
			if _, err := Lookup(where.Arg); err != nil {
				return err
			}
			if err := check(spec); err != nil {
				return err
			}
			if n, err := Lookup(where.Arg); err == nil {
				return (&Cluster{named: n}).checkFaults(spec.Faults)
			}
			return nil
		},
		Existing: true, // a bad name or cost model is bad input, not a failed run
	}
}

// Cluster is a simulated Storm cluster: a named layout and the cost model its runs are charged by.
type Cluster struct {
	named     Named
	model     *sim.CostModel
	costsFile string // the file model was read from (--sim-costs); "" for a model given in process
	cs        harness.ClusterSpec
	scheduler string
	// loadPercent is the background load on every node (Nemesis: fault.Load) for the runs that start.
	loadPercent float64
	nodeCPU     bool // whole-node CPU reports go to the runs' scheduler service (StartNodeCPUReports)
}

var _ harness.Cluster = (*Cluster)(nil)

// Open is the simulated cluster cs.Where names (sim:NAME), charged by the cost model shipped with the
// project (ContainersCosts).
func Open(cs harness.ClusterSpec, scheduler string) (*Cluster, error) {
	n, err := Lookup(cs.Where.Arg)
	if err != nil {
		return nil, err
	}
	return OpenNamed(n, cs, scheduler)
}

// Capacity maps each node to its CPU capacity (100 = one core).
func (c *Cluster) Capacity() map[string]float64 {
	m := map[string]float64{}
	for _, n := range c.named.Nodes {
		m[n.Name] = 100 * n.Cores
	}
	return m
}

// errNoFaults is what a simulated cluster answers to faults and node CPU reports: not modelled yet.
var errNoFaults = errors.New("a simulated cluster does not model this fault yet (it models stragglers and background load): use containers or a target with its control layer")

// Nemesis disturbs the simulated cluster: background load; the rest is refused (load.go).
func (c *Cluster) Nemesis() harness.Disturber { return nemesis{c} }

// StartNodeCPUReports posts each node's whole CPU use (background load included) to the scheduler
// service of every run until stopped, each report interval (records.go).
func (c *Cluster) StartNodeCPUReports(context.Context, time.Duration) (func() error, error) {
	c.nodeCPU = true
	return func() error { c.nodeCPU = false; return nil }, nil
}

// Close has nothing to release: a simulated cluster holds no process, container or connection.
func (c *Cluster) Close(context.Context) error { return nil }

// Source is what stands behind the runs of a simulated cluster, for a results folder's manifest.
type Source struct {
	Cluster    string `json:"cluster"`     // the simulated cluster's name
	About      string `json:"about"`       // where its layout comes from
	Nodes      int    `json:"nodes"`       // its nodes
	CostModel  string `json:"cost_model"`  // the cost model's name
	CostSource string `json:"cost_source"` // where its figures come from
	// Standing is NotValidated, Validated or Extrapolated (more nodes than the largest validated
	// cluster, ValidatedNodes); Validation says it in a sentence, with the validation's results folder,
	// date, commit and errors.
	Standing       string `json:"standing"`
	ValidatedNodes int    `json:"validated_nodes,omitempty"`
	Validation     string `json:"validation"`
}

// validation is what stands behind c's runs, for run.json: the sentence of its cost model's validation
// for a cluster of c's size (extrapolated beyond the largest validated one).
func (c *Cluster) validation() string {
	v, err := validationOf(c.model, c.costsFile)
	if err != nil {
		return "not validated: " + err.Error()
	}
	_, s := standing(v, c.model, len(c.named.Nodes))
	return s
}

// Describe is what stands behind the simulated cluster where names (sim:NAME, with its --sim-costs):
// its layout, the cost model that charges it, and the validation that stands behind that model, if
// any, as far as the cluster's size goes.
func Describe(where clusterref.Ref) (Source, error) {
	n, err := Lookup(where.Arg)
	if err != nil {
		return Source{}, err
	}
	m, err := CostsFor(where)
	if err != nil {
		return Source{}, err
	}
	v, err := validationOf(m, where.Costs)
	if err != nil {
		return Source{}, err
	}
	src := Source{Cluster: n.Name, About: n.About, Nodes: len(n.Nodes), CostModel: m.Name, CostSource: describe(m)}
	src.Standing, src.Validation = standing(v, m, len(n.Nodes))
	if v != nil && src.Standing != NotValidated {
		src.ValidatedNodes = v.Largest.Nodes
	}
	return src, nil
}
