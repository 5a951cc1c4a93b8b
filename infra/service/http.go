package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// maxBody bounds a request body: a snapshot of 10,000 executors is about
// 1 MB, a worker report with a full 1,000-task traffic matrix a few MB.
const maxBody = 64 << 20

// Handler serves the protocol paths:
//
//	POST /v1/schedule  Snapshot -> Decision
//	POST /v1/metrics   WorkerReport
//	POST /v1/fallback  Fallback
//	POST /v1/reset     forget measurements
//	POST /v1/nodes     NodeReport (a supervisor's whole CPU use)
//	POST /v1/scheduler SchedulerChoice (replace the scheduler between runs)
//	POST /v1/burn      Burn (switch a burner topology's load); GET ?topology=NAME reads it
//	GET  /v1/health    {"status":"ok","scheduler":NAME}
//	GET  /v1/state     State (?since_ms=T)
//	GET  /v1/reports   []WorkerReport (?since_ms=T)
//	GET  /metrics      Prometheus exposition format (prom.go); needs the token like every path but health
//
// Another method on a served path gets 405 with a JSON error naming the method to use.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	route := func(method, path string, h http.HandlerFunc) {
		mux.HandleFunc(method+" "+path, h)
		// The method-less pattern catches the other methods, so the 405 body is JSON like every error.
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, "%s %s is not served: use %s", r.Method, r.URL.Path, method)
		})
	}
	route(http.MethodPost, protocol.PathSchedule, postJSON("Snapshot", s.schedule))
	route(http.MethodPost, protocol.PathMetrics, postJSON("WorkerReport", noContent(s.Report)))
	route(http.MethodPost, protocol.PathFallback, postJSON("Fallback", noContent(s.fallback)))
	route(http.MethodPost, protocol.PathNodes, postJSON("NodeReport", noContent(s.NodeReport)))
	route(http.MethodPost, protocol.PathScheduler, postJSON("SchedulerChoice", noContent(s.choose)))
	route(http.MethodPost, protocol.PathBurn, postJSON("Burn", noContent(s.setBurn)))
	mux.HandleFunc(http.MethodGet+" "+protocol.PathBurn, s.getBurn) // the path's catch-all is POST's route
	route(http.MethodPost, protocol.PathReset, func(w http.ResponseWriter, r *http.Request) {
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	})
	route(http.MethodGet, protocol.PathHealth, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "scheduler": s.Name()})
	})
	route(http.MethodGet, protocol.PathState, getSince(func(ms int64) any { return s.State(ms) }))
	route(http.MethodGet, protocol.PathReports, getSince(func(ms int64) any { return s.Reports(ms) }))
	route(http.MethodGet, PathPrometheus, s.promHandler().ServeHTTP)
	return s.auth.wrap(mux)
}

func (s *Service) schedule(ctx context.Context, snap *protocol.Snapshot) (any, error) {
	d, err := s.Schedule(ctx, snap)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return d, nil
}

func (s *Service) fallback(f *protocol.Fallback) error {
	s.Fallback(*f)
	return nil
}

func (s *Service) choose(c *protocol.SchedulerChoice) error {
	o, err := schedulers.ParseOptions(string(c.Options))
	if err != nil {
		return err
	}
	if c.RescheduleEveryMs < 0 {
		return fmt.Errorf("reschedule_every_ms %d: want a period > 0 ms, or 0 (or none) to keep the current one", c.RescheduleEveryMs)
	}
	return s.SetScheduler(c.Scheduler, o, time.Duration(c.RescheduleEveryMs)*time.Millisecond)
}

// postJSON serves a POST whose body is a protocol.T (what names it in errors): a body that does
// not decode or that apply rejects is a 400; apply's nil result is a 204, any other a 200 with JSON.
func postJSON[T any](what string, apply func(context.Context, *T) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var v T
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&v); err != nil {
			writeError(w, http.StatusBadRequest, "decode %s: %v (send a JSON protocol.%s)", what, err, what)
			return
		}
		out, err := apply(r.Context(), &v)
		switch {
		case err != nil:
			writeError(w, http.StatusBadRequest, "%v", err)
		case out == nil:
			w.WriteHeader(http.StatusNoContent)
		default:
			writeJSON(w, http.StatusOK, out)
		}
	}
}

// noContent adapts a method that only accepts or rejects its input to postJSON.
func noContent[T any](f func(*T) error) func(context.Context, *T) (any, error) {
	return func(_ context.Context, v *T) (any, error) { return nil, f(v) }
}

// getSince serves a GET with an optional ?since_ms=T (milliseconds since the Unix epoch).
func getSince(read func(sinceMs int64) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var since int64
		if q := r.URL.Query().Get("since_ms"); q != "" {
			v, err := strconv.ParseInt(q, 10, 64)
			if err != nil {
				writeError(w, http.StatusBadRequest, "since_ms=%q is not an integer: give milliseconds since the Unix epoch", q)
				return
			}
			since = v
		}
		writeJSON(w, http.StatusOK, read(since))
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

type errorBody struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, code int, format string, a ...any) {
	writeJSON(w, code, errorBody{Error: fmt.Sprintf(format, a...)})
}

// setBurn sets a burner topology's load (protocol.Burn); busy in [0, 1].
func (s *Service) setBurn(b *protocol.Burn) error {
	if b.Topology == "" || !(b.Busy >= 0 && b.Busy <= 1) {
		return fmt.Errorf("burn %+v: want a topology name and busy in [0, 1]", *b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.burn[b.Topology] = b.Busy
	return nil
}

// getBurn answers a burner's poll: its load, 0 when never set.
func (s *Service) getBurn(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("topology")
	if name == "" {
		writeError(w, http.StatusBadRequest, "GET %s needs ?topology=NAME", protocol.PathBurn)
		return
	}
	s.mu.Lock()
	busy := s.burn[name]
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, protocol.Burn{Topology: name, Busy: busy})
}
