package stormui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// This file reads what a capture of a running topology needs beyond placement: the components and
// their subscriptions (the topology's visualization data) and each component's page with Storm's
// all-time counters per executor, per input stream and per output stream. Both are served by Storm's
// UI (storm-webapp, UIHelpers.getVisualizationData and getComponentPage) and by the stormlab UI in
// the same shape.

// Input is one subscription: component To reads stream Stream of component From with a grouping.
type Input struct {
	From   string
	To     string
	Stream string
	// Grouping is Storm's name of the Thrift grouping as the UI gives it: fields, shuffle, all, none,
	// direct, custom_object, custom_serialized or local_or_shuffle. Storm stores a global grouping as
	// a fields grouping on no fields, so Storm's UI shows it as "fields".
	Grouping string
	// Fields are the grouping fields; FieldsKnown says whether the UI gave them (the stormlab UI does,
	// Storm's does not), and with them a fields grouping on no fields is a global grouping.
	Fields      []string
	FieldsKnown bool
}

// VisComponent is one component of the visualization data: "spout" or "bolt", and its inputs.
type VisComponent struct {
	ID     string
	Type   string
	Inputs []Input
}

// Visualization returns the topology's components (Storm's own "__" ones left out) sorted by id,
// each with its subscriptions from other non-system components (GET
// /api/v1/topology/<id>/visualization).
func (c *Client) Visualization(ctx context.Context, id string) ([]VisComponent, error) {
	var raw map[string]struct {
		Type   string `json:":type"`
		Inputs []struct {
			Component string    `json:":component"`
			Stream    string    `json:":stream"`
			Grouping  string    `json:":grouping"`
			Fields    *[]string `json:":fields"`
		} `json:":inputs"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/topology/"+url.PathEscape(id)+"/visualization", &raw); err != nil {
		return nil, err
	}
	var out []VisComponent
	for name, v := range raw {
		if isSystem(name) {
			continue
		}
		vc := VisComponent{ID: name, Type: v.Type}
		for _, in := range v.Inputs {
			if isSystem(in.Component) || isSystem(in.Stream) {
				continue
			}
			i := Input{From: in.Component, To: name, Stream: in.Stream, Grouping: in.Grouping}
			if in.Fields != nil {
				i.Fields, i.FieldsKnown = *in.Fields, true
			}
			vc.Inputs = append(vc.Inputs, i)
		}
		slices.SortFunc(vc.Inputs, func(a, b Input) int {
			return strings.Compare(a.From+"\x00"+a.Stream, b.From+"\x00"+b.Stream)
		})
		out = append(out, vc)
	}
	slices.SortFunc(out, func(a, b VisComponent) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// isSystem reports Storm's own components and streams (__acker, __system, __ack_ack, ...).
func isSystem(name string) bool { return strings.HasPrefix(name, "__") }

// Num is a number the UI writes either as a JSON number or as a string (Storm UI formats latencies
// and capacities with StatsUtil.floatStr, as strings); "" and null are 0.
type Num float64

// UnmarshalJSON reads a number or a string holding one.
func (n *Num) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*n = 0
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s = strings.TrimSpace(s); s == "" {
			*n = 0
			return nil
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*n = Num(v)
	return nil
}

// ExecutorStat is one executor of a component page: its tasks, worker and all-time counters.
type ExecutorStat struct {
	TaskStart, TaskEnd int
	Host               string
	Port               int
	UptimeSeconds      int
	Emitted            float64
	Executed           float64 // bolts
	ExecuteLatencyMs   float64 // bolts: mean time in execute per tuple
}

// InputStat is a bolt's all-time count of tuples executed from one input stream.
type InputStat struct {
	Component, Stream string
	Executed          float64
}

// OutputStat is a component's all-time count of tuples emitted on one stream.
type OutputStat struct {
	Stream               string
	Emitted, Transferred float64
}

// ComponentPage is /api/v1/topology/<id>/component/<component> (all-time window): its type, its
// executors with placement and counters, and its per-stream counters (Storm's "__" streams left
// out). Storm samples its counters (topology.stats.sample.rate) and scales them up, so they are
// estimates in steps of 1/rate.
type ComponentPage struct {
	ID        string
	Type      string // "spout" or "bolt"
	Executors []ExecutorStat
	Inputs    []InputStat
	Outputs   []OutputStat
}

// Component reads one component's page.
func (c *Client) Component(ctx context.Context, id, component string) (*ComponentPage, error) {
	var raw struct {
		ComponentType string `json:"componentType"`
		ExecutorStats []struct {
			ID             string `json:"id"`
			Host           string `json:"host"`
			Port           int    `json:"port"`
			UptimeSeconds  int    `json:"uptimeSeconds"`
			Emitted        Num    `json:"emitted"`
			Executed       Num    `json:"executed"`
			ExecuteLatency Num    `json:"executeLatency"`
		} `json:"executorStats"`
		InputStats []struct {
			Component string `json:"component"`
			Stream    string `json:"stream"`
			Executed  Num    `json:"executed"`
		} `json:"inputStats"`
		OutputStats []struct {
			Stream      string `json:"stream"`
			Emitted     Num    `json:"emitted"`
			Transferred Num    `json:"transferred"`
		} `json:"outputStats"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v1/topology/"+url.PathEscape(id)+"/component/"+url.PathEscape(component), &raw); err != nil {
		return nil, err
	}
	p := &ComponentPage{ID: component, Type: raw.ComponentType}
	for _, e := range raw.ExecutorStats {
		start, end, err := ParseExecutorID(e.ID)
		if err != nil {
			return nil, fmt.Errorf("component %s: %w", component, err)
		}
		p.Executors = append(p.Executors, ExecutorStat{TaskStart: start, TaskEnd: end, Host: e.Host, Port: e.Port,
			UptimeSeconds: e.UptimeSeconds, Emitted: float64(e.Emitted), Executed: float64(e.Executed), ExecuteLatencyMs: float64(e.ExecuteLatency)})
	}
	slices.SortFunc(p.Executors, func(a, b ExecutorStat) int { return a.TaskStart - b.TaskStart })
	for _, in := range raw.InputStats {
		if !isSystem(in.Component) && !isSystem(in.Stream) {
			p.Inputs = append(p.Inputs, InputStat{Component: in.Component, Stream: in.Stream, Executed: float64(in.Executed)})
		}
	}
	for _, o := range raw.OutputStats {
		if !isSystem(o.Stream) {
			p.Outputs = append(p.Outputs, OutputStat{Stream: o.Stream, Emitted: float64(o.Emitted), Transferred: float64(o.Transferred)})
		}
	}
	return p, nil
}
