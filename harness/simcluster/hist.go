package simcluster

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormlab/stormlab/infra/protocol"
)

// hdrPair is a spout's latency histograms of one interval: from emission and from intended send time.
type hdrPair struct{ emitted, intended *hdrhistogram.Histogram }

// encodeMerged is the worker's histogram of its spouts' latencies as a report carries it; "" when
// none was acked. intended picks the histogram from the intended send time.
func encodeMerged(hs []hdrPair, intended bool) string {
	if len(hs) == 0 {
		return ""
	}
	all := protocol.NewHistogram(protocol.LatencyHistHighest)
	for _, h := range hs {
		src := h.emitted
		if intended {
			src = h.intended
		}
		all.Merge(src)
	}
	s, err := protocol.EncodeHistogram(all)
	if err != nil {
		return "" // cannot happen with the shared layout; an unencoded interval is left unmeasured
	}
	return s
}
