package metric

import (
	"strings"
	"testing"
)

func TestRegistryWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range All() {
		if m.Name == "" || m.Unit == "" || m.Aggregate == "" {
			t.Errorf("%+v: every field must be set", m)
		}
		if m.Direction < LowerBetter || m.Direction > Stable {
			t.Errorf("%s: direction %d", m.Name, m.Direction)
		}
		if seen[m.Name] {
			t.Errorf("%s registered twice", m.Name)
		}
		seen[m.Name] = true
	}
}

func TestLookupAndCheck(t *testing.T) {
	for name, want := range map[string]Direction{
		"throughput": HigherBetter, "latency_p99_ms": LowerBetter, "ratio": LowerBetter, "nodes_used": Stable,
	} {
		if m, ok := Lookup(name); !ok || m.Direction != want {
			t.Errorf("%s: %+v %v, want direction %v", name, m, ok, want)
		}
	}
	if _, ok := Lookup("edges"); ok {
		t.Error("edges: registered, want unknown")
	}
	if err := Check("throughput", "ratio"); err != nil {
		t.Error(err)
	}
	err := Check("throughput", "edges", "speed", "edges")
	if err == nil || !strings.Contains(err.Error(), "edges, speed not in the registry") {
		t.Errorf("error %v, want one naming edges and speed once", err)
	}
}

func TestCheckUnit(t *testing.T) {
	for _, u := range []string{UnitRun, UnitInstance} {
		if err := CheckUnit(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"", "graph instance", "graph"} {
		if err := CheckUnit(u); err == nil || !strings.Contains(err.Error(), `use "run"`) {
			t.Errorf("%q: error %v, want one naming the units", u, err)
		}
	}
}
