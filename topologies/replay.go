package topologies

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// This file checks a captured topology (see Captured) for a live replay by
// the Java main ReplayClass and builds that main's arguments. What the
// replay does with each figure is documented on the Java side
// (storm/.../ReplayTopology.java, ReplayGraph.java); the rules that decide
// whether a file can be replayed at all are mirrored here so that bad input
// is refused before anything starts.

// ReplayPrefix marks a replayed topology in `stormlab run --topology`:
// "replay:FILE" with FILE a captured topology.
const ReplayPrefix = "replay:"

// ReplayClass is the Java main that replays a captured topology.
const ReplayClass = "org.stormlab.topologies.ReplayTopology"

// MaxReplayJSON bounds the captured JSON passed to ReplayClass as one
// argument (--graph-json): Linux refuses a single argument of 128 KiB or
// more (MAX_ARG_STRLEN). Only components, streams and placement are passed,
// so a topology must have thousands of tasks to reach it.
const MaxReplayJSON = 120 << 10

// ReplayFile returns FILE of a "replay:FILE" topology name and whether the
// name is one.
func ReplayFile(topology string) (string, bool) {
	f, ok := strings.CutPrefix(topology, ReplayPrefix)
	return f, ok
}

// ReadReplay reads a captured topology for a replay: the file must exist,
// be a captured topology (ReadCaptured's checks) and offer load. It returns
// the capture and the warnings a user should see (what the replay cannot
// rebuild as captured).
func ReadReplay(file string) (*Captured, []string, error) {
	if file == "" {
		return nil, nil, errors.New("--topology replay: needs a file: replay:FILE, FILE written by `stormlab capture`")
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("captured topology %s not found: give the path of a file written by `stormlab capture`", file)
	} else if err != nil {
		return nil, nil, fmt.Errorf("read captured topology %s: %w", file, err)
	}
	if err := looksCaptured(data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	c, err := ReadCapturedFile(file)
	if err != nil {
		return nil, nil, err
	}
	if err := checkReplayLoad(c); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	return c, ReplayWarnings(c), nil
}

// looksCaptured refuses a file that is no captured topology at all (a plain
// graph file, another JSON) with the way to get one; a newer format is
// refused by ReadCaptured with its own message.
func looksCaptured(data []byte) error {
	var f struct {
		Format     int               `json:"format"`
		Components []json.RawMessage `json:"components"`
		Streams    []json.RawMessage `json:"streams"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("not a captured topology (not JSON: %v): capture one with `stormlab capture`", err)
	}
	if f.Format > CapturedFormat {
		return nil
	}
	if len(f.Components) == 0 || f.Streams == nil {
		return errors.New("not a captured topology (no \"components\" and \"streams\"; a plain graph file?): capture one with `stormlab capture`")
	}
	return nil
}

// spoutRate is the tuples/s a spout offers in the replay: its emit_per_s, or
// when that is 0 the sum of its output streams' rates (ReplayGraph.spoutRate
// in Java).
func (c *Captured) spoutRate(k CapturedComponent) float64 {
	if k.EmitPerS > 0 {
		return k.EmitPerS
	}
	out := map[string]float64{}
	for _, s := range c.Streams {
		if s.From != k.Name {
			continue
		}
		out[s.Stream] = max(out[s.Stream], s.TuplesPerS) // a stream's rate is what its source emits on it
	}
	sum := 0.0
	for _, r := range out {
		sum += r
	}
	return sum
}

// OfferedRate is the tuples/s the capture's spouts offer together in a replay at its captured rates.
func (c *Captured) OfferedRate() float64 {
	total := 0.0
	for _, k := range c.Components {
		if k.Kind == KindSpout {
			total += c.spoutRate(k)
		}
	}
	return total
}

// checkReplayLoad refuses a capture without a spout, with a stream into a
// spout, or whose spouts all emitted nothing.
func checkReplayLoad(c *Captured) error {
	total, spouts := 0.0, 0
	for _, k := range c.Components {
		if k.Kind == KindSpout {
			spouts++
			total += c.spoutRate(k)
		}
	}
	for _, s := range c.Streams {
		if c.Component(s.To).Kind == KindSpout {
			return fmt.Errorf("stream %s -> %s ends at a spout: only bolts subscribe to streams", s.From, s.To)
		}
	}
	switch {
	case spouts == 0:
		return errors.New("the captured topology has no spout: a replay needs one to offer load")
	case !(total > 0):
		return errors.New("every spout of the captured topology emitted 0 tuples/s (rates <= 0 everywhere): nothing to replay; capture the topology again while it is under load")
	}
	return nil
}

// ReplayWarnings says what a replay of c changes: direct and custom
// groupings are replayed as shuffle, idle spouts stay idle, and a capture
// without CPU figures (Storm's UI as source) spends only Storm's own CPU.
func ReplayWarnings(c *Captured) []string {
	var w []string
	for _, s := range c.Streams {
		if s.Grouping == GroupDirect || s.Grouping == GroupCustom {
			w = append(w, fmt.Sprintf("stream %s -> %s (%s) has grouping %q, which the replay cannot rebuild: it is replayed as shuffle", s.From, s.To, s.Stream, s.Grouping))
		}
	}
	cpu := false
	for _, k := range c.Components {
		if k.Kind == KindSpout && !(c.spoutRate(k) > 0) {
			w = append(w, fmt.Sprintf("spout %s emitted 0 tuples/s in the capture: it stays idle in the replay", k.Name))
		}
		cpu = cpu || k.CPUMicrosPerTuple > 0
	}
	if !cpu {
		w = append(w, "the capture has no CPU per tuple for any component (source "+c.Provenance.Source+"): the replay spends only Storm's own CPU")
	}
	return w
}

// replayDoc is what ReplayClass reads of a captured file; vertices and
// edges (the bulk of a big capture) are left out.
type replayDoc struct {
	Format     int                 `json:"format"`
	Provenance Provenance          `json:"provenance"`
	Components []CapturedComponent `json:"components"`
	Streams    []CapturedStream    `json:"streams"`
	Placement  Placement           `json:"placement,omitempty"`
}

// ReplayArgs are the arguments of ReplayClass that hand it c: the captured
// JSON itself (--graph-json), since the submitter may run where the file is
// not (inside the Nimbus container).
func ReplayArgs(c *Captured) ([]string, error) {
	data, err := json.Marshal(replayDoc{Format: c.Format, Provenance: c.Provenance, Components: c.Components, Streams: c.Streams, Placement: c.Placement})
	if err != nil {
		return nil, fmt.Errorf("encode the captured topology for the replay: %w", err)
	}
	if len(data) > MaxReplayJSON {
		return nil, fmt.Errorf("the captured topology's components and streams take %d bytes, more than the %d a replay can pass to its submitter", len(data), MaxReplayJSON)
	}
	return []string{"--graph-json", string(data)}, nil
}

// stormNameBad matches what a Storm topology name cannot hold.
var stormNameBad = regexp.MustCompile(`[/.:\\\s]+`)

// ReplayName is the Storm topology name of c's replay: "stormlab-replay-"
// and the captured topology's name, made a valid Storm name.
func ReplayName(c *Captured) string {
	n := strings.Trim(stormNameBad.ReplaceAllString(c.Provenance.Topology, "-"), "-")
	if n == "" {
		return "stormlab-replay"
	}
	return "stormlab-replay-" + n
}
