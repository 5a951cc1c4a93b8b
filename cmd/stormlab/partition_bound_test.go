package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPartitionBoundViolated: mlfm at k = 24 on G(24,36) (seed 1) cannot
// keep max dev <= 0.05 and leaves parts empty: the partition is printed,
// a one-line error says why and the exit is non-zero; --allow-imbalance
// turns it into a warning with exit 0. A bound kept (k = 3) says nothing.
func TestPartitionBoundViolated(t *testing.T) {
	args := []string{"partition", "--graph", "random:24:36", "--k", "24", "--scheduler", "mlfm", "--epsilon", "0.05"}
	code, out, errs := cli(t, args...)
	if code == 0 || !strings.Contains(errs, "breaks its balance bound") || !strings.Contains(errs, "--allow-imbalance") {
		t.Errorf("exit %d, stderr %q: want non-zero and the bound named", code, errs)
	}
	var po partitionOutput
	if err := json.Unmarshal([]byte(out), &po); err != nil || po.BoundViolated == "" || po.EmptyParts == 0 {
		t.Errorf("stdout %q (%v): want the partition with bound_violated and empty_parts", out, err)
	}
	code, _, errs = cli(t, append(args, "--allow-imbalance")...)
	if code != 0 || !strings.HasPrefix(errs, "warning: mlfm partition breaks its balance bound") {
		t.Errorf("--allow-imbalance: exit %d, stderr %q", code, errs)
	}
	code, out, errs = cli(t, "partition", "--graph", "random:24:36", "--k", "3", "--scheduler", "mlfm", "--epsilon", "0.05")
	if code != 0 || errs != "" || strings.Contains(out, "bound_violated") {
		t.Errorf("bound kept: exit %d, stderr %q, stdout %q", code, errs, out)
	}
}
