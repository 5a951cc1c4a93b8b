package stormui

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// fakeUI serves canned pages in the two formats: "stormlab" (executors on the topology page) and
// Storm UI's (executors on component pages).
func fakeUI(t *testing.T) *httptest.Server {
	pages := map[string]string{
		"/api/v1/topology/summary": `{"topologies":[{"id":"t-1","name":"t","status":"ACTIVE"},{"id":"u-2","name":"u","status":"ACTIVE"}]}`,
		"/api/v1/cluster/summary":  `{"supervisors":2,"topologies":2,"slotsTotal":8,"slotsUsed":3,"slotsFree":5}`,
		"/api/v1/topology/t-1": `{"id":"t-1","name":"t","executorsTotal":2,"executors":[
			{"component":"spout","taskStart":1,"taskEnd":1,"host":"sup1","port":6700,"type":"spout","acked":10,"completeLatency":2.5},
			{"component":"bolt","taskStart":2,"taskEnd":3,"host":"","port":0}]}`,
		"/api/v1/topology/u-2":             `{"id":"u-2","name":"u","spouts":[{"spoutId":"s","executors":1}],"bolts":[{"boltId":"b","executors":1}]}`,
		"/api/v1/topology/u-2/component/s": `{"executorStats":[{"id":"[1-1]","host":"sup2","port":6701}]}`,
		"/api/v1/topology/u-2/component/b": `{"executorStats":[{"id":"[2-4]","host":"sup1","port":6700}]}`,
		"/api/v1/topology/t-1/kill/0":      `{"status":"success"}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"no such endpoint"}`))
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClient(t *testing.T) {
	ctx := context.Background()
	c := New(fakeUI(t).URL)
	id, err := c.TopologyID(ctx, "u")
	if err != nil || id != "u-2" {
		t.Fatalf("TopologyID(u) = %q, %v; want u-2", id, err)
	}
	if _, err := c.TopologyID(ctx, "nope"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("TopologyID(nope) error = %v, want ErrNotRunning", err)
	}
	cl, err := c.Cluster(ctx)
	if err != nil || cl.SlotsUsed != 3 {
		t.Errorf("Cluster = %+v, %v; want 3 slots used", cl, err)
	}
	top, err := c.Topology(ctx, "t-1")
	if err != nil {
		t.Fatal(err)
	}
	if top.ExecutorsTotal != 2 || len(top.Executors) != 2 || top.Executors[0].Acked != 10 || top.Executors[1].Host != "" {
		t.Errorf("stormlab page: %+v", top)
	}
	top, err = c.Topology(ctx, "u-2")
	if err != nil {
		t.Fatal(err)
	}
	if top.ExecutorsTotal != 2 || len(top.Executors) != 2 ||
		top.Executors[0] != (Executor{Component: "s", Type: "spout", TaskStart: 1, TaskEnd: 1, Host: "sup2", Port: 6701}) ||
		top.Executors[1].TaskEnd != 4 {
		t.Errorf("Storm UI page: %+v", top)
	}
	if err := c.Kill(ctx, "t-1", 0); err != nil {
		t.Errorf("Kill: %v", err)
	}
	var he *HTTPError
	if err := c.Kill(ctx, "zz", 0); !errors.As(err, &he) || he.Status != "404 Not Found" {
		t.Errorf("Kill(zz) error = %v, want an HTTPError 404", err)
	}
}

func TestParseExecutorID(t *testing.T) {
	for _, tc := range []struct {
		in         string
		start, end int
		ok         bool
	}{{"[3-4]", 3, 4, true}, {"[7-7]", 7, 7, true}, {"[4-3]", 0, 0, false}, {"3", 0, 0, false}, {"[a-b]", 0, 0, false}} {
		s, e, err := ParseExecutorID(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (s != tc.start || e != tc.end)) {
			t.Errorf("ParseExecutorID(%q) = %d, %d, %v", tc.in, s, e, err)
		}
	}
}
