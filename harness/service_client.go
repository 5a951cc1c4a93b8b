package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
)

// ServiceClient reads the scheduler service's raw worker reports.
type ServiceClient struct {
	BaseURL string
	Client  *http.Client
}

// Reports returns every worker report the service has received.
func (s *ServiceClient) Reports(ctx context.Context) ([]protocol.WorkerReport, error) {
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(s.BaseURL, "/")+protocol.PathReports, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scheduler service: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scheduler service %s: status %s", protocol.PathReports, resp.Status)
	}
	var out []protocol.WorkerReport
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("scheduler service %s: decode: %w", protocol.PathReports, err)
	}
	return out, nil
}

// ReportsUntil waits until some report at or after untilMs has arrived (so
// the last interval of a window is in) or maxWait passes, then returns all.
func (s *ServiceClient) ReportsUntil(ctx context.Context, untilMs int64, maxWait time.Duration) ([]protocol.WorkerReport, error) {
	deadline := time.Now().Add(maxWait)
	for {
		r, err := s.Reports(ctx)
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
		if err := pause(ctx, time.Second); err != nil {
			return nil, err
		}
	}
}

// WaitWorkers waits until every worker slot ("host:port") of topology id
// has sent a report with traffic or acks, i.e. its executors really run.
func (s *ServiceClient) WaitWorkers(ctx context.Context, id string, slots []string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		r, err := s.Reports(ctx)
		seen := map[string]bool{}
		if err == nil {
			for _, x := range r {
				if x.Topology == id && (len(x.Traffic) > 0 || x.Acked > 0) {
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
		if perr := pause(ctx, time.Second); perr != nil {
			return fmt.Errorf("%d of %d workers of %s have not reported work after %s (last error: %v)", missing, len(slots), id, timeout, err)
		}
	}
}
