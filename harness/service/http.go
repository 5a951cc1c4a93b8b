package service

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

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
//	GET  /v1/health    {"status":"ok","scheduler":NAME}
//	GET  /v1/state     State (?since_ms=T)
//	GET  /v1/reports   []WorkerReport (?since_ms=T)
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(protocol.PathSchedule, s.handleSchedule)
	mux.HandleFunc(protocol.PathMetrics, s.handleMetrics)
	mux.HandleFunc(protocol.PathFallback, s.handleFallback)
	mux.HandleFunc(protocol.PathReset, s.handleReset)
	mux.HandleFunc(protocol.PathHealth, s.handleHealth)
	mux.HandleFunc(protocol.PathState, s.handleState)
	mux.HandleFunc(protocol.PathReports, s.handleReports)
	mux.HandleFunc(protocol.PathNodes, s.handleNodes)
	mux.HandleFunc(protocol.PathScheduler, s.handleScheduler)
	return s.auth.wrap(mux)
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

func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method != method {
		w.Header().Set("Allow", method)
		writeError(w, http.StatusMethodNotAllowed, "%s %s is not served: use %s", r.Method, r.URL.Path, method)
		return false
	}
	return true
}

// decode reads a JSON body into v; what names the expected type for the
// error message.
func decode(w http.ResponseWriter, r *http.Request, v any, what string) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "decode %s: %v (send a JSON protocol.%s)", what, err, what)
		return false
	}
	return true
}

func sinceMs(w http.ResponseWriter, r *http.Request) (int64, bool) {
	q := r.URL.Query().Get("since_ms")
	if q == "" {
		return 0, true
	}
	v, err := strconv.ParseInt(q, 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "since_ms=%q is not an integer: give milliseconds since the Unix epoch", q)
		return 0, false
	}
	return v, true
}

func (s *Service) handleSchedule(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	var snap protocol.Snapshot
	if !decode(w, r, &snap, "Snapshot") {
		return
	}
	d, err := s.Schedule(r.Context(), &snap)
	if err != nil {
		writeError(w, http.StatusBadRequest, "snapshot: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Service) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	var rep protocol.WorkerReport
	if !decode(w, r, &rep, "WorkerReport") {
		return
	}
	if err := s.Report(&rep); err != nil {
		writeError(w, http.StatusBadRequest, "worker report: %v", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) handleFallback(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	var f protocol.Fallback
	if !decode(w, r, &f, "Fallback") {
		return
	}
	s.Fallback(f)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) handleReset(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	s.Reset()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) handleHealth(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "scheduler": s.Name()})
}

func (s *Service) handleState(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	since, ok := sinceMs(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, s.State(since))
}

func (s *Service) handleReports(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	since, ok := sinceMs(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, s.Reports(since))
}

func (s *Service) handleNodes(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	var rep protocol.NodeReport
	if !decode(w, r, &rep, "NodeReport") {
		return
	}
	if err := s.NodeReport(&rep); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) handleScheduler(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	var c protocol.SchedulerChoice
	if !decode(w, r, &c, "SchedulerChoice") {
		return
	}
	o, err := schedulers.ParseOptions(string(c.Options))
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	if err := s.SetScheduler(c.Scheduler, o); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
