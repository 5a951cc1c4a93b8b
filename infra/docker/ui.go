package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Typed views of the UI's REST answers (StormlabUI in the storm image; field names follow Storm UI).

// SupervisorInfo is one entry of /api/v1/supervisor/summary. TotalCPU is percent of a core (100 = one
// core), TotalMem MB.
type SupervisorInfo struct {
	ID         string  `json:"id"`
	Host       string  `json:"host"`
	SlotsTotal int     `json:"slotsTotal"`
	SlotsUsed  int     `json:"slotsUsed"`
	TotalCPU   float64 `json:"totalCpu"`
	TotalMem   float64 `json:"totalMem"`
	UsedCPU    float64 `json:"usedCpu"`
	UsedMem    float64 `json:"usedMem"`
}

// TopologyInfo is one entry of /api/v1/topology/summary.
type TopologyInfo struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Status         string `json:"status"`
	UptimeSeconds  int    `json:"uptimeSeconds"`
	TasksTotal     int    `json:"tasksTotal"`
	WorkersTotal   int    `json:"workersTotal"`
	ExecutorsTotal int    `json:"executorsTotal"`
	SchedulerInfo  string `json:"schedulerInfo"`
}

// ExecutorInfo is one executor of /api/v1/topology/<id>: its placement and all-time counters (summed
// over streams; latencies in ms, weighted by counts).
type ExecutorInfo struct {
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

// TopologyDetail is /api/v1/topology/<id>.
type TopologyDetail struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	Status         string         `json:"status"`
	UptimeSeconds  int            `json:"uptimeSeconds"`
	SchedulerInfo  string         `json:"schedulerInfo"`
	ExecutorsTotal int            `json:"executorsTotal"`
	Executors      []ExecutorInfo `json:"executors"`
}

func (c *Cluster) getJSON(ctx context.Context, p string, v any) error {
	base, err := c.UIURL(ctx)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+p, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", p, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", p, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", p, resp.Status, strings.TrimSpace(string(data)))
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("GET %s: decode: %w", p, err)
	}
	return nil
}

// SupervisorSummary lists the supervisors Nimbus knows.
func (c *Cluster) SupervisorSummary(ctx context.Context) ([]SupervisorInfo, error) {
	var v struct {
		Supervisors []SupervisorInfo `json:"supervisors"`
	}
	err := c.getJSON(ctx, "/api/v1/supervisor/summary", &v)
	return v.Supervisors, err
}

// TopologySummary lists the running topologies.
func (c *Cluster) TopologySummary(ctx context.Context) ([]TopologyInfo, error) {
	var v struct {
		Topologies []TopologyInfo `json:"topologies"`
	}
	err := c.getJSON(ctx, "/api/v1/topology/summary", &v)
	return v.Topologies, err
}

// Topology returns one topology's executors with placement and counters.
func (c *Cluster) Topology(ctx context.Context, id string) (*TopologyDetail, error) {
	var v TopologyDetail
	if err := c.getJSON(ctx, "/api/v1/topology/"+url.PathEscape(id), &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// TopologyID returns the id of the running topology with this name.
func (c *Cluster) TopologyID(ctx context.Context, name string) (string, error) {
	tops, err := c.TopologySummary(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range tops {
		if t.Name == name {
			return t.ID, nil
		}
	}
	return "", fmt.Errorf("no running topology named %q", name)
}
