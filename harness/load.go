package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
)

// Load reads back a run that Save kept in dir: run.json (written last, so its presence means the run finished
// and was saved whole) and every worker report of reports.jsonl, so a resumed experiment measures a kept run
// as it measured it the first time. The comparison with Storm's statistics (Storm, and so Validity) is made
// again from Storm's raw readings in storm-stats.json, so kept runs are judged by the same rule as new ones
// (measure.CrossCheck). A dir without run.json gives an error wrapping fs.ErrNotExist.
func Load(dir string) (*RunResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return nil, fmt.Errorf("load run: %w", err)
	}
	var r RunResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("load run %s: %w", filepath.Join(dir, "run.json"), err)
	}
	if err := readReports(dir, &r); err != nil {
		return nil, err
	}
	if err := recheck(dir, &r); err != nil {
		return nil, err
	}
	r.Diagnosis = diagnosis(&r)
	r.Validity = judge(&r) // by today's rules, also for runs saved by earlier versions
	return &r, nil
}

// recheck compares r with Storm's readings kept in dir/storm-stats.json
// again; a run kept without both readings keeps its comparison.
func recheck(dir string, r *RunResult) error {
	b, err := os.ReadFile(filepath.Join(dir, "storm-stats.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load run: %w", err)
	}
	var raw struct{ From, To *measure.Snapshot }
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("load run %s: %w", filepath.Join(dir, "storm-stats.json"), err)
	}
	if raw.From == nil || raw.To == nil {
		return nil
	}
	r.Storm = measure.MovedInDataset(measure.CrossCheck(raw.From, raw.To, r.Measurement, r.Reports), r.Decisions, r.MeasureTo)
	return nil
}

// readReports appends every worker report of dir/reports.jsonl (if any) to r.Reports.
func readReports(dir string, r *RunResult) error {
	f, err := os.Open(filepath.Join(dir, "reports.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load run: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var rep protocol.WorkerReport
		if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
			return fmt.Errorf("load run %s line %d: %w", filepath.Join(dir, "reports.jsonl"), line, err)
		}
		r.Reports = append(r.Reports, rep)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("load run %s: %w", filepath.Join(dir, "reports.jsonl"), err)
	}
	return nil
}
