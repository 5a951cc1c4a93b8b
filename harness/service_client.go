package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/target"

	"github.com/stormlab/stormlab/infra/protocol"
)

// serviceClient reads the scheduler service: the workers' raw reports and the service's state (its
// rounds, decisions and the bridge's fallbacks, as the bridge posted them).
type serviceClient struct {
	BaseURL string
	Client  *http.Client
	// Token, when set, is sent as "Authorization: Bearer <token>" (a service started with --token).
	Token string
}

// authorize adds the token to a request to the service.
func (s *serviceClient) authorize(req *http.Request) {
	if s.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.Token)
	}
}

// post posts v as JSON to path and fails on a non-2xx answer.
func (s *serviceClient) post(ctx context.Context, path string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	resp, err := s.do(ctx, http.MethodPost, path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// get reads path (since sinceMs when > 0) into v.
func (s *serviceClient) get(ctx context.Context, path string, sinceMs int64, v any) error {
	q := ""
	if sinceMs > 0 {
		q = "?since_ms=" + strconv.FormatInt(sinceMs, 10)
	}
	resp, err := s.do(ctx, http.MethodGet, path+q, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("scheduler service %s: decode: %w", path, err)
	}
	return nil
}

// do sends one request with the token and returns a 2xx answer (its body for the caller to close);
// any other answer is an error naming what to fix (401: the token).
func (s *serviceClient) do(ctx context.Context, method, pathQuery string, body io.Reader) (*http.Response, error) {
	path, _, _ := strings.Cut(pathQuery, "?")
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(s.BaseURL, "/")+pathQuery, body)
	if err != nil {
		return nil, fmt.Errorf("scheduler service %s: %w", path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	s.authorize(req)
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scheduler service %s: %w", path, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, fmt.Errorf("scheduler service %s: refused (401): the token is missing or wrong: set token in the target file to the service's --token", path)
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	return nil, fmt.Errorf("scheduler service %s: status %s: %s", path, resp.Status, strings.TrimSpace(string(msg)))
}

// reports returns the worker reports with TimeMs >= sinceMs (0: all).
func (s *serviceClient) reports(ctx context.Context, sinceMs int64) ([]protocol.WorkerReport, error) {
	var out []protocol.WorkerReport
	err := s.get(ctx, protocol.PathReports, sinceMs, &out)
	return out, err
}

// State returns the service's state, its time series cut to sinceMs (0: all).
func (s *serviceClient) State(ctx context.Context, sinceMs int64) (*protocol.State, error) {
	var st protocol.State
	if err := s.get(ctx, protocol.PathState, sinceMs, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// reportsUntil waits until some report at or after untilMs has arrived (so the last interval of a
// window is in) or maxWait passes, then returns the reports since sinceMs.
func (s *serviceClient) reportsUntil(ctx context.Context, sinceMs, untilMs int64, maxWait time.Duration) ([]protocol.WorkerReport, error) {
	deadline := time.Now().Add(maxWait)
	for {
		r, err := s.reports(ctx, sinceMs)
		if err != nil {
			return nil, err
		}
		for _, x := range r {
			if x.TimeMs >= untilMs {
				return r, nil
			}
		}
		if time.Now().After(deadline) {
			return r, nil
		}
		if err := pause(ctx, pollEvery); err != nil {
			return nil, err
		}
	}
}

// waitWorkers waits until every worker slot of topology id, placed as execs, is ready by the reports
// since sinceMs (see unready): its executors really run.
func (s *serviceClient) waitWorkers(ctx context.Context, id string, sinceMs int64, execs []ExecutorPlace, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	slots := workerSlots(execs)
	missing := slots // as of the last reports read
	for {
		r, err := s.reports(ctx, sinceMs)
		if err == nil {
			if missing = unready(r, id, execs); len(missing) == 0 {
				return nil
			}
		}
		if perr := pause(ctx, pollEvery); perr != nil {
			return fmt.Errorf("%d of %d workers of %s have not reported work after %s (%s; last error: %v): %w",
				len(missing), len(slots), id, timeout, strings.Join(missing, ", "), err, perr)
		}
	}
}

// waitReports waits until every worker slot of topology id has sent a report since sinceMs for which
// ok holds; what names that condition in the timeout's error.
func (s *serviceClient) waitReports(ctx context.Context, id string, sinceMs int64, slots []string, timeout time.Duration, ok func(protocol.WorkerReport) bool, what string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		r, err := s.reports(ctx, sinceMs)
		seen := map[string]bool{}
		if err == nil {
			for _, x := range r {
				if x.Topology == id && ok(x) {
					seen[fmt.Sprintf("%s:%d", x.Host, x.Port)] = true
				}
			}
		}
		missing := 0
		for _, sl := range slots {
			if !seen[sl] {
				missing++
			}
		}
		if err == nil && missing == 0 {
			return nil
		}
		if perr := pause(ctx, pollEvery); perr != nil {
			return fmt.Errorf("%d of %d workers of %s have not %s after %s (last error: %v): %w", missing, len(slots), id, what, timeout, err, perr)
		}
	}
}

// ServiceState reads the state of target t's scheduler service (rounds, decisions, fallbacks, refused
// requests) since sinceMs, with t's token.
func ServiceState(ctx context.Context, t *target.Target, sinceMs int64) (*protocol.State, error) {
	return (&serviceClient{BaseURL: target.Trim(t.Service.Harness), Token: t.Token}).State(ctx, sinceMs)
}

// ServiceReports reads the worker reports target t's scheduler service holds with TimeMs >= sinceMs
// (0: all), with t's token.
func ServiceReports(ctx context.Context, t *target.Target, sinceMs int64) ([]protocol.WorkerReport, error) {
	return (&serviceClient{BaseURL: target.Trim(t.Service.Harness), Token: t.Token}).reports(ctx, sinceMs)
}
