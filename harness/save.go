package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stormlab/stormlab/harness/measure"
)

// Save keeps one run's raw material in dir: run.json (spec, cluster, image tags, Storm version,
// warm-up, measurement, time series, service decisions and fallbacks, the cross-check against Storm's
// statistics), reports.jsonl (every worker report as received, one JSON per line) and storm-stats.json
// (Storm's own executor statistics at the window's ends, with the comparison) and timeline.jsonl (see
// Timeline). Files are written to a
// temporary name and renamed, so an interrupted run never leaves a half-written file.
func Save(dir string, r *RunResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save run: %w", err)
	}
	write := func(name string, fill func(*json.Encoder) error) error {
		tmp, err := os.CreateTemp(dir, "."+name+"-*")
		if err != nil {
			return fmt.Errorf("save run: %w", err)
		}
		defer os.Remove(tmp.Name())
		if err := fill(json.NewEncoder(tmp)); err != nil {
			tmp.Close()
			return fmt.Errorf("save run %s: %w", name, err)
		}
		if err := tmp.Close(); err != nil {
			return fmt.Errorf("save run %s: %w", name, err)
		}
		// CreateTemp makes 0600 files; results are for sharing.
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			return fmt.Errorf("save run %s: %w", name, err)
		}
		if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("save run %s: %w", name, err)
		}
		return nil
	}
	if err := write("reports.jsonl", func(e *json.Encoder) error {
		for _, rep := range r.Reports {
			if err := e.Encode(rep); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := write("timeline.jsonl", func(e *json.Encoder) error {
		for _, ev := range r.Timeline() {
			if err := e.Encode(ev); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := write("storm-stats.json", func(e *json.Encoder) error {
		e.SetIndent("", "  ")
		return e.Encode(struct {
			Check StormCheck        `json:"check"`
			From  *measure.Snapshot `json:"from"`
			To    *measure.Snapshot `json:"to"`
		}{r.Storm, r.Storm.From, r.Storm.To})
	}); err != nil {
		return err
	}
	return write("run.json", func(e *json.Encoder) error {
		e.SetIndent("", "  ")
		return e.Encode(r)
	})
}
