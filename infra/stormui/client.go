package stormui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client reads one UI. BaseURL is the UI's address (http://127.0.0.1:<port>); HTTP nil means a client
// with a 10 s timeout.
type Client struct {
	BaseURL string
	HTTP    *http.Client
}

// New returns a Client for the UI at base.
func New(base string) *Client { return &Client{BaseURL: strings.TrimRight(base, "/")} }

// ErrNotRunning is wrapped by TopologyID when no running topology has the name.
var ErrNotRunning = errors.New("topology is not running")

// HTTPError is an answer other than 200 OK.
type HTTPError struct {
	Method, Path string
	Status       string
	Body         string // first 300 bytes
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("storm ui %s %s: %s: %s", e.Method, e.Path, e.Status, e.Body)
}

func (c *Client) do(ctx context.Context, method, path string, v any) error {
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.BaseURL, "/")+path, nil)
	if err != nil {
		return fmt.Errorf("storm ui %s: %w", path, err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("storm ui %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("storm ui %s: read: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		body := strings.TrimSpace(string(data))
		if len(body) > 300 {
			body = body[:300]
		}
		return &HTTPError{Method: method, Path: path, Status: resp.Status, Body: body}
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("storm ui %s: decode: %w", path, err)
	}
	return nil
}

// ClusterSummary is /api/v1/cluster/summary.
type ClusterSummary struct {
	Supervisors int `json:"supervisors"`
	Topologies  int `json:"topologies"`
	SlotsTotal  int `json:"slotsTotal"`
	SlotsUsed   int `json:"slotsUsed"`
	SlotsFree   int `json:"slotsFree"`
}

// Supervisor is one entry of /api/v1/supervisor/summary. TotalCPU is percent of a core (100 = one
// core), TotalMem MB.
type Supervisor struct {
	ID         string  `json:"id"`
	Host       string  `json:"host"`
	SlotsTotal int     `json:"slotsTotal"`
	SlotsUsed  int     `json:"slotsUsed"`
	TotalCPU   float64 `json:"totalCpu"`
	TotalMem   float64 `json:"totalMem"`
	UsedCPU    float64 `json:"usedCpu"`
	UsedMem    float64 `json:"usedMem"`
}

// TopologySummary is one entry of /api/v1/topology/summary.
type TopologySummary struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Status         string `json:"status"`
	UptimeSeconds  int    `json:"uptimeSeconds"`
	TasksTotal     int    `json:"tasksTotal"`
	WorkersTotal   int    `json:"workersTotal"`
	ExecutorsTotal int    `json:"executorsTotal"`
	SchedulerInfo  string `json:"schedulerInfo"`
}

// Executor is one executor: its task range, placement (Host "" while unplaced) and Storm's all-time
// counters summed over streams (latencies in ms, weighted by counts). Storm UI proper gives no
// counters here (they stay zero).
type Executor struct {
	Component       string  `json:"component"`
	TaskStart       int     `json:"taskStart"`
	TaskEnd         int     `json:"taskEnd"`
	Host            string  `json:"host"`
	Port            int     `json:"port"`
	UptimeSeconds   int     `json:"uptimeSeconds"`
	Type            string  `json:"type"` // spout or bolt; empty before the first stats
	Emitted         int64   `json:"emitted"`
	Transferred     int64   `json:"transferred"`
	Acked           int64   `json:"acked"`
	Failed          int64   `json:"failed"`
	Executed        int64   `json:"executed"`
	CompleteLatency float64 `json:"completeLatency"`
	ExecuteLatency  float64 `json:"executeLatency"`
	ProcessLatency  float64 `json:"processLatency"`
}

// Topology is /api/v1/topology/<id> with its executors.
type Topology struct {
	ID             string     `json:"id"`
	Name           string     `json:"name"`
	Status         string     `json:"status"`
	UptimeSeconds  int        `json:"uptimeSeconds"`
	SchedulerInfo  string     `json:"schedulerInfo"`
	ExecutorsTotal int        `json:"executorsTotal"`
	Executors      []Executor `json:"executors"`
}

// Cluster returns the cluster summary.
func (c *Client) Cluster(ctx context.Context) (ClusterSummary, error) {
	var v ClusterSummary
	err := c.do(ctx, http.MethodGet, "/api/v1/cluster/summary", &v)
	return v, err
}

