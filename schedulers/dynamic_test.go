package schedulers

import "testing"

// IsDynamic follows the Dynamic interface; unknown names (Storm's own schedulers) are not dynamic.
func TestIsDynamic(t *testing.T) {
	for name, want := range map[string]bool{
		"kpart-dynamic": true, "deadline": true, "online": true,
		"kpart": false, "even": false, "storm-even": false, "no-such": false,
	} {
		if got := IsDynamic(name); got != want {
			t.Errorf("IsDynamic(%q) = %v, want %v", name, got, want)
		}
	}
}
