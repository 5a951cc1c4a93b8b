package schedulers

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/topologies"
)

// TestMLFMHandChecked: unitTriangles at k = 2 must cut only the bridge
// (cut 1, see TestExactHandChecked for the hand computation), and the
// tight star must be {0}|{1,2,3} (cut 15), whatever the seed.
func TestMLFMHandChecked(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		for _, c := range []struct {
			name string
			g    *topologies.Graph
			want float64
		}{{"two triangles", unitTriangles(), 1}, {"star", starGraph(), 15}} {
			parts, err := (&MLFM{Seed: seed, Epsilon: 0.03}).Partition(context.Background(), c.g, 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := CutWeight(c.g, parts); got != c.want {
				t.Errorf("%s seed %d: cut %g, want %g (parts %v)", c.name, seed, got, c.want, parts)
			}
		}
	}
}

// TestMLFMBalance (property): on random sparse graphs large enough to be
// coarsened (vertex weights <= 100, so a bound of eps·w_e >= 100 leaves
// room), every part lies within the bound, and the same seed gives the
// same partition.
func TestMLFMBalance(t *testing.T) {
	ctx := context.Background()
	for gi, c := range []struct {
		n, k int
		eps  float64
	}{{300, 4, 0.05}, {2000, 8, 0.03}, {3000, 16, 0.05}, {1000, 2, 0.01}, {5000, 32, 0.1}} {
		g, err := topologies.RandomGraph(c.n, 3*c.n/2, uint64(gi))
		if err != nil {
			t.Fatal(err)
		}
		p := &MLFM{Seed: uint64(gi), Epsilon: c.eps}
		parts, err := p.Partition(ctx, g, c.k)
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, "mlfm", g, c.k, parts)
		m := Measure(g, parts, c.k)
		if m.MaxDev > c.eps+1e-9 {
			t.Errorf("n=%d k=%d: max deviation %.4f above epsilon %v", c.n, c.k, m.MaxDev, c.eps)
		}
		again, err := p.Partition(ctx, g, c.k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(parts, again) {
			t.Errorf("n=%d k=%d: same seed, different partitions", c.n, c.k)
		}
	}
}

// TestMLFMNearExact: the K-PART paper's setting (random G(24,36), weights
// 1..100, k = 3; graph seeds 1..10) at max deviation <= 0.05: mlfm's mean
// cut is within 5% of the mean proven minimum cut (measured: 2.0%), and no
// graph is more than 10% above its optimum.
func TestMLFMNearExact(t *testing.T) {
	ctx := context.Background()
	sum, opt := 0.0, 0.0
	for seed := uint64(1); seed <= 10; seed++ {
		g, err := topologies.RandomGraph(24, 36, seed)
		if err != nil {
			t.Fatal(err)
		}
		r, err := (&Exact{Epsilon: 0.05, TimeLimit: time.Minute}).Solve(ctx, g, 3)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := (&MLFM{Seed: seed, Epsilon: 0.05}).Partition(ctx, g, 3)
		if err != nil {
			t.Fatal(err)
		}
		cut := CutWeight(g, parts)
		if m := Measure(g, parts, 3); m.MaxDev > 0.05+1e-9 {
			t.Errorf("graph %d: max deviation %.4f above 0.05", seed, m.MaxDev)
		}
		if cut > 1.10*r.Cut || cut < r.Cut-1e-9 {
			t.Errorf("graph %d: mlfm cut %g, optimum %g: want within [optimum, 1.10 optimum]", seed, cut, r.Cut)
		}
		sum += cut
		opt += r.Cut
	}
	if sum > 1.05*opt {
		t.Errorf("mean cut %.1f is %.1f%% above the mean optimum %.1f: want <= 5%%", sum/10, 100*(sum/opt-1), opt/10)
	}
	t.Logf("mlfm / optimum = %.4f", sum/opt)
}

// TestMLFMBadInput: bad epsilon and k are errors; a canceled context stops it.
func TestMLFMBadInput(t *testing.T) {
	if _, err := NewMLFM(Options{Epsilon: -0.5}); err == nil || !strings.Contains(err.Error(), "epsilon") {
		t.Errorf("negative epsilon: %v", err)
	}
	g, err := topologies.RandomGraph(50, 70, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&MLFM{}).Partition(context.Background(), g, 51); err == nil {
		t.Error("k = 51 accepted for 50 vertices")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big, err := topologies.RandomGraph(5000, 7500, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&MLFM{}).Partition(ctx, big, 8); err == nil {
		t.Error("canceled context: no error")
	}
}
