package harness

import (
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
)

// Save then Load gives the same run: the fields run.json carries and every
// worker report, in order.
func TestSaveLoadRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := &RunResult{
		Spec:        RunSpec{Scheduler: "kpart", Topology: TopologyRun{Name: "kpc-kpart-r0", MainClass: "org.stormlab.WordCount"}},
		TopologyID:  "kpc-kpart-r0-1-1",
		Measurement: Measurement{Throughput: 812.5, LatencyMean: 4.25, CutRate: 0.3, NodeUtil: map[string]float64{"sup1": 40, "sup2": 60}},
		RoundsMs:    []float64{12, 15},
		MeasureFrom: 1000, MeasureTo: 61000,
		Reports: []protocol.WorkerReport{
			{Topology: "kpc-kpart-r0", Host: "sup1", Port: 6700, TimeMs: 2000, IntervalS: 2, Acked: 100},
			{Topology: "kpc-kpart-r0", Host: "sup2", Port: 6700, TimeMs: 2000, IntervalS: 2, Acked: 90, CompleteLatencyMs: []float64{3, 5}},
		},
	}
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Measurement, r.Measurement) || got.Spec.Scheduler != "kpart" || !reflect.DeepEqual(got.Spec.Topology, r.Spec.Topology) ||
		got.TopologyID != r.TopologyID || !reflect.DeepEqual(got.RoundsMs, r.RoundsMs) || got.MeasureTo != r.MeasureTo {
		t.Errorf("loaded %+v\nwant %+v", got, r)
	}
	if !reflect.DeepEqual(got.Reports, r.Reports) {
		t.Errorf("reports %+v, want %+v", got.Reports, r.Reports)
	}
	if _, err := Load(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of an empty folder: %v, want fs.ErrNotExist", err)
	}
}

// Load compares a kept run with Storm's kept readings again, by today's rule: a run saved as suspect
// under the window's latency is not suspect over Storm's span (the reports of
// TestCrossCheckLatencyOverStormSpan), and one kept without readings keeps its comparison.
func TestLoadRechecksStorm(t *testing.T) {
	reports, from, to := spanRun(t)
	m := measure.Window(reports, nil, nil, 97_000, 107_000)
	old := measure.CrossCheck(from, to, m, nil) // the window's latency: 8.75 vs 6.2 ms
	r := &RunResult{Measurement: m, Reports: reports, MeasureFrom: 97_000, MeasureTo: 107_000, Storm: old}
	r.Validity = judge(r)
	if !hasKind(r.Validity, ReasonStormLatency) {
		t.Fatal("the run as saved should be suspect")
	}
	dir := filepath.Join(t.TempDir(), "run")
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if hasKind(got.Validity, ReasonStormLatency) || got.Storm.OurLatencyCount != 50 {
		t.Errorf("loaded: validity %+v, our latency over %d tuples; want not suspect on latency, 50 (Storm's span)", got.Validity, got.Storm.OurLatencyCount)
	}
	// Kept without Storm's readings: as saved.
	r.Storm.From, r.Storm.To = nil, nil
	dir2 := filepath.Join(t.TempDir(), "run")
	if err := Save(dir2, r); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(dir2); err != nil || got.Validity.Text(Suspect) != r.Validity.Text(Suspect) || !hasKind(got.Validity, ReasonStormLatency) {
		t.Errorf("loaded without readings: validity %+v, err %v; want as saved (%+v)", got.Validity, err, r.Validity)
	}
}
