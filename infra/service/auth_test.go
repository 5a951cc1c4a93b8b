package service

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// With a token every path but health needs it; refusals are 401 and counted in the state.
func TestTokenAuth(t *testing.T) {
	const token = "s3cret-token"
	srv := httptest.NewServer(NewWithScheduler("rr", &roundRobin{}, WithToken(token)).Handler())
	defer srv.Close()
	for _, c := range []struct {
		name, method, path, auth string
		want                     int
	}{
		{"no header", http.MethodGet, protocol.PathState, "", http.StatusUnauthorized},
		{"wrong token", http.MethodGet, protocol.PathState, "Bearer nope", http.StatusUnauthorized},
		{"token without Bearer", http.MethodGet, protocol.PathState, token, http.StatusUnauthorized},
		{"longer token", http.MethodGet, protocol.PathState, "Bearer " + token + "x", http.StatusUnauthorized},
		{"report without token", http.MethodPost, protocol.PathMetrics, "", http.StatusUnauthorized},
		{"schedule without token", http.MethodPost, protocol.PathSchedule, "", http.StatusUnauthorized},
		{"health is open", http.MethodGet, protocol.PathHealth, "", http.StatusOK},
		{"right token", http.MethodGet, protocol.PathState, "Bearer " + token, http.StatusOK},
	} {
		if got := statusOf(t, c.method, srv.URL+c.path, c.auth); got != c.want {
			t.Errorf("%s: %s %s: status %d, want %d", c.name, c.method, c.path, got, c.want)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+protocol.PathState, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st protocol.State
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st.Unauthorized != 6 { // the six refused requests above
		t.Errorf("state unauthorized = %d, want 6", st.Unauthorized)
	}
}

// Without a token nothing is refused and nothing counted.
func TestNoTokenServesAll(t *testing.T) {
	s := NewWithScheduler("rr", &roundRobin{})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + protocol.PathState)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || s.State(0).Unauthorized != 0 {
		t.Errorf("status %d unauthorized %d, want 200 and 0", resp.StatusCode, s.State(0).Unauthorized)
	}
}

// statusOf sends method to url with a "{}" body and the Authorization header auth (none when empty),
// and returns the response's status code.
func statusOf(t *testing.T, method, url, auth string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
