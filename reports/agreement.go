package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// VerdictPair is one claim's verdict in two sets of results ("" when the
// claim is absent from one of them).
type VerdictPair struct {
	Experiment string `json:"experiment"`
	Statement  string `json:"statement"`
	Kind       string `json:"kind"`
	Base       string `json:"base"`
	New        string `json:"new"`
}

// Agree: the claim has the same verdict in both.
func (p VerdictPair) Agree() bool { return p.Base != "" && p.Base == p.New }

// Decided: the claim got the same decided verdict (holds / does not hold)
// in both, the part of an agreement that says something about the claim.
func (p VerdictPair) Decided() bool { return p.Agree() && p.Base != "inconclusive" }

// Agreement compares the verdicts of two sets of claims.json files, e.g. two
// independent runs at the same scale: how often the harness reaches the
// same verdict twice. A claim is keyed by experiment and statement.
type Agreement struct {
	Pairs []VerdictPair `json:"pairs"`
	// Compared counts the claims present in both; Agreed of them the same
	// verdict; Decided the same holds / does not hold; OneSide the claims
	// present in only one set (not compared).
	// BothDecided counts the claims decided (holds / does not hold) in both,
	// agreeing or not: the denominator of DecidedRate.
	Compared    int `json:"compared"`
	Agreed      int `json:"agreed"`
	Decided     int `json:"decided"`
	BothDecided int `json:"both_decided"`
	OneSide     int `json:"one_side"`
}

// DecidedRate is Decided / BothDecided: among the claims both runs
// decided, how often they decided alike (NaN when none was decided twice).
// The raw Rate counts inconclusive twice as agreement; this does not.
func (a Agreement) DecidedRate() float64 {
	if a.BothDecided == 0 {
		return math.NaN()
	}
	return float64(a.Decided) / float64(a.BothDecided)
}

// Kappa is Cohen's kappa of the compared claims' verdicts (three
// categories: holds, does not hold, inconclusive): the agreement beyond what
// the two runs' verdict frequencies give by chance, (po - pe) / (1 - pe)
// (Cohen, "A coefficient of agreement for nominal scales", 1960). NaN when
// nothing was compared or chance agreement is certain (pe = 1: both runs
// gave every claim one and the same verdict).
func (a Agreement) Kappa() float64 {
	nBase, nNew := map[string]float64{}, map[string]float64{}
	n := 0.0
	for _, p := range a.Pairs {
		if p.Base != "" && p.New != "" {
			nBase[p.Base]++
			nNew[p.New]++
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	pe := 0.0
	for v, c := range nBase {
		pe += c / n * nNew[v] / n
	}
	if pe >= 1 {
		return math.NaN()
	}
	po := float64(a.Agreed) / n
	return (po - pe) / (1 - pe)
}

// AgreementJSON is the JSON form of an Agreement with its rates (null when
// undefined).
type AgreementJSON struct {
	Agreement
	Rate        float64  `json:"rate"`
	DecidedRate *float64 `json:"decided_rate"`
	Kappa       *float64 `json:"kappa"`
	Summary     string   `json:"summary"`
}

// JSON returns a with its rates.
func (a Agreement) JSON() AgreementJSON {
	num := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	return AgreementJSON{a, a.Rate(), num(a.DecidedRate()), num(a.Kappa()), a.Summary()}
}

// Rate is Agreed / Compared (NaN-free: 0 when nothing was compared).
func (a Agreement) Rate() float64 {
	if a.Compared == 0 {
		return 0
	}
	return float64(a.Agreed) / float64(a.Compared)
}

// CompareVerdicts pairs the claims of base and new by experiment and
// statement. A statement repeated within one experiment keeps its first
// verdict (the experiments never repeat one).
func CompareVerdicts(base, new []ClaimsFile) Agreement {
	type key struct{ exp, stmt string }
	pairs := map[key]*VerdictPair{}
	add := func(files []ClaimsFile, isNew bool) {
		for _, f := range files {
			for _, c := range f.Claims {
				k := key{f.Experiment, c.Statement}
				p := pairs[k]
				if p == nil {
					p = &VerdictPair{Experiment: f.Experiment, Statement: c.Statement, Kind: c.Kind}
					pairs[k] = p
				}
				v := &p.Base
				if isNew {
					v = &p.New
				}
				if *v == "" {
					*v = c.Verdict
				}
			}
		}
	}
	add(base, false)
	add(new, true)
	var a Agreement
	for _, p := range pairs {
		a.Pairs = append(a.Pairs, *p)
		switch {
		case p.Base == "" || p.New == "":
			a.OneSide++
		default:
			a.Compared++
			if p.Agree() {
				a.Agreed++
			}
			if p.Decided() {
				a.Decided++
			}
			if decided(p.Base) && decided(p.New) {
				a.BothDecided++
			}
		}
	}
	slices.SortFunc(a.Pairs, func(x, y VerdictPair) int {
		return cmp.Or(cmp.Compare(x.Experiment, y.Experiment), cmp.Compare(x.Statement, y.Statement))
	})
	return a
}

// Table lists every claim with both verdicts.
func (a Agreement) Table(title string) *Table {
	t := &Table{Title: title, Columns: []string{"experiment", "claim", "kind", "base", "new", "same"}}
	for _, p := range a.Pairs {
		same := "no"
		switch {
		case p.Base == "" || p.New == "":
			same = "not compared"
		case p.Agree():
			same = "yes"
		}
		t.AddRow(Text(p.Experiment), Text(p.Statement), Text(p.Kind), Text(orDash(p.Base)), Text(orDash(p.New)), Text(same))
	}
	return t
}

// decided: holds or does not hold.
func decided(v string) bool { return v != "" && v != "inconclusive" }

// Summary is the one line under the table.
func (a Agreement) Summary() string {
	dr, k := "n/a (no claim decided in both)", "n/a"
	if r := a.DecidedRate(); !math.IsNaN(r) {
		dr = fmt.Sprintf("%d of %d (%.0f%%)", a.Decided, a.BothDecided, 100*r)
	}
	if x := a.Kappa(); !math.IsNaN(x) {
		k = fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%d of %d claims got the same verdict twice (%.0f%%); %d of them decided both times (holds / does not hold), %d inconclusive both times; %d in only one set, not compared; "+
		"decided alike when decided twice: %s; Cohen's kappa %s",
		a.Agreed, a.Compared, 100*a.Rate(), a.Decided, a.Agreed-a.Decided, a.OneSide, dr, k)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
