package schedulers

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Options configures a scheduler: one typed configuration for every
// scheduler, the same in `stormlab partition`, in experiments and on a
// cluster run (the scheduler service takes it as JSON, see ParseOptions).
// Each scheduler reads the fields it needs and documents them; zero values
// mean the paper's defaults, and mean the same thing everywhere (Mul = 0 is
// "no balance adjustment" wherever K-PART runs).
type Options struct {
	Seed           uint64  `json:"seed,omitempty"`            // random seed (K-PART start vertices, ...)
	Mul            int     `json:"mul,omitempty"`             // K-PART balance-adjustment multiplier: Mul·|V| moves; 0 = none
	Alpha          float64 `json:"alpha,omitempty"`           // K-PART slack over the expected subset weight
	WeightVertices bool    `json:"weight_vertices,omitempty"` // M-PART: pass vertex weights to METIS (the paper uses none)
	Theta          float64 `json:"theta,omitempty"`           // deadline and adaptive schedulers' load threshold in [0,1] (0 means 0.8)
	Consolidation  float64 `json:"consolidation,omitempty"`   // T-Storm consolidation factor gamma >= 1 (0 means 1: use all workers)
	// DeadlineWeight is alpha of eq. 1 of the deadline-aware scheduler
	// (Dynamic Task Scheduling Scheme for Real-Time Stream Data in Storm):
	// how much the deadline counts in a task's priority. 0 means 1.
	DeadlineWeight float64 `json:"deadline_weight,omitempty"`
	// BandwidthBytes is the inter-node link bandwidth (bytes/s) that turns
	// eq. 5's transfer load (tuples/s x bytes) of the deadline-aware
	// scheduler into a fraction of the link. 0 means 125e6 (1 Gbit/s).
	BandwidthBytes float64 `json:"bandwidth_bytes,omitempty"`
	// Improvement is the re-plan trigger of the online (T-PART) and tstorm
	// dynamic schedulers: a new placement is applied only when its
	// inter-node traffic is lower than the current one's by at least this
	// fraction of the current one. 0 means 0.1 (10 %); it must be in [0,1).
	Improvement float64 `json:"improvement,omitempty"`
	// Epsilon is the balance bound of exact and mlfm: the max deviation
	// rate of part weights (eq. 8 of the K-PART paper). 0 means
	// DefaultEpsilon (0.03).
	Epsilon float64 `json:"epsilon,omitempty"`
}

// ParseOptions reads Options from JSON (the scheduler service's --options
// and `stormlab partition --options`). Unknown fields are an error naming
// the field, so a misspelt option never silently means its default. An
// empty string is the zero Options.
func ParseOptions(js string) (Options, error) {
	var o Options
	if strings.TrimSpace(js) == "" {
		return o, nil
	}
	dec := json.NewDecoder(strings.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return Options{}, fmt.Errorf("scheduler options %q: %w (give a JSON object with fields %s)", js, err, strings.Join(optionFields(), ", "))
	}
	if dec.More() {
		return Options{}, fmt.Errorf("scheduler options %q: more than one JSON value: give one object", js)
	}
	return o, nil
}

// JSON is o as ParseOptions reads it (fields at their zero value left
// out). It fails only for a non-finite number, which no scheduler accepts.
func (o Options) JSON() (string, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return "", fmt.Errorf("scheduler options: %w (every number must be finite)", err)
	}
	return string(b), nil
}

// optionFields lists the JSON names of Options, for error messages.
func optionFields() []string {
	t := reflect.TypeOf(Options{})
	out := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// Info describes one scheduler of the explicit list.
type Info struct {
	Name        string
	Description string // one line
	Source      string // paper or system it comes from
	New         func(Options) (Scheduler, error)
}

// List returns every scheduler, sorted by name. It is built on each call so
// no caller can change the list.
func List() []Info {
	l := []Info{
		// Each scheduler file contributes one entry, e.g. evenInfo, kpartInfo.
		evenInfo, kpartInfo, kpartDynamicInfo, mpartInfo, onlineInfo, tstormInfo,
		spdInfo, spdSharesInfo, rstormInfo, deadlineInfo, adaptiveInfo,
		exactInfo, mlfmInfo,
	}
	sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	return l
}

// Names lists the scheduler names, sorted.
func Names() []string {
	var n []string
	for _, i := range List() {
		n = append(n, i.Name)
	}
	return n
}

// Lookup finds a scheduler's Info by name.
func Lookup(name string) (Info, error) {
	for _, i := range List() {
		if i.Name == name {
			return i, nil
		}
	}
	return Info{}, fmt.Errorf("unknown scheduler %q: choose one of %s (see `stormlab schedulers`)", name, strings.Join(Names(), ", "))
}

// New builds the named scheduler.
func New(name string, o Options) (Scheduler, error) {
	i, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return i.New(o)
}

// IsDynamic says whether the named scheduler reschedules placed topologies (implements Dynamic);
// false for names it does not know (Storm's native schedulers among them).
func IsDynamic(name string) bool {
	s, err := New(name, Options{})
	if err != nil {
		return false
	}
	_, ok := s.(Dynamic)
	return ok
}

// defaultTheta is the load threshold of the deadline and adaptive
// schedulers when Options.Theta is 0: the 80% of Choi et al. 2021 (Fig. 3).
const defaultTheta = 0.8

// checkTheta rejects a load threshold outside [0,1] (NaN included) for the
// scheduler called name.
func checkTheta(name string, theta float64) error {
	if !(theta >= 0 && theta <= 1) {
		return fmt.Errorf("%s: theta = %v: need 0 < theta <= 1 (0 means %v)", name, theta, defaultTheta)
	}
	return nil
}

// thetaOrDefault returns theta, or defaultTheta when it is not positive.
func thetaOrDefault(theta float64) float64 {
	if theta <= 0 {
		return defaultTheta
	}
	return theta
}
