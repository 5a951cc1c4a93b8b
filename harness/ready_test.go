package harness

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
)

// The Flux word count with one acker (cmd/stormlab/testdata/flux/wordcount-one-acker.yaml) as kpart
// places it: the word count's tasks on one worker, the acker alone with Storm's __system executor on the
// other. Tasks: 1 acker, 2-3 count, 4 global, 5-6 words.
var oneAckerAlone = []ExecutorPlace{
	{Component: "words", Start: 5, End: 5, Host: "s1", Port: 6700},
	{Component: "words", Start: 6, End: 6, Host: "s1", Port: 6700},
	{Component: "count", Start: 2, End: 2, Host: "s1", Port: 6700},
	{Component: "count", Start: 3, End: 3, Host: "s1", Port: 6700},
	{Component: "global", Start: 4, End: 4, Host: "s1", Port: 6700},
	{Component: "__system", Start: -1, End: -1, Host: "s1", Port: 6700},
	{Component: "__acker", Start: 1, End: 1, Host: "s2", Port: 6700},
	{Component: "__system", Start: -1, End: -1, Host: "s2", Port: 6700},
}

// wordCountReport is one 5 s report of topology "t" from host:6700 at ms: with work, the word count's
// traffic at 20 tuples/s into the sink (task 4), else nothing moved (an empty report of a running worker).
func wordCountReport(host string, ms int64, work bool) protocol.WorkerReport {
	r := protocol.WorkerReport{Topology: "t", Host: host, Port: 6700, TimeMs: ms, IntervalS: 5, WorkerStartMs: 1}
	if work {
		r.Traffic = []protocol.TaskTraffic{{Src: 5, Dst: 2, Count: 50}, {Src: 6, Dst: 3, Count: 50}, {Src: 2, Dst: 4, Count: 50}, {Src: 3, Dst: 4, Count: 50}}
	}
	return r
}

// TestUnready: readiness is judged on what each worker can do (see unready). A worker of Storm's own
// executors counts once it reports; a worker of the user's tasks needs work of its own, or idleReports
// (3) reports without it after the topology's first work.
func TestUnready(t *testing.T) {
	rep := wordCountReport
	spoutsAlone := []ExecutorPlace{
		{Component: "words", Start: 5, End: 6, Host: "s1", Port: 6700},
		{Component: "count", Start: 2, End: 3, Host: "s2", Port: 6700},
		{Component: "global", Start: 4, End: 4, Host: "s2", Port: 6700},
		{Component: "__acker", Start: 1, End: 1, Host: "s2", Port: 6700},
	}
	emitsOnly := protocol.WorkerReport{Topology: "t", Host: "s1", Port: 6700, TimeMs: 5_000, IntervalS: 5,
		Emits: []protocol.TaskEmits{{Task: 5, Stream: "default", Count: 50}}}
	ackerAndCount := []ExecutorPlace{
		{Component: "words", Start: 5, End: 6, Host: "s1", Port: 6700},
		{Component: "global", Start: 4, End: 4, Host: "s1", Port: 6700},
		{Component: "count", Start: 2, End: 3, Host: "s2", Port: 6700},
		{Component: "__acker", Start: 1, End: 1, Host: "s2", Port: 6700},
	}
	other := rep("s2", 5_000, false)
	other.Topology = "other"
	for _, c := range []struct {
		name    string
		execs   []ExecutorPlace
		reports []protocol.WorkerReport
		want    []string
	}{
		{"acker alone, reported, no tuples", oneAckerAlone, []protocol.WorkerReport{rep("s1", 5_000, true), rep("s2", 5_000, false)}, nil},
		{"acker alone, not reported yet", oneAckerAlone, []protocol.WorkerReport{rep("s1", 5_000, true)}, []string{"s2:6700"}},
		{"acker alone, another topology's report", oneAckerAlone, []protocol.WorkerReport{rep("s1", 5_000, true), other}, []string{"s2:6700"}},
		{"nothing moved anywhere", oneAckerAlone, []protocol.WorkerReport{rep("s1", 5_000, false), rep("s2", 5_000, false),
			rep("s1", 10_000, false), rep("s1", 15_000, false), rep("s1", 20_000, false)}, []string{"s1:6700"}},
		{"unanchored spouts alone: their emits are work", spoutsAlone, []protocol.WorkerReport{emitsOnly, rep("s2", 5_000, true)}, nil},
		{"acker with user tasks, idle 2 reports after the first work", ackerAndCount, []protocol.WorkerReport{rep("s1", 5_000, true),
			rep("s2", 5_000, false), rep("s2", 10_000, false), rep("s2", 15_000, false)}, []string{"s2:6700"}},
		{"acker with user tasks, idle 3 reports after the first work", ackerAndCount, []protocol.WorkerReport{rep("s1", 5_000, true),
			rep("s2", 5_000, false), rep("s2", 10_000, false), rep("s2", 15_000, false), rep("s2", 20_000, false)}, nil},
	} {
		if got := unready(c.reports, "t", c.execs); !slices.Equal(got, c.want) {
			t.Errorf("%s: unready %v, want %v", c.name, got, c.want)
		}
	}
}

// TestWaitWorkersAckerAlone: the wait for readiness ends on the worker reports the service holds when the
// acker's worker only reports (it moves no tuple), and times out naming the worker that never reported.
func TestWaitWorkersAckerAlone(t *testing.T) {
	reports := []protocol.WorkerReport{wordCountReport("s1", 5_000, true), wordCountReport("s2", 5_000, false)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.PathReports {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(reports)
	}))
	defer srv.Close()
	svc := &serviceClient{BaseURL: srv.URL}
	if err := svc.waitWorkers(t.Context(), "t", 1, oneAckerAlone, 10*time.Second); err != nil {
		t.Errorf("acker's worker reported: %v, want ready", err)
	}
	reports = reports[:1]
	err := svc.waitWorkers(t.Context(), "t", 1, oneAckerAlone, time.Second)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 workers of t have not reported work") || !strings.Contains(err.Error(), "s2:6700") {
		t.Errorf("acker's worker silent: %v, want a timeout naming s2:6700", err)
	}
}
