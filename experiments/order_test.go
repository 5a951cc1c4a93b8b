package experiments

import (
	"slices"
	"testing"
)

// Interleaved runs: each turn holds every scheduler once, and over n turns every scheduler takes every
// position once (so the cluster's first run and a drift over time do not go with one scheduler).
func TestRotated(t *testing.T) {
	s := []string{"a", "b", "c"}
	for _, c := range []struct {
		k    int
		want []string
	}{{0, []string{"a", "b", "c"}}, {1, []string{"b", "c", "a"}}, {2, []string{"c", "a", "b"}}, {4, []string{"b", "c", "a"}}} {
		if got := rotated(s, c.k); !slices.Equal(got, c.want) {
			t.Errorf("rotated(%v, %d) = %v, want %v", s, c.k, got, c.want)
		}
	}
	if !slices.Equal(s, []string{"a", "b", "c"}) {
		t.Errorf("rotated changed its input: %v", s)
	}
	if rotated(nil, 3) != nil {
		t.Error("rotated(nil) is not nil")
	}
	for _, n := range []int{1, 2, 3, 5} {
		xs := make([]string, n)
		for i := range xs {
			xs[i] = string(rune('a' + i))
		}
		first := map[string]int{}
		for k := range n {
			turn := rotated(xs, k)
			if !slices.Equal(slices.Sorted(slices.Values(turn)), xs) {
				t.Errorf("n=%d turn %d: %v is not every scheduler once", n, k, turn)
			}
			first[turn[0]]++
		}
		for _, x := range xs {
			if first[x] != 1 {
				t.Errorf("n=%d: %s first in %d of %d turns, want 1", n, x, first[x], n)
			}
		}
	}
}
