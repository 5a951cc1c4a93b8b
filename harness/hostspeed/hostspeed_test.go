package hostspeed

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	// Reference figures worked by hand: the median of an even count is the mean of the middle two; the
	// quartiles are the medians of the lower and the upper half, the median left out of both for an
	// odd count (montanaflynn/stats.Quartile); under 4 samples, the least and the greatest.
	for _, c := range []struct {
		name        string
		in          []float64
		med, q1, q3 float64
		text        string
	}{
		{"one", []float64{13}, 13, 13, 13, "13.0 ns a probe step (median of 1, middle half 13.0-13.0)"},
		{"three", []float64{15, 12, 13}, 13, 12, 15, "13.0 ns a probe step (median of 3, middle half 12.0-15.0)"},
		{"four", []float64{10, 12, 14, 20}, 13, 11, 17, "13.0 ns a probe step (median of 4, middle half 11.0-17.0)"},
		{"seven, one outlier", []float64{12, 30, 11, 13, 12.5, 11.5, 12}, 12, 11.5, 13, "12.0 ns a probe step (median of 7, middle half 11.5-13.0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Summarize(c.in)
			if s.Probe != Probe || s.Samples != len(c.in) {
				t.Fatalf("probe %q samples %d", s.Probe, s.Samples)
			}
			for _, f := range []struct{ got, want float64 }{{s.NsPerStep, c.med}, {s.Q1Ns, c.q1}, {s.Q3Ns, c.q3}} {
				if math.Abs(f.got-f.want) > 1e-12 {
					t.Errorf("got %v, want %v", f.got, f.want)
				}
			}
			if s.Text() != c.text {
				t.Errorf("text %q, want %q", s.Text(), c.text)
			}
		})
	}
	if Summarize(nil) != nil {
		t.Error("no samples must summarize to nil")
	}
	var none *Summary
	if none.Text() != "" {
		t.Error("a nil summary has no figures")
	}
}

func TestSample(t *testing.T) {
	ns, ok := Sample(100_000)
	if !ok || !(ns > 0) || math.IsInf(ns, 0) {
		t.Fatalf("Sample = %v, %v: want a positive figure", ns, ok)
	}
	if _, ok := Sample(0); ok {
		t.Error("a sample of no steps must not be ok")
	}
}

// TestStartStop: the sampler takes its first sample at once, and stop returns after the context ended
// too.
func TestStartStop(t *testing.T) {
	stop := Start(context.Background(), time.Hour)
	if s := stop(); s == nil || s.Samples != 1 {
		t.Fatalf("stop at once: %+v, want the first sample", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stop = Start(ctx, time.Millisecond)
	cancel()
	if s := stop(); s == nil || s.Samples < 1 {
		t.Fatalf("stop after cancel: %+v", s)
	}
}

// BenchmarkSample reports the probe's figure on this machine (ns/step) and what one sample of Steps
// costs (ns/op).
func BenchmarkSample(b *testing.B) {
	var sum float64
	for b.Loop() {
		ns, _ := Sample(Steps)
		sum += ns
	}
	b.ReportMetric(sum/float64(b.N), "ns/step")
}
