package docker

import (
	"strings"
	"testing"
)

// TestOversubscription: the shapes' CPU quotas (shapes.go) against a 2-core and a 4-core host, with
// DaemonReserveCores (0.5) for the daemons: heterogeneous-4 asks 0.25 + 0.5 + 0.5 + 1.0 = 2.25 cores,
// homogeneous-4 4 x 0.5 = 2.0, heterogeneous-2 0.5 + 1.0 = 1.5 (fits 2 cores exactly with the reserve).
func TestOversubscription(t *testing.T) {
	cases := []struct {
		shape string
		cores int
		quota float64
		over  bool
	}{
		{"heterogeneous-4", 2, 2.25, true},
		{"homogeneous-4", 2, 2.0, true},
		{"heterogeneous-2", 2, 1.5, false},
		{"heterogeneous-4", 4, 2.25, false},
	}
	for _, c := range cases {
		sups, err := Shape(c.shape)
		if err != nil {
			t.Fatal(err)
		}
		quota, over := Oversubscription(sups, c.cores)
		if quota != c.quota || (over != "") != c.over {
			t.Errorf("%s on %d cores: quota %.2f, over %q; want %.2f, over %v", c.shape, c.cores, quota, over, c.quota, c.over)
		}
		if c.over && !strings.Contains(over, "on a host of 2") {
			t.Errorf("%s: %q does not name the host's cores", c.shape, over)
		}
	}
}