// Supervisors lists the supervisors Nimbus knows.
func (c *Client) Supervisors(ctx context.Context) ([]Supervisor, error) {
	var v struct {
		Supervisors []Supervisor `json:"supervisors"`
	}
	err := c.do(ctx, http.MethodGet, "/api/v1/supervisor/summary", &v)
	return v.Supervisors, err
}

// Topologies lists the topologies Nimbus knows (running, killed but not yet removed, ...).
func (c *Client) Topologies(ctx context.Context) ([]TopologySummary, error) {
	var v struct {
		Topologies []TopologySummary `json:"topologies"`
	}
	err := c.do(ctx, http.MethodGet, "/api/v1/topology/summary", &v)
	return v.Topologies, err
}

// TopologyID returns the id of the topology with this name; the error wraps ErrNotRunning when there is
// none.
func (c *Client) TopologyID(ctx context.Context, name string) (string, error) {
	tops, err := c.Topologies(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range tops {
		if t.Name == name {
			return t.ID, nil
		}
	}
	return "", fmt.Errorf("%q: %w", name, ErrNotRunning)
}

// Topology returns one topology's page. On Storm UI proper, whose page has no "executors", the
// executors are read from the component pages (placement only, no counters).
func (c *Client) Topology(ctx context.Context, id string) (*Topology, error) {
	var v struct {
		Topology
		Executors *[]Executor `json:"executors"`
		Spouts    []struct {
			SpoutID   string `json:"spoutId"`
			Executors int    `json:"executors"`
		} `json:"spouts"`
		Bolts []struct {
			BoltID    string `json:"boltId"`
			Executors int    `json:"executors"`
		} `json:"bolts"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/topology/"+url.PathEscape(id), &v); err != nil {
		return nil, err
	}
	t := v.Topology
	if v.Executors != nil {
		t.Executors = *v.Executors
		return &t, nil
	}
	type comp struct {
		id, typ string
	}
	var comps []comp
	t.ExecutorsTotal = 0
	for _, s := range v.Spouts {
		comps = append(comps, comp{s.SpoutID, "spout"})
		t.ExecutorsTotal += s.Executors
	}
	for _, b := range v.Bolts {
		comps = append(comps, comp{b.BoltID, "bolt"})
		t.ExecutorsTotal += b.Executors
	}
	for _, cp := range comps {
		var page struct {
			ExecutorStats []struct {
				ID   string `json:"id"`
				Host string `json:"host"`
				Port int    `json:"port"`
			} `json:"executorStats"`
		}
		if err := c.do(ctx, http.MethodGet, "/api/v1/topology/"+url.PathEscape(id)+"/component/"+url.PathEscape(cp.id), &page); err != nil {
			return nil, err
		}
		for _, e := range page.ExecutorStats {
			start, end, err := ParseExecutorID(e.ID)
			if err != nil {
				return nil, err
			}
			t.Executors = append(t.Executors, Executor{Component: cp.id, Type: cp.typ, TaskStart: start, TaskEnd: end, Host: e.Host, Port: e.Port})
		}
	}
	return &t, nil
}

// Kill kills a topology (by id or name) after waitSecs, without waiting for it to go.
func (c *Client) Kill(ctx context.Context, topology string, waitSecs int) error {
	if err := c.do(ctx, http.MethodPost, "/api/v1/topology/"+url.PathEscape(topology)+"/kill/"+strconv.Itoa(waitSecs), nil); err != nil {
		return fmt.Errorf("kill topology %s: %w", topology, err)
	}
	return nil
}

// ParseExecutorID parses Storm's executor id "[3-4]".
func ParseExecutorID(s string) (int, int, error) {
	a, b, ok := strings.Cut(strings.Trim(s, "[]"), "-")
	if !ok {
		return 0, 0, fmt.Errorf("executor id %q: want [start-end]", s)
	}
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || end < start {
		return 0, 0, fmt.Errorf("executor id %q: want [start-end]", s)
	}
	return start, end, nil
}

// NimbusConf is Nimbus's configuration (/api/v1/cluster/configuration): storm.yaml over Storm's
// defaults, e.g. "storm.scheduler".
func (c *Client) NimbusConf(ctx context.Context) (map[string]any, error) {
	var v map[string]any
	err := c.do(ctx, http.MethodGet, "/api/v1/cluster/configuration", &v)
	return v, err
}
