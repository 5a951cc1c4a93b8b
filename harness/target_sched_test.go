package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
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

// A session runs every scheduler on one cluster: before each run of a Go scheduler the service gets a
// fresh instance of it with the session's options and rescheduling period (POST /v1/scheduler), except for the first run of the
// scheduler the service was started with; Storm's own schedulers need no call (the topology's conf
// names them and the bridge runs them in Nimbus).
func TestSessionServesEveryScheduler(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c protocol.SchedulerChoice
		if r.URL.Path != protocol.PathScheduler || json.NewDecoder(r.Body).Decode(&c) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		got = append(got, fmt.Sprintf("%s %s %d", c.Scheduler, c.Options, c.RescheduleEveryMs))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	s := &Session{Scheduler: "kpart", serving: "kpart", choice: serviceChoice{options: `{"seed":1}`, every: 15 * time.Second}, dc: &dockerCluster{svc: &serviceClient{BaseURL: srv.URL}}}
	// What Run does around each run: serve, then count the run.
	for _, sched := range []string{"kpart", "storm-even", "kpart", "online", "storm-ras", "online"} {
		if err := s.serve(context.Background(), sched); err != nil {
			t.Fatalf("serve %s: %v", sched, err)
		}
		s.runs++
	}
	want := []string{`kpart {"seed":1} 15000`, `online {"seed":1} 15000`, `online {"seed":1} 15000`}
	if !slices.Equal(got, want) {
		t.Errorf("service switched to %q, want %q", got, want)
	}
}
