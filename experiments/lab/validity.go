package lab

import (
	"fmt"
	"strings"

	"github.com/stormlab/stormlab/harness"
)

// RunCount counts rows by their validity level (Row.Validity; a row never
// judged is valid). Tables, claims and notes read these counts, never a text.
type RunCount struct{ Valid, Suspect, Invalid int }

// CountRuns counts rows by level.
func CountRuns(rows []Row) RunCount {
	var c RunCount
	for _, row := range rows {
		switch row.Validity.Level {
		case harness.Invalid:
			c.Invalid++
		case harness.Suspect:
			c.Suspect++
		default:
			c.Valid++
		}
	}
	return c
}

// String is "" when every run is valid, else e.g. "1 invalid run left out, 2 suspect".
func (c RunCount) String() string {
	var parts []string
	if c.Invalid > 0 {
		parts = append(parts, fmt.Sprintf("%d invalid run(s) left out", c.Invalid))
	}
	if c.Suspect > 0 {
		parts = append(parts, fmt.Sprintf("%d suspect", c.Suspect))
	}
	return strings.Join(parts, ", ")
}

// whyLeftOut is why the row's figure for metric feeds no claim ("invalid:
// ...", "suspect: ..."), "" when it counts (harness.Validity.Counts).
func whyLeftOut(row Row, metric string) string {
	v := row.Validity
	switch {
	case v.Counts(metric):
		return ""
	case v.Level == harness.Invalid:
		return "invalid: " + v.Text(harness.Invalid)
	}
	return "suspect: " + v.Text(harness.Suspect)
}

// reasonsText is the row's reasons as one CSV cell: "kind: text" joined by
// "; " ("" when there are none; a valid run may list waived ones).
func reasonsText(v harness.Validity) string {
	out := make([]string, len(v.Reasons))
	for i, r := range v.Reasons {
		out[i] = string(r.Kind) + ": " + r.Text
	}
	return strings.Join(out, "; ")
}

// levelText is the row's level as raw.csv writes it ("valid" for a row
// never judged).
func levelText(v harness.Validity) string {
	if v.Level == "" {
		return string(harness.Valid)
	}
	return string(v.Level)
}
