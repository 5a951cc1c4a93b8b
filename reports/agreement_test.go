package reports

import (
	"strings"
	"testing"
)

func claims(exp string, verdicts ...string) ClaimsFile {
	f := ClaimsFile{Experiment: exp, Profile: "quick"}
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
