package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/sim"
)

// TestSimCostsFromOneRun: sim costs --from one recorded run (a WordCount run's window, kept in
// harness/simcluster/testdata/remeasure) writes a cost model whose every component states an interval
// from the spread within the run, and no worker start interval (one figure per run: nothing to say);
// without a run of the transfer design, the transfer costs are listed as not measured; and the run is
// simulated again on the model measured from it (the closure check).
func TestSimCostsFromOneRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "costs.json")
	code, stdout, stderr := cli(t, "sim", "costs", "--from", "../../harness/simcluster/testdata/remeasure/wordcount-even-r1", "--out", out, "--name", "one")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "the model on its own runs") || !strings.Contains(stdout, "real ") {
		t.Errorf("stdout:\n%s\nwant the closure check: the run simulated again on its own model", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := sim.ReadCostModel(f)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := m.Topology("org.stormlab.topologies.WordCountTopology")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range tc.Components {
		if !c.CPUMicrosPI.Contains(c.CPUMicros) || c.CPUMicrosSD != 0 {
			t.Errorf("%s: cpu %v µs, sd %v, interval %+v: want an interval around it, no spread between runs", name, c.CPUMicros, c.CPUMicrosSD, c.CPUMicrosPI)
		}
	}
	if m.Transfer.WorkerStartPI != nil || m.Provenance.Uncertainty == "" {
		t.Errorf("worker start interval %+v, uncertainty %q", m.Transfer.WorkerStartPI, m.Provenance.Uncertainty)
	}
	// No run of the transfer design: its costs are zero, without an interval, and listed as missing.
	tr := m.Transfer
	if tr.SerMsgS != 0 || tr.DeserByteS != 0 || tr.LinkLatency != 0 || tr.SerMsgPI != nil || tr.LocalLatencyPI != nil ||
		!slices.ContainsFunc(m.Provenance.Missing, func(s string) bool { return strings.HasPrefix(s, "ser_msg_s, ser_byte_s, deser_msg_s") }) {
		t.Errorf("transfer %+v, missing %q: want the transfer costs at zero and listed missing", tr, m.Provenance.Missing)
	}
}

// TestSimCostsLinkFrom: sim costs reads the bytes on a link from --link-from's runs (the shipped model's,
// harness/simcluster/testdata/containers-link-runs.tar.gz, which recorded their nodes' interface counters)
// and names them in the provenance; from a run recorded without counters alone both stay missing.
func TestSimCostsLinkFrom(t *testing.T) {
	links := t.TempDir()
	if b, err := exec.Command("tar", "xzf", "../../harness/simcluster/testdata/containers-link-runs.tar.gz", "-C", links).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v: %s", err, b)
	}
	run := "../../harness/simcluster/testdata/remeasure/wordcount-even-r1"
	for _, c := range []struct {
		args  []string
		bytes bool
	}{
		{[]string{"--link-from", links}, true},
		{nil, false},
	} {
		out := filepath.Join(t.TempDir(), "costs.json")
		code, stdout, stderr := cli(t, append([]string{"sim", "costs", "--from", run, "--out", out}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		m, err := sim.ReadCostModel(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		tr, named := m.Transfer, 0
		for _, r := range m.Provenance.Runs {
			if strings.HasPrefix(r, "link bytes: ") {
				named++
			}
		}
		missing := slices.ContainsFunc(m.Provenance.Missing, func(s string) bool { return strings.HasPrefix(s, "msg_bytes, ack_bytes") })
		switch {
		case c.bytes && (tr.AckBytes <= 0 || tr.MsgBytesPI == nil || named != 6 || missing || !strings.Contains(stdout, "on a link")):
			t.Errorf("--link-from: ack %d bytes, msg %d (%+v), %d runs named, missing %v: want both measured from its 6 runs", tr.AckBytes, tr.MsgBytes, tr.MsgBytesPI, named, missing)
		case !c.bytes && (tr.AckBytes != 0 || tr.MsgBytes != 0 || named != 0 || !missing):
			t.Errorf("without counters: ack %d bytes, msg %d, %d runs named, missing %v: want both zero and listed missing", tr.AckBytes, tr.MsgBytes, named, missing)
		}
	}
}

// TestSimCostsMessagingRefusesOldRuns: --messaging reads the workers' thread groups, which a run
// recorded before the reporter sent them lacks: it is refused naming the fix, and no model is written.
func TestSimCostsMessagingRefusesOldRuns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "costs.json")
	code, _, stderr := cli(t, "sim", "costs", "--from", "../../harness/simcluster/testdata/remeasure/wordcount-even-r1", "--out", out, "--messaging")
	if code == 0 || !strings.Contains(stderr, "without its thread groups") || !strings.Contains(stderr, "record the runs again") {
		t.Errorf("exit %d, stderr %q: want a failure naming the missing thread groups and the fix", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a model was written (%v): want none", err)
	}
}
