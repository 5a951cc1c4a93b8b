package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Load reads back a run that Save kept in dir: run.json (written last, so
// its presence means the run finished and was saved whole) and every worker
// report of reports.jsonl, so a resumed experiment measures a kept run as it
// measured it the first time. Storm's raw readings (storm-stats.json) are
// not read: their comparison is already in run.json. A dir without run.json
// gives an error wrapping fs.ErrNotExist.
func Load(dir string) (*RunResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return nil, fmt.Errorf("load run: %w", err)
	}
	var r RunResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("load run %s: %w", filepath.Join(dir, "run.json"), err)
	}
	f, err := os.Open(filepath.Join(dir, "reports.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return &r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load run: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var rep protocol.WorkerReport
		if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
			return nil, fmt.Errorf("load run %s line %d: %w", filepath.Join(dir, "reports.jsonl"), line, err)
		}
		r.Reports = append(r.Reports, rep)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load run %s: %w", filepath.Join(dir, "reports.jsonl"), err)
	}
	return &r, nil
}
