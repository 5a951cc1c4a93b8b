package reports

import (
	"encoding/json"
	"errors"
	"io"
)

// ClaimRecord is one claim in claims.json: what the experiments write and
// the HTML page reads. The shape is a contract between the two; it is
// defined once, here, so they cannot drift apart.
type ClaimRecord struct {
	Statement   string   `json:"statement"`
	Source      string   `json:"source"`
	Kind        string   `json:"kind"`
	Rule        string   `json:"rule"`
	Verdict     string   `json:"verdict"`
	Reason      string   `json:"reason"`
	Effect      *float64 `json:"effect"`
	EffectLabel string   `json:"effect_label"`
	CILow       *float64 `json:"ci_low"`
	CIHigh      *float64 `json:"ci_high"`
	N           []int    `json:"n"`
	P           *float64 `json:"p"`
	Forced      string   `json:"forced"`
	Evidence    string   `json:"evidence"`
	// Why says which run diagnoses differ between the compared series (cluster claims; "" otherwise).
	Why string `json:"why,omitempty"`
}

// ClaimsFile is claims.json.
type ClaimsFile struct {
	Experiment string `json:"experiment"`
	Scale      string `json:"profile"` // the key keeps the scale's former name, so earlier results still read
	// Simulated, when set, says the claims were judged on a simulated cluster: which, its cost model
	// and its validation. Such verdicts are the model's, never pooled with real runs'.
	Simulated string `json:"simulated,omitempty"`
	// SimulatedStanding is the simulated cluster's standing: "not validated", "validated", or
	// "extrapolated" (larger than any validated cluster).
	SimulatedStanding string        `json:"simulated_standing,omitempty"`
	Claims            []ClaimRecord `json:"claims"`
}

// Write writes claims.json (indented).
func (f ClaimsFile) Write(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(f)
}

// ReadClaimsFile reads one claims.json.
func ReadClaimsFile(r io.Reader) (ClaimsFile, error) {
	var f ClaimsFile
	d := json.NewDecoder(r)
	if err := d.Decode(&f); err != nil {
		return ClaimsFile{}, err
	}
	if f.Experiment == "" {
		return ClaimsFile{}, errors.New(`no "experiment" field: not a claims.json an experiment wrote`)
	}
	return f, nil
}
