package protocol

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram layout shared by the Java workers and the Go side. The workers
// record with exactly these parameters, so decoded histograms have the
// same buckets and summing their counts (Merge) is exact: the merged
// histogram is the one a single recorder would have filled with all the
// values. Precision: 3 significant digits, i.e. every value is known to
// within 1 part in 2^11 (0.049%) of itself; values up to 2047 are exact.
const (
	HistLowest = 1
	HistDigits = 3
	// LatencyHistHighest bounds complete latency, ms (one hour); the worker
	// clamps larger values to it.
	LatencyHistHighest = 3_600_000
	// ProcessingHistHighest bounds processing time, µs (one hour).
	ProcessingHistHighest = 3_600_000_000
)

// NewHistogram returns an empty histogram with the shared layout and the
// given highest value (LatencyHistHighest or ProcessingHistHighest).
func NewHistogram(highest int64) *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, highest, HistDigits)
}

// DecodeHistogram decodes one base64 V2-compressed HdrHistogram (as Java's
// AbstractHistogram.encodeIntoCompressedByteBuffer writes it) and checks
// that it has the shared layout with the given highest value, so that
// merging it is exact. A malformed encoding is an error, never a panic.
func DecodeHistogram(s string, highest int64) (h *hdrhistogram.Histogram, err error) {
	defer func() {
		// The decoder indexes its input without checking lengths; a
		// truncated or corrupt report must not take the service down.
		if p := recover(); p != nil {
			h, err = nil, fmt.Errorf("decode histogram: malformed encoding (%v)", p)
		}
	}()
	h, err = hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	if h.LowestTrackableValue() != HistLowest || h.HighestTrackableValue() != highest || h.SignificantFigures() != HistDigits {
		return nil, fmt.Errorf("decode histogram: layout lowest %d, highest %d, %d digits; want %d, %d, %d (worker and harness built from different versions?)",
			h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures(), HistLowest, highest, HistDigits)
	}
	return h, nil
}

// EncodeHistogram is the inverse of DecodeHistogram (for tests and tools).
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}
