package reports

import (
	"cmp"
	"fmt"
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
// independent runs of the same profile: how often the harness reaches the
// same verdict twice. A claim is keyed by experiment and statement.
type Agreement struct {
	Pairs []VerdictPair `json:"pairs"`
	// Compared counts the claims present in both; Agreed of them the same
	// verdict; Decided the same holds / does not hold; OneSide the claims
	// present in only one set (not compared).
	Compared int `json:"compared"`
	Agreed   int `json:"agreed"`
	Decided  int `json:"decided"`
	OneSide  int `json:"one_side"`
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

// Summary is the one line under the table.
func (a Agreement) Summary() string {
	return fmt.Sprintf("%d of %d claims got the same verdict twice (%.0f%%); %d of them decided both times (holds / does not hold), %d inconclusive both times; %d in only one set, not compared",
		a.Agreed, a.Compared, 100*a.Rate(), a.Decided, a.Agreed-a.Decided, a.OneSide)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
