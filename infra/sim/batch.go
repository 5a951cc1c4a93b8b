package sim

import (
	"math"
	"slices"
)

// batch is the tuples one simulated tuple stands for (Config.Batch; at least 1).
func (c *Config) batch() int64 { return int64(max(1, c.Batch)) }

// batched is cfg as the engine runs it: with Batch > 1, every simulated tuple is Batch tuples (see
// Config.Batch). Sizes and per-message costs grow with it, per-byte costs stay (the bytes grew).
func batched(cfg Config) Config {
	b := float64(cfg.batch())
	if b == 1 {
		return cfg
	}
	out := cfg
	out.Topology.Components = slices.Clone(cfg.Topology.Components)
	for i := range out.Topology.Components {
		c := &out.Topology.Components[i]
		c.Service.Mean *= b
		c.Service.CV /= math.Sqrt(b)
		if c.Service.Kind == Exponential { // a sum of exponentials is no longer one: keep its spread
			c.Service.Kind, c.Service.CV = LogNormal, 1/math.Sqrt(b)
		}
		c.Rate /= b
		if c.Dataset > 0 {
			c.Dataset = int64(math.Ceil(float64(c.Dataset) / b))
		}
		c.Bytes = int(math.Round(float64(c.Bytes) * b))
	}
	t := &out.Topology
	t.Rate /= b
	t.AckBytes = int(math.Round(float64(t.AckBytes) * b))
	if t.MaxSpoutPending > 0 {
		t.MaxSpoutPending = max(1, int(math.Ceil(float64(t.MaxSpoutPending)/b)))
	}
	capacity := cfg.QueueCap
	if capacity == 0 {
		capacity = DefaultQueueCap
	}
	out.QueueCap = max(1, int(math.Ceil(float64(capacity)/b)))
	out.Costs.SerMsg *= b
	out.Costs.MsgBytes = int(math.Round(float64(out.Costs.MsgBytes) * b))
	out.Costs.DeserMsg *= b
	out.Costs.SendMsg *= b
	out.Costs.AckCPU *= b
	return out
}
