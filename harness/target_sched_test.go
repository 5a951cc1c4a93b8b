package harness

import (
	"slices"
	"testing"
)

// A run on a target names its scheduler in the topology conf once; a name already given is kept.
func TestWithSchedulerConf(t *testing.T) {
	for _, c := range []struct {
		args, want []string
	}{
		{[]string{"--name", "x"}, []string{"--name", "x", "--conf", "stormlab.scheduler=kpart"}},
		{[]string{"--conf", "a=b"}, []string{"--conf", "a=b", "--conf", "stormlab.scheduler=kpart"}},
		{[]string{"--conf", "stormlab.scheduler=storm-ras"}, []string{"--conf", "stormlab.scheduler=storm-ras"}},
		{[]string{"--conf", "stormlab.scheduler.default=x"}, []string{"--conf", "stormlab.scheduler.default=x", "--conf", "stormlab.scheduler=kpart"}},
	} {
		in := slices.Clone(c.args)
		if got := withSchedulerConf(c.args, "kpart"); !slices.Equal(got, c.want) {
			t.Errorf("withSchedulerConf(%q) = %q, want %q", c.args, got, c.want)
		}
		if !slices.Equal(in, c.args) {
			t.Errorf("withSchedulerConf changed its input %q", c.args)
		}
	}
}
