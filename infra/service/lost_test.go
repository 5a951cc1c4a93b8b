package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// TestRoundWithLostSupervisorKeepsServing is the recovery experiment's shape: a supervisor is
// killed while its executors still send. The spouts (tasks 1, 3) run on s2, the bolts (2, 4) on
// s1, so s1's worker reports traffic from tasks whose node then leaves the snapshot, and s2's own
// report is still among the fresh ones. The round after s2 is gone builds the load table from
// those reports; once it dereferenced the missing node's row, panicked with the service's lock
// held, and every later request (POST /v1/metrics, GET /v1/reports, GET /v1/state) hung: the
// harness's collect timed out after 30 s. Now the round places the topology anew on s1 (one node
// for two workers) and the service answers.
//
// Timeouts are generous bounds on a hang, not speed checks (those are benchmarks).
func TestRoundWithLostSupervisorKeepsServing(t *testing.T) {
	const t0 = int64(1_700_000_100_000)
	place := map[int]string{1: "s2", 2: "s1", 3: "s2", 4: "s1"}
	for _, name := range []string{"kpart-dynamic", "deadline", "online", "adaptive"} {
		t.Run(name, func(t *testing.T) {
			clk := &fakeClock{t: time.UnixMilli(t0)}
			s, err := New(name, schedulers.Options{}, WithClock(clk.now), WithRescheduleEvery(0))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(s.Handler())
			defer srv.Close()
			client := &http.Client{Timeout: 30 * time.Second}
			call := func(method, path string, body, answer any) error {
				var data []byte
				if body != nil {
					if data, err = json.Marshal(body); err != nil {
						return err
					}
				}
				req, err := http.NewRequestWithContext(context.Background(), method, srv.URL+path, bytes.NewReader(data))
				if err != nil {
					return err
				}
				resp, err := client.Do(req)
				if err != nil {
					return fmt.Errorf("%s %s: %w", method, path, err)
				}
				defer resp.Body.Close()
				if resp.StatusCode/100 != 2 {
					return fmt.Errorf("%s %s: status %s", method, path, resp.Status)
				}
				if answer != nil {
					return json.NewDecoder(resp.Body).Decode(answer)
				}
				return nil
			}

			reports := pipelineReports(place, t0-1000)
			if len(reports) != 2 {
				t.Fatalf("%d reports, want one per supervisor", len(reports))
			}
			for _, r := range reports {
				if err := call(http.MethodPost, protocol.PathMetrics, r, nil); err != nil {
					t.Fatal(err)
				}
			}
			// Both supervisors there: the placement is current.
			var d protocol.Decision
			if err := call(http.MethodPost, protocol.PathSchedule, twoPipelines(place), &d); err != nil {
				t.Fatal(err)
			}
			// s2 killed: the snapshot lacks it, the assignment still lists its executors.
			lost := twoPipelines(place)
			lost.Supervisors = lost.Supervisors[:1]
			clk.t = clk.t.Add(time.Second)
			d = protocol.Decision{}
			if err := call(http.MethodPost, protocol.PathSchedule, lost, &d); err != nil {
				t.Fatalf("round without s2: %v", err)
			}
			if len(d.Errors) != 0 || len(d.Topologies) != 1 {
				t.Fatalf("round without s2: decision %+v, want one placement and no error", d)
			}
			placed := 0
			for _, w := range d.Topologies[0].Workers {
				if w.Supervisor != "s1" {
					t.Errorf("worker on %s:%d, want s1 only (s2 is gone)", w.Supervisor, w.Port)
				}
				placed += len(w.Executors)
			}
			if placed != 4 {
				t.Errorf("%d executors placed, want 4", placed)
			}

			// The service still takes reports and answers the harness's collect.
			late := pipelineReports(map[int]string{1: "s1", 2: "s1", 3: "s1", 4: "s1"}, t0+1000)
			if err := call(http.MethodPost, protocol.PathMetrics, late[0], nil); err != nil {
				t.Fatal(err)
			}
			var got []protocol.WorkerReport
			if err := call(http.MethodGet, protocol.PathReports+"?since_ms=1", nil, &got); err != nil {
				t.Fatal(err)
			}
			hosts := map[string]int{}
			for _, r := range got {
				hosts[r.Host]++
			}
			if len(got) != 3 || hosts["h2"] != 1 {
				t.Errorf("GET /v1/reports: %d reports by host %v, want 3 with the lost node's one (h2)", len(got), hosts)
			}
			var st protocol.State
			if err := call(http.MethodGet, protocol.PathState, nil, &st); err != nil {
				t.Fatal(err)
			}
			if len(st.Load) != 1 || st.Load[0].Node != "s1" {
				t.Errorf("load table %+v, want one row, s1 (the nodes of the last snapshot)", st.Load)
			}
			if st.Rounds != 2 {
				t.Errorf("%d rounds recorded, want 2", st.Rounds)
			}
		})
	}
}

// TestNodeLoadSkipsLostSender: hand computation of the load table when a sender's node is gone.
// Spouts 1, 3 on s2 (lost), bolts 2, 4 on s1, 1,000 tuples/s each pipeline (10,000 tuples in a
// 10 s interval). s1's bolts send nothing, so its network load is 0; the 2,000 tuples/s from s2
// belong to no row of the snapshot and are left out.
func TestNodeLoadSkipsLostSender(t *testing.T) {
	place := map[int]string{1: "s2", 2: "s1", 3: "s2", 4: "s1"}
	m := newMeasurements()
	for _, r := range pipelineReports(place, 1_700_000_000_000) {
		m.add(&r)
	}
	full := twoPipelines(place)
	rows := m.nodeLoad(full)
	if len(rows) != 2 || rows[1].Node != "s2" || rows[1].NetworkLoad != 2000 {
		t.Fatalf("both nodes: rows %+v, want s2 sending 2000 tuples/s to s1", rows)
	}
	lost := twoPipelines(place)
	lost.Supervisors = lost.Supervisors[:1]
	rows = m.nodeLoad(lost)
	if len(rows) != 1 || rows[0].Node != "s1" || rows[0].NetworkLoad != 0 {
		t.Fatalf("s2 lost: rows %+v, want only s1 with network load 0", rows)
	}
}
