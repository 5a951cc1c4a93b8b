package topologies

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// replaySmall is the hand-written capture testdata/replay-small.json: source x2 -> work x2 -(fields)->
// sink x1, 200 tuples/s, 300 µs of CPU per tuple in every component (the Java tests and the cluster test
// replay it too).
const replaySmall = "testdata/replay-small.json"

// writeVariant writes replaySmall changed by edit to a temporary file.
func writeVariant(t *testing.T, edit func(c *Captured)) string {
	t.Helper()
	c, err := ReadCapturedFile(replaySmall)
	if err != nil {
		t.Fatal(err)
	}
	edit(c)
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "captured.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeText(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "file.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Files a replay refuses, each with an error naming the problem and the fix.
func TestReadReplayRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		file func(t *testing.T) string
		want string
	}{
		{"missing file", func(t *testing.T) string { return filepath.Join(t.TempDir(), "absent.json") }, "not found: give the path of a file written by `stormlab capture`"},
		{"empty name", func(t *testing.T) string { return "" }, "replay:FILE"},
		{"plain graph file", func(t *testing.T) string {
			return writeText(t, `{"vertices":[{"id":0,"weight":1}],"edges":[]}`)
		}, "capture one with `stormlab capture`"},
		{"not JSON", func(t *testing.T) string { return writeText(t, "name: x\n") }, "capture one with `stormlab capture`"},
		{"no streams", func(t *testing.T) string {
			return writeText(t, `{"format":1,"components":[{"name":"s","kind":"spout","parallelism":1,"tasks":[1]}]}`)
		}, "no \"components\" and \"streams\""},
		{"format newer", func(t *testing.T) string { return writeVariant(t, func(c *Captured) { c.Format = 2 }) },
			"graph file format 2 is newer than this stormlab reads (1): upgrade stormlab"},
		{"parallelism 0", func(t *testing.T) string {
			return writeVariant(t, func(c *Captured) { c.Components[1].Parallelism = 0 })
		},
			`component 1 ("work") has parallelism 0: it must be >= 1`},
		{"rates 0 everywhere", func(t *testing.T) string {
			return writeVariant(t, func(c *Captured) {
				c.Components[0].EmitPerS = 0
				for i := range c.Streams {
					c.Streams[i].TuplesPerS = 0
				}
			})
		}, "every spout of the captured topology emitted 0 tuples/s (rates <= 0 everywhere)"},
		{"no spout", func(t *testing.T) string {
			return writeVariant(t, func(c *Captured) { c.Components[0].Kind = KindBolt })
		}, "has no spout"},
		{"stream into a spout", func(t *testing.T) string {
			return writeVariant(t, func(c *Captured) { c.Streams[0].From, c.Streams[0].To = "work", "source" })
		}, "ends at a spout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadReplay(c.file(t))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// What a replay changes is said as warnings; the fixture needs none.
func TestReplayWarnings(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(c *Captured)
		want []string // parts of the warnings, in order
	}{
		{"fixture", func(c *Captured) {}, nil},
		{"direct and custom", func(c *Captured) {
			c.Streams[0].Grouping = GroupDirect
			c.Streams[1].Grouping, c.Streams[1].Fields = GroupCustom, nil
		}, []string{`source -> work (default) has grouping "direct"`, `work -> sink (default) has grouping "custom"`}},
		{"idle spout", func(c *Captured) {
			c.Components = append(c.Components, CapturedComponent{Name: "quiet", Kind: KindSpout, Parallelism: 1, Tasks: []int{9}})
			c.Vertices = append(c.Vertices, Vertex{ID: 9, Weight: 0, Component: "quiet"})
			c.Placement[9] = "sup1:6700"
		}, []string{"spout quiet emitted 0 tuples/s"}},
		{"no CPU figures", func(c *Captured) {
			for i := range c.Components {
				c.Components[i].CPUMicrosPerTuple = 0
			}
		}, []string{"no CPU per tuple for any component"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, w, err := ReadReplay(writeVariant(t, c.edit))
			if err != nil {
				t.Fatal(err)
			}
			if len(w) != len(c.want) {
				t.Fatalf("warnings %q, want %d", w, len(c.want))
			}
			for i := range w {
				if !strings.Contains(w[i], c.want[i]) {
					t.Errorf("warning %d %q, want it to contain %q", i, w[i], c.want[i])
				}
			}
		})
	}
}

// The spouts' offered rate without emit_per_s is the sum of their streams' rates, each the rate the
// spout emits on it (as stormlab capture records it, whatever the grouping): 100 + 40.
func TestReplaySpoutRate(t *testing.T) {
	c := &Captured{
		Components: []CapturedComponent{{Name: "s", Kind: KindSpout, Parallelism: 1}, {Name: "a", Kind: KindBolt, Parallelism: 2}},
		Streams: []CapturedStream{
			{From: "s", To: "a", Stream: "default", Grouping: GroupShuffle, TuplesPerS: 100},
			{From: "s", To: "a", Stream: "bcast", Grouping: GroupAll, TuplesPerS: 40},
		},
	}
	if got := c.spoutRate(c.Components[0]); got != 140 {
		t.Errorf("spout rate %v, want 140", got)
	}
	c.Components[0].EmitPerS = 150
	if got := c.spoutRate(c.Components[0]); got != 150 {
		t.Errorf("spout rate with emit_per_s %v, want 150", got)
	}
}

// ReplayArgs hands the Java main the components, streams and placement, not the per-task graph.
func TestReplayArgs(t *testing.T) {
	c, _, err := ReadReplay(replaySmall)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ReplayArgs(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 2 || a[0] != "--graph-json" {
		t.Fatalf("args %q, want --graph-json JSON", a)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(a[1]), &doc); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(doc))
	if want := []string{"components", "format", "placement", "provenance", "streams"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	big := *c
	big.Components = slices.Repeat(c.Components, MaxReplayJSON/100)
	if _, err := ReplayArgs(&big); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("a huge capture: error %v, want the size named", err)
	}
}

func TestReplayName(t *testing.T) {
	for _, c := range []struct{ topology, want string }{
		{"wordcount", "stormlab-replay-wordcount"},
		{"a.b/c:d e", "stormlab-replay-a-b-c-d-e"},
		{"", "stormlab-replay"},
		{"...", "stormlab-replay"},
	} {
		if got := ReplayName(&Captured{Provenance: Provenance{Topology: c.topology}}); got != c.want {
			t.Errorf("ReplayName(%q) = %q, want %q", c.topology, got, c.want)
		}
	}
	if f, ok := ReplayFile("replay:x.json"); !ok || f != "x.json" {
		t.Errorf("ReplayFile: %q %v", f, ok)
	}
	if _, ok := ReplayFile("wordcount"); ok {
		t.Error("ReplayFile(wordcount) is no replay")
	}
}
