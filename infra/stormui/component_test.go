package stormui

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestNum: Storm UI writes latencies as strings (StatsUtil.floatStr), counters as numbers, and
// leaves some out (null); all read as numbers, anything else is an error.
func TestNum(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{`12.5`, 12.5, true}, {`"2.500"`, 2.5, true}, {`null`, 0, true}, {`""`, 0, true}, {`" 7 "`, 7, true},
		{`"n/a"`, 0, false}, {`true`, 0, false},
	} {
		var n Num
		err := json.Unmarshal([]byte(c.in), &n)
		if (err == nil) != c.ok || c.ok && float64(n) != c.want {
			t.Errorf("%s: %v, %v; want %v (ok %v)", c.in, float64(n), err, c.want, c.ok)
		}
	}
}

// TestVisualizationAndComponent: system components and streams are left out, inputs and executors
// come sorted, the stormlab UI's ":fields" are kept (an empty list too: a global grouping).
func TestVisualizationAndComponent(t *testing.T) {
	pages := map[string]string{
		"/api/v1/topology/t-1/visualization": `{
			"b":{":type":"bolt",":inputs":[{":component":"s",":stream":"x",":grouping":"fields",":fields":[]},{":component":"s",":stream":"default",":grouping":"shuffle"}]},
			"s":{":type":"spout",":inputs":[{":component":"__acker",":stream":"__ack_ack",":grouping":"direct"}]},
			"__acker":{":type":"bolt",":inputs":[]}}`,
		"/api/v1/topology/t-1/component/b": `{"componentType":"bolt",
			"executorStats":[{"id":"[4-5]","host":"h2","port":6701,"executed":10,"executeLatency":"0.5"},{"id":"[2-3]","host":"h1","port":6700,"executed":"20"}],
			"inputStats":[{"component":"s","stream":"default","executed":30},{"component":"__system","stream":"__tick","executed":3}],
			"outputStats":[{"stream":"default","emitted":7},{"stream":"__ack_ack","emitted":9}]}`,
		"/api/v1/topology/t-1/component/bad": `{"executorStats":[{"id":"[x-5]"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	c := New(srv.URL)
	vis, err := c.Visualization(context.Background(), "t-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(vis) != 2 || vis[0].ID != "b" || vis[1].ID != "s" || len(vis[1].Inputs) != 0 || len(vis[0].Inputs) != 2 {
		t.Fatalf("visualization %+v: want b (2 inputs) and s (none)", vis)
	}
	if in := vis[0].Inputs; in[0].Stream != "default" || in[0].FieldsKnown || in[1].Stream != "x" || !in[1].FieldsKnown || len(in[1].Fields) != 0 {
		t.Errorf("inputs %+v: want default (fields unknown) then x (fields known, none)", in)
	}
	p, err := c.Component(context.Background(), "t-1", "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Executors) != 2 || p.Executors[0].TaskStart != 2 || p.Executors[0].Executed != 20 || p.Executors[1].ExecuteLatencyMs != 0.5 ||
		len(p.Inputs) != 1 || len(p.Outputs) != 1 || p.Outputs[0].Emitted != 7 || p.Type != "bolt" {
		t.Errorf("component page %+v", p)
	}
	if _, err := c.Component(context.Background(), "t-1", "bad"); err == nil {
		t.Error("executor id [x-5]: no error")
	}
}
