package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A flag the chosen scheduler does not read is said on stderr, with the schedulers that do read
// it; the partition still runs (exit 0). A flag the scheduler reads says nothing.
func TestPartitionWarnsIgnoredOption(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string // "" = stderr empty
	}{
		{"kpart ignores --epsilon", []string{"--scheduler", "kpart", "--epsilon", "0.2"}, "warning: kpart ignores --epsilon (read by exact, mlfm only)"},
		{"kpart ignores an out-of-range --epsilon too", []string{"--scheduler", "kpart", "--epsilon", "5"}, "warning: kpart ignores --epsilon"},
		{"mpart ignores --mul", []string{"--scheduler", "mpart", "--mul", "5"}, "warning: mpart ignores --mul (read by kpart only)"},
		{"mpart ignores mul of --options", []string{"--scheduler", "mpart", "--options", `{"mul":5}`}, `warning: mpart ignores "mul" of --options`},
		{"kpart reads --mul", []string{"--scheduler", "kpart", "--mul", "5"}, ""},
		{"mlfm reads --epsilon", []string{"--scheduler", "mlfm", "--epsilon", "0.2"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, append([]string{"partition", "--graph", "random:24:36", "--k", "3"}, c.args...)...)
			if code != 0 || out == "" {
				t.Fatalf("exit %d, stdout %q, stderr %q: want exit 0 and the partition", code, out, errs)
			}
			if c.want == "" && errs != "" || c.want != "" && (!strings.HasPrefix(errs, c.want) || strings.Count(errs, "\n") != 1) {
				t.Errorf("stderr %q: want one line starting %q", errs, c.want)
			}
		})
	}
}

// kpart and mpart without a balance bound can leave parts empty (here on G(24,36), seed 1, k = 12:
// 4 and 5 parts empty when this test was written). The partition is printed with empty_parts and
// bound_violated, the exit is 1 with the way out; --allow-imbalance, as its help says, turns it
// into a warning with exit 0.
func TestPartitionEmptyPartsRefused(t *testing.T) {
	for _, name := range []string{"kpart", "mpart"} {
		args := []string{"partition", "--graph", "random:24:36", "--k", "12", "--scheduler", name}
		code, out, errs := cli(t, args...)
		var po partitionOutput
		if err := json.Unmarshal([]byte(out), &po); err != nil || po.EmptyParts == 0 {
			t.Fatalf("%s: stdout %q (%v): want the partition with empty parts", name, out, err)
		}
		want := name + " partition leaves "
		if code != exitFailed || !strings.Contains(errs, want) || !strings.Contains(errs, "--allow-imbalance") || !strings.Contains(errs, "smaller --k") {
			t.Errorf("%s: exit %d, stderr %q: want exit %d, %q and the way out", name, code, errs, exitFailed, want)
		}
		if !strings.HasPrefix(po.BoundViolated, want) {
			t.Errorf("%s: bound_violated %q", name, po.BoundViolated)
		}
		code, _, errs = cli(t, append(args, "--allow-imbalance")...)
		if code != 0 || !strings.HasPrefix(errs, "warning: "+want) || !strings.Contains(errs, "allowed by --allow-imbalance") {
			t.Errorf("%s --allow-imbalance: exit %d, stderr %q", name, code, errs)
		}
	}
}
