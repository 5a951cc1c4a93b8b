package service

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// TestBurnSwitch: a burner's load is 0 until set, then what was set, per topology name; a busy outside
// [0, 1] or a missing name is a 400, and the token guards both directions like every path.
func TestBurnSwitch(t *testing.T) {
	s, err := New("even", schedulers.Options{}, WithToken("secret"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	do := func(method, url string, body any, token string) (int, protocol.Burn) {
		t.Helper()
		var data []byte
		if body != nil {
			data, _ = json.Marshal(body)
		}
		req, _ := http.NewRequest(method, srv.URL+url, bytes.NewReader(data))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b protocol.Burn
		json.NewDecoder(resp.Body).Decode(&b)
		return resp.StatusCode, b
	}
	get := protocol.PathBurn + "?topology=stormlab-burner-straggler-sup1"
	for _, c := range []struct {
		method, url string
		body        any
		token       string
		code        int
		busy        float64
	}{
		{http.MethodGet, get, nil, "secret", 200, 0},
		{http.MethodPost, protocol.PathBurn, protocol.Burn{Topology: "stormlab-burner-straggler-sup1", Busy: 0.4}, "secret", 204, 0},
		{http.MethodGet, get, nil, "secret", 200, 0.4},
		{http.MethodGet, protocol.PathBurn + "?topology=other", nil, "secret", 200, 0},
		{http.MethodPost, protocol.PathBurn, protocol.Burn{Topology: "x", Busy: 1.5}, "secret", 400, 0},
		{http.MethodPost, protocol.PathBurn, protocol.Burn{Busy: 0.5}, "secret", 400, 0},
		{http.MethodGet, protocol.PathBurn, nil, "secret", 400, 0},
		{http.MethodGet, get, nil, "", 401, 0},
		{http.MethodPost, protocol.PathBurn, protocol.Burn{Topology: "stormlab-burner-straggler-sup1", Busy: 0}, "secret", 204, 0},
		{http.MethodGet, get, nil, "secret", 200, 0},
	} {
		code, b := do(c.method, c.url, c.body, c.token)
		if code != c.code || code == 200 && b.Busy != c.busy {
			t.Errorf("%s %s %+v: %d busy %v, want %d busy %v", c.method, c.url, c.body, code, b.Busy, c.code, c.busy)
		}
	}
}
