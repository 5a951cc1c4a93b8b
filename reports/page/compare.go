package page

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Comparison is the JSON output of `stormlab compare --format json`; a
// nightly folder keeps it as compare.json, and the page shows it.
type Comparison struct {
	Base       string       `json:"base"`
	New        string       `json:"new"`
	Threshold  float64      `json:"threshold"`
	Alpha      float64      `json:"alpha"`
	Test       string       `json:"test"` // how significance was decided
	Compared   int          `json:"compared"`
	Changed    int          `json:"changed"`
	Regressed  int          `json:"regressed"`
	Rows       []CompareRow `json:"rows"`
	OnlyChange bool         `json:"only_changed"` // rows holds the changed ones only
	// Invalid are the runs left out of every statistic and of the gate;
	// Suspect the runs kept but marked (their rows' suspect counts).
	Invalid []RunNote `json:"invalid_runs,omitempty"`
	Suspect []RunNote `json:"suspect_runs,omitempty"`
}

// RunNote is one run that is not valid, as a results folder records it
// (run.json "validity", raw.csv's validity and reasons columns).
type RunNote struct {
	Side    string `json:"side,omitempty"` // "base" or "new" in a comparison
	Where   string `json:"where"`          // experiment/series/x=X rep R, or the run.json's path
	Level   string `json:"level"`          // suspect or invalid
	Reasons string `json:"reasons"`        // "kind: text; ..."
}

// CompareRow is one compared quantity. Numbers a side lacks are null.
type CompareRow struct {
	Experiment  string   `json:"experiment"`
	Series      string   `json:"series"`
	X           string   `json:"x"`
	Metric      string   `json:"metric"`
	NBase       int      `json:"n_base"`
	BaseMean    *float64 `json:"base_mean"`
	BaseCI95    *float64 `json:"base_ci95"`
	NNew        int      `json:"n_new"`
	NewMean     *float64 `json:"new_mean"`
	NewCI95     *float64 `json:"new_ci95"`
	Ratio       *float64 `json:"new_over_base"`
	P           *float64 `json:"p"`                      // two-sided, of the test named in the compare output (moderated t, or Welch where a metric has too few series to pool)
	PAdjusted   *float64 `json:"p_adjusted"`             // Holm-corrected over all tested rows
	SuspectBase int      `json:"suspect_base,omitempty"` // suspect runs among the base values
	SuspectNew  int      `json:"suspect_new,omitempty"`
	Verdict     string   `json:"verdict"`
	Changed     bool     `json:"changed"` // a significant change: improved, regressed or (for a metric that should not change) changed
	Regressed   bool     `json:"regressed"`
}

func loadCompare(path string) (*Comparison, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Comparison
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w (write it with `stormlab compare BASE NEW --format json`)", path, err)
	}
	return &c, nil
}
