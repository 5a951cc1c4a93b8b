package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// UI reads what Nimbus knows through the Storm UI REST API (the UI talks to
// Nimbus over thrift, so these are Nimbus's own answers). BaseURL is the
// UI's published address on 127.0.0.1.
type UI struct {
	BaseURL string
	Client  *http.Client
}

func (u *UI) get(ctx context.Context, path string, v any) error {
	c := u.Client
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(u.BaseURL, "/")+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("storm ui %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("storm ui %s: status %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("storm ui %s: decode: %w", path, err)
	}
	return nil
}

// TopologyID returns the id of the running topology with the given name.
func (u *UI) TopologyID(ctx context.Context, name string) (string, error) {
	var s struct {
		Topologies []struct {
			ID, Name, Status string
		} `json:"topologies"`
	}
	if err := u.get(ctx, "/api/v1/topology/summary", &s); err != nil {
		return "", err
	}
	for _, t := range s.Topologies {
		if t.Name == name {
			return t.ID, nil
		}
	}
	return "", fmt.Errorf("topology %q is not running", name)
}

// ExecutorPlace is one executor's task range and where it runs.
type ExecutorPlace struct {
	Component  string
	Start, End int
	Host       string
	Port       int
}

// Executors lists a topology's executors (system ones included) and where
// Nimbus placed them; total is how many executors the topology has. An
// executor not placed yet has Host "".
//
// Two page formats are read: the stormlab UI's topology page, which lists
// "executors" directly (see infra/images: Storm's own UI, storm-webapp, is
// not on Maven Central), and Storm UI's, where executors sit on component
// pages.
func (u *UI) Executors(ctx context.Context, id string) (placed []ExecutorPlace, total int, err error) {
	var topo struct {
		ExecutorsTotal int `json:"executorsTotal"`
		Executors      []struct {
			Component string `json:"component"`
			TaskStart int    `json:"taskStart"`
			TaskEnd   int    `json:"taskEnd"`
			Host      string `json:"host"`
			Port      int    `json:"port"`
		} `json:"executors"`
		Spouts []struct {
			SpoutID   string `json:"spoutId"`
			Executors int    `json:"executors"`
		} `json:"spouts"`
		Bolts []struct {
			BoltID    string `json:"boltId"`
			Executors int    `json:"executors"`
		} `json:"bolts"`
	}
	if err := u.get(ctx, "/api/v1/topology/"+url.PathEscape(id), &topo); err != nil {
		return nil, 0, err
	}
	if topo.Executors != nil {
		for _, e := range topo.Executors {
			placed = append(placed, ExecutorPlace{Component: e.Component, Start: e.TaskStart, End: e.TaskEnd, Host: e.Host, Port: e.Port})
		}
		return placed, topo.ExecutorsTotal, nil
	}
	var comps []string
	for _, s := range topo.Spouts {
		comps = append(comps, s.SpoutID)
		total += s.Executors
	}
	for _, b := range topo.Bolts {
		comps = append(comps, b.BoltID)
		total += b.Executors
	}
	for _, c := range comps {
		var page struct {
			ExecutorStats []struct {
				ID   string `json:"id"`
				Host string `json:"host"`
				Port int    `json:"port"`
			} `json:"executorStats"`
		}
		if err := u.get(ctx, "/api/v1/topology/"+url.PathEscape(id)+"/component/"+url.PathEscape(c), &page); err != nil {
			return nil, 0, err
		}
		for _, e := range page.ExecutorStats {
			start, end, err := parseExecutorID(e.ID)
			if err != nil {
				return nil, 0, err
			}
			placed = append(placed, ExecutorPlace{Component: c, Start: start, End: end, Host: e.Host, Port: e.Port})
		}
	}
	return placed, total, nil
}

// parseExecutorID parses Storm's executor id "[3-4]".
func parseExecutorID(s string) (int, int, error) {
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

// PlacementOf turns executor places into task -> host, leaving out system
// components (__acker, __system, ...): the cut rate counts topology tuples.
func PlacementOf(execs []ExecutorPlace) Placement {
	p := Placement{}
	for _, e := range execs {
		if strings.HasPrefix(e.Component, "__") {
			continue
		}
		for t := e.Start; t <= e.End; t++ {
			p[t] = e.Host
		}
	}
	return p
}
