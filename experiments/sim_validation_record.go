package experiments

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// valRecordMeta is what a validation record says beside its configurations: the cost model validated
// and the real cluster compared with.
type valRecordMeta struct {
	model       *sim.CostModel
	realCluster string
	// describe gives configuration x's fields (topology, shape, load, delay, schedulers, size); ok is
	// false when it cannot be described (its cluster has no simulated layout).
	describe func(x int) (c simcluster.ValidatedConfiguration, ok bool)
}

// validationRecord is the validation file of cells (simcluster.Validation): per configuration the mean
// over its schedulers' cells of |simulated - real| / real of throughput and latency p50 and p99, for the
// configurations where every one of the three was measured on both sides. ok is false when none was.
func validationRecord(cells []valCell, meta valRecordMeta) (v simcluster.Validation, ok bool) {
	v = simcluster.Validation{Format: simcluster.ValidationFormat, Results: "sim-validation", Date: time.Now().UTC().Format(time.DateOnly),
		Commit: lab.Revision(), CostModel: meta.model.Name, CostCommit: meta.model.Provenance.Commit, RealCluster: meta.realCluster}
	byConfig := map[int][]valCell{}
	var order []int
	for _, c := range cells {
		if byConfig[c.Config] == nil {
			order = append(order, c.Config)
		}
		byConfig[c.Config] = append(byConfig[c.Config], c)
	}
	for _, x := range order {
		vc, ok := meta.describe(x)
		tp, p50, p99 := absMeanErr(byConfig[x], "throughput"), absMeanErr(byConfig[x], "latency_p50_ms"), absMeanErr(byConfig[x], "latency_p99_ms")
		if !ok || math.IsNaN(tp) || math.IsNaN(p50) || math.IsNaN(p99) {
			continue
		}
		vc.Throughput, vc.LatencyP50, vc.LatencyP99 = tp, p50, p99
		v.Configurations = append(v.Configurations, vc)
	}
	if len(v.Configurations) == 0 {
		return v, false
	}
	v.Summarize()
	return v, true
}

// absMeanErr is the mean over cells of |simulated - real| / real on metric (NaN when no cell has both).
func absMeanErr(cells []valCell, metric string) float64 {
	var xs []float64
	for _, c := range cells {
		if e := c.errorOf(metric); !math.IsNaN(e.SimErr) {
			xs = append(xs, math.Abs(e.SimErr))
		}
	}
	return mean(xs)
}

// addValidationFile adds validation.json to res when its cells make a record, else says in the
// manifest why there is none.
func addValidationFile(res *lab.Results, cells []valCell, meta valRecordMeta) {
	v, ok := validationRecord(cells, meta)
	if !ok {
		res.Knobs["sv_validation_file"] = "not written: no configuration has throughput and latency p50 and p99 from valid real and simulated runs"
		return
	}
	res.Files = append(res.Files, lab.File{Name: "validation.json", Write: func(w io.Writer) error { return simcluster.WriteValidation(w, v) }})
}

// sizeOf is the nodes and cores of the simulated layout named shape.
func sizeOf(shape string) (simcluster.ClusterSize, bool) {
	n, err := simcluster.Lookup(shape)
	if err != nil {
		return simcluster.ClusterSize{}, false
	}
	s := simcluster.ClusterSize{Nodes: len(n.Nodes)}
	for _, node := range n.Nodes {
		s.Cores += node.Cores
	}
	return s, true
}

// configRecord describes configuration c for the validation file.
func configRecord(c valConfig) (simcluster.ValidatedConfiguration, bool) {
	size, ok := sizeOf(c.Shape)
	load := "saturation"
	if c.Load > 0 {
		load = fmt.Sprint(c.Load)
	}
	return simcluster.ValidatedConfiguration{Name: c.String(), Topology: c.Topology, Shape: c.Shape, Load: load, DelayMs: float64(c.DelayMs),
		Schedulers: c.Schedulers, Size: size}, ok
}
