package reports

import (
	"math"
	"strings"
	"testing"
)

func claims(exp string, verdicts ...string) ClaimsFile {
	f := ClaimsFile{Experiment: exp, Scale: "quick"}
	for i := 0; i+1 < len(verdicts); i += 2 {
		f.Claims = append(f.Claims, ClaimRecord{Statement: verdicts[i], Kind: "paper", Verdict: verdicts[i+1]})
	}
	return f
}

// The counts are by hand from the verdicts listed: a and b are present in
// both and agree (a decided, b inconclusive), c disagrees, d is only in base
// and e only in new.
func TestCompareVerdicts(t *testing.T) {
	base := []ClaimsFile{
		claims("x", "a", "holds", "b", "inconclusive", "c", "holds"),
		claims("y", "d", "does not hold"),
	}
	nw := []ClaimsFile{
		claims("y", "e", "holds"),
		claims("x", "c", "inconclusive", "b", "inconclusive", "a", "holds"),
	}
	a := CompareVerdicts(base, nw)
	if a.Compared != 3 || a.Agreed != 2 || a.Decided != 1 || a.OneSide != 2 {
		t.Fatalf("compared %d agreed %d decided %d one side %d, want 3 2 1 2", a.Compared, a.Agreed, a.Decided, a.OneSide)
	}
	if got, want := a.Rate(), 2.0/3; got < want-1e-12 || got > want+1e-12 {
		t.Errorf("rate %v, want %v", got, want)
	}
	var order []string
	for _, p := range a.Pairs {
		order = append(order, p.Experiment+"/"+p.Statement)
	}
	if got := strings.Join(order, " "); got != "x/a x/b x/c y/d y/e" {
		t.Errorf("pairs in order %q, want sorted by experiment then statement", got)
	}
	var out strings.Builder
	if err := a.Table("t").WriteMarkdown(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| x | c | paper | holds | inconclusive | no |", "| y | e | paper | - | holds | not compared |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if s := a.Summary(); !strings.HasPrefix(s, "2 of 3 claims got the same verdict twice (67%); 1 of them decided") {
		t.Errorf("summary %q", s)
	}
}

// A statement is keyed with its experiment: the same statement in two
// experiments is two claims.
func TestCompareVerdictsKeyedByExperiment(t *testing.T) {
	a := CompareVerdicts([]ClaimsFile{claims("x", "s", "holds"), claims("y", "s", "holds")},
		[]ClaimsFile{claims("x", "s", "holds")})
	if a.Compared != 1 || a.OneSide != 1 {
		t.Errorf("compared %d one side %d, want 1 and 1", a.Compared, a.OneSide)
	}
	if e := CompareVerdicts(nil, nil); e.Rate() != 0 || e.Compared != 0 {
		t.Errorf("empty: %+v", e)
	}
}

func TestReadClaimsFile(t *testing.T) {
	f, err := ReadClaimsFile(strings.NewReader(`{"experiment":"x","profile":"quick","claims":[{"statement":"s","verdict":"holds"}]}`))
	if err != nil || f.Experiment != "x" || len(f.Claims) != 1 || f.Claims[0].Verdict != "holds" {
		t.Fatalf("%+v %v", f, err)
	}
	for _, bad := range []string{`{}`, `{"experiment":`, `[1]`} {
		if _, err := ReadClaimsFile(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// pairs builds an Agreement from parallel verdict lists (one experiment).
func pairs(base, nw []string) Agreement {
	var b, n []string
	for i := range base {
		stmt := string(rune('a' + i))
		b = append(b, stmt, base[i])
		n = append(n, stmt, nw[i])
	}
	return CompareVerdicts([]ClaimsFile{claims("x", b...)}, []ClaimsFile{claims("x", n...)})
}

// Cohen's kappa against two references:
//   - the worked example of Wikipedia's "Cohen's kappa" article (two raters,
//     50 items: 20 yes/yes, 15 no/no, 5 yes/no, 10 no/yes): po = 0.7,
//     pe = 0.5, kappa = 0.4 (here "holds" for yes, "does not hold" for no);
//   - scikit-learn 1.9.1, sklearn.metrics.cohen_kappa_score(a, b) on the
//     ten three-category verdicts below: 0.5454545454545454.
func TestAgreementKappa(t *testing.T) {
	var wb, wn []string
	for _, c := range []struct {
		b, n  string
		count int
	}{{"holds", "holds", 20}, {"does not hold", "does not hold", 15}, {"holds", "does not hold", 5}, {"does not hold", "holds", 10}} {
		for i := 0; i < c.count; i++ {
			wb, wn = append(wb, c.b), append(wn, c.n)
		}
	}
	h, d, i := "holds", "does not hold", "inconclusive"
	for _, c := range []struct {
		name        string
		a           Agreement
		kappa       float64
		decided     float64 // DecidedRate
		bothDecided int
	}{
		{"Wikipedia 2x2", pairs(wb, wn), 0.4, 35.0 / 50, 50},
		{"sklearn 3 categories", pairs(
			[]string{h, h, d, i, h, d, i, i, h, d},
			[]string{h, i, d, i, h, h, i, d, h, d}), 0.5454545454545454, 5.0 / 6, 6},
	} {
		if k := c.a.Kappa(); math.Abs(k-c.kappa) > 1e-12 {
			t.Errorf("%s: kappa %.16g, want %.16g", c.name, k, c.kappa)
		}
		if r := c.a.DecidedRate(); math.Abs(r-c.decided) > 1e-12 || c.a.BothDecided != c.bothDecided {
			t.Errorf("%s: decided rate %v of %d, want %v of %d", c.name, r, c.a.BothDecided, c.decided, c.bothDecided)
		}
	}
	// Undefined: every verdict inconclusive in both runs (pe = 1), and no
	// claim decided twice.
	all := pairs([]string{i, i, i}, []string{i, i, i})
	if !math.IsNaN(all.Kappa()) || !math.IsNaN(all.DecidedRate()) || all.Rate() != 1 {
		t.Errorf("all inconclusive: kappa %v decided rate %v rate %v, want NaN NaN 1", all.Kappa(), all.DecidedRate(), all.Rate())
	}
	if s := all.Summary(); !strings.Contains(s, "decided alike when decided twice: n/a (no claim decided in both); Cohen's kappa n/a") {
		t.Errorf("summary %q", s)
	}
}
