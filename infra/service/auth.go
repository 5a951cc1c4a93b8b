package service

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/stormlab/stormlab/infra/protocol"
)

// TokenEnv names the environment variable holding the service's token (stormlab-service --token,
// the bridge's stormlab.scheduler.token, the harness's target token).
const TokenEnv = "STORMLAB_SERVICE_TOKEN"

// WithToken makes every request but GET /v1/health carry "Authorization: Bearer <token>"; the
// others are refused with 401 and counted (State.Unauthorized). "" means no token (the default).
// Health stays open so that a load balancer or a container's wait strategy can probe the service;
// it tells only the scheduler's name. GET /metrics is not open: it names topologies and hosts, and
// Prometheus carries the token (a scrape_config's authorization block).
func WithToken(token string) Option {
	return func(s *Service) {
		s.auth.token = strings.TrimSpace(token)
		if s.auth.token != "" {
			s.auth.sum = sha256.Sum256([]byte("Bearer " + s.auth.token))
		}
	}
}

// auth checks the bearer token of requests.
type auth struct {
	token   string
	sum     [32]byte // of the expected Authorization header: compared in constant time, whatever its length
	refused atomic.Int64
}

func (a *auth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.token == "" || r.URL.Path == protocol.PathHealth || a.ok(r.Header.Get("Authorization")) {
			next.ServeHTTP(w, r)
			return
		}
		a.refused.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer realm="stormlab-service"`)
		writeError(w, http.StatusUnauthorized, "%s %s: missing or wrong token: send \"Authorization: Bearer <token>\" with the service's token (--token / $%s)", r.Method, r.URL.Path, TokenEnv)
	})
}

func (a *auth) ok(header string) bool {
	got := sha256.Sum256([]byte(header))
	return subtle.ConstantTimeCompare(got[:], a.sum[:]) == 1
}
