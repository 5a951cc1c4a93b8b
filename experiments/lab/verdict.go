package lab

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/stormlab/stormlab/reports"
)

// ClaimKind separates the papers' statements from sanity checks and from
// this project's own claims: a sanity check holds by construction or by
// theory when the code is right (k = |V| gives cut rate 1; a lower bound is
// below every allocation); a project claim is a hypothesis or question of
// this project, or a stated property of the harness, that no paper makes.
// Both are judged and reported like a paper's claim, but not counted as one.
type ClaimKind string

// Claim kinds.
const (
	PaperClaim   ClaimKind = "paper"
	SanityCheck  ClaimKind = "sanity"
	ProjectClaim ClaimKind = "project"
)

// Claim is one statement checked on our numbers. A Spec's Claims function
// fills in Statement, Source, Kind, Forced, Evidence and the Checks
// (reports.DifferenceCheck or PairedDifferenceCheck when both sides are
// measured on the same units, TrendCheck, MeanCheck, RatioCheck,
// EquivalenceCheck for a claim of no or small effect, ExactCheck);
// the runner then judges every claim of the experiment together
// (JudgeClaims: Holm's correction over all difference checks, then
// reports.Merge per claim). The rules are those of reports/inference.go.
type Claim struct {
	Statement string
	Source    string // Cite(paper, figure)
	Kind      ClaimKind
	// Forced names how the setup forces the claim's outcome (e.g. an
	// emulated delay added to every inter-node message), "" if not forced.
	Forced   string
	Evidence string // the measured numbers, for a reader
	Checks   []reports.Check
	// Screen is what the cluster runs the claim rests on allow
	// (ScreenRuns): suspect runs left out, and reasons no verdict may be
	// drawn. Zero for the graph experiments.
	Screen Screen

	Verdict reports.Verdict // set by JudgeClaims
	Reason  string
}

// Holds reports a "holds" verdict.
func (c Claim) Holds() bool { return c.Verdict == reports.Holds }

// Decider is the check that decided the merged verdict (the first
// refuting or undecided check, else the weakest holding one); a zero
// Check with NaN numbers when there is none.
func (c Claim) Decider() reports.Check {
	_, i := reports.Merge(c.Checks)
	if i < 0 {
		return reports.Missing("", "no checks")
	}
	return c.Checks[i]
}

// Rule is the decision rule of the claim's checks, without repeats.
func (c Claim) Rule() string {
	var rules []string
	for _, ch := range c.Checks {
		if !ContainsStr(rules, ch.Rule) {
			rules = append(rules, ch.Rule)
		}
	}
	return strings.Join(rules, "; ")
}

func ContainsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// noUnits matches a figure of the evidence computed over no unit (a series with no valid run is a
// NaN mean, by design: see experiments' mean), with its sign and unit, which the reader gets as "n/a".
var noUnits = regexp.MustCompile(`[+-]?\bNaN\b( ?(%|pt|ms|s|tuples/s)\b|%)?`)

// JudgeClaims decides every claim of one experiment. noVerdict, when not
// empty, makes every claim inconclusive with that reason (the ci profile
// runs too few repetitions for a verdict).
func JudgeClaims(cs []Claim, noVerdict string) {
	var all []*reports.Check
	for i := range cs {
		for j := range cs[i].Checks {
			all = append(all, &cs[i].Checks[j])
		}
	}
	reports.Judge(all)
	for i := range cs {
		c := &cs[i]
		c.Evidence = noUnits.ReplaceAllString(c.Evidence, "n/a")
		v, at := reports.Merge(c.Checks)
		c.Verdict = v
		switch {
		case at < 0:
			c.Reason = "no check could be made (missing data)"
		default:
			d := c.Checks[at]
			c.Reason = d.Reason
			if d.Label != "" && len(c.Checks) > 1 {
				c.Reason = d.Label + ": " + d.Reason
			}
		}
		switch {
		case noVerdict != "":
			c.Verdict, c.Reason = reports.Inconclusive, noVerdict+" (measured: "+c.Reason+")"
		case len(c.Screen.Blockers) > 0:
			c.Verdict, c.Reason = reports.Inconclusive, "invalid input: "+strings.Join(c.Screen.Blockers, "; ")+" (measured: "+c.Reason+")"
		}
	}
}

// Line is the one-line summary of a judged claim: verdict, statement,
// forced label, rule, effect with its 95% CI, n and p.
func (c Claim) Line() string {
	d := c.Decider()
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s", c.Verdict, c.Statement)
	switch c.Kind {
	case SanityCheck:
		b.WriteString(" (sanity check, not a paper claim)")
	case ProjectClaim:
		b.WriteString(" (this project's claim, not a paper's)")
	}
	if c.Forced != "" {
		fmt.Fprintf(&b, " (FORCED: %s)", c.Forced)
	}
	fmt.Fprintf(&b, " | rule: %s | %s", c.Rule(), effectText(d))
	if n := len(c.Screen.Excluded); n > 0 {
		fmt.Fprintf(&b, " | left out %d suspect run(s): %s", n, strings.Join(c.Screen.Excluded, "; "))
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, " | %s", c.Reason)
	}
	return b.String()
}

// effectText is "effect <label> = v [lo, hi], n = a/b, p = x".
func effectText(d reports.Check) string {
	var parts []string
	if !math.IsNaN(d.Effect) {
		s := fmt.Sprintf("%s = %.4g", OrStr(d.EffectLabel, "effect"), d.Effect)
		if !math.IsNaN(d.CILow) {
			s += fmt.Sprintf(" (95%% CI %.4g to %.4g)", d.CILow, d.CIHigh)
		}
		parts = append(parts, s)
	}
	if len(d.N) > 0 {
		ns := make([]string, len(d.N))
		for i, n := range d.N {
			ns[i] = fmt.Sprint(n)
		}
		parts = append(parts, "n = "+strings.Join(ns, "/"))
	}
	if !math.IsNaN(d.P) {
		p := fmt.Sprintf("p = %.3g", d.P)
		if d.PLabel != "" {
			p += " (" + d.PLabel + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "no effect measured"
	}
	return strings.Join(parts, ", ")
}

// OrStr is s, or def when s is empty.
func OrStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ClaimJSON and ClaimsFile are claims.json, whose shape reports defines
// once for the experiments (writer) and the HTML page (reader).
type (
	ClaimJSON  = reports.ClaimRecord
	ClaimsFile = reports.ClaimsFile
)

func numPtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// claimsFile builds claims.json's content. The effect, CI, n and p are
// those of the deciding check (Claim.Decider); Evidence lists every check.
func claimsFile(exp, profile string, cs []Claim) ClaimsFile {
	f := ClaimsFile{Experiment: exp, Scale: profile, Claims: []ClaimJSON{}}
	for _, c := range cs {
		d := c.Decider()
		n := d.N
		if n == nil {
			n = []int{}
		}
		ev := c.Evidence
		if len(c.Checks) > 1 {
			var per []string
			for _, ch := range c.Checks {
				per = append(per, fmt.Sprintf("%s: %s (%s)", OrStr(ch.Label, string(ch.Kind)), ch.Verdict, effectText(ch)))
			}
			ev = strings.TrimSpace(ev + " Checks: " + strings.Join(per, "; ") + ".")
		}
		if len(c.Screen.Excluded) > 0 {
			ev = strings.TrimSpace(ev + " Left out as suspect: " + strings.Join(c.Screen.Excluded, "; ") + ".")
		}
		f.Claims = append(f.Claims, ClaimJSON{
			Statement: c.Statement, Source: c.Source, Kind: string(orKind(c.Kind)), Rule: c.Rule(),
			Verdict: string(c.Verdict), Reason: c.Reason, Effect: numPtr(d.Effect), EffectLabel: d.EffectLabel,
			CILow: numPtr(d.CILow), CIHigh: numPtr(d.CIHigh), N: n, P: numPtr(d.P), Forced: c.Forced, Evidence: ev,
			Why: c.Screen.Why,
		})
	}
	return f
}

func orKind(k ClaimKind) ClaimKind {
	if k == "" {
		return PaperClaim
	}
	return k
}

// CountVerdicts returns how many paper claims hold, do not hold and are
// inconclusive, and how many sanity checks there are (project claims are
// in neither).
func CountVerdicts(cs []Claim) (holds, not, inconc, sanity int) {
	holds, not, inconc = Tally(cs, PaperClaim)
	for _, c := range cs {
		if c.Kind == SanityCheck {
			sanity++
		}
	}
	return
}

// Tally counts the claims of kind by verdict (a claim without a kind is a paper's).
func Tally(cs []Claim, kind ClaimKind) (holds, not, inconc int) {
	for _, c := range cs {
		if c.Kind != kind && (kind != PaperClaim || c.Kind != "") {
			continue
		}
		switch c.Verdict {
		case reports.Holds:
			holds++
		case reports.DoesNotHold:
			not++
		default:
			inconc++
		}
	}
	return
}

// VerdictCounts says how many claims of each kind hold, do not hold and are inconclusive, for a
// reader: the paper's always, this project's own when there are any, and the sanity checks.
func VerdictCounts(cs []Claim) string {
	h, n, i, san := CountVerdicts(cs)
	s := fmt.Sprintf("paper claims: %d hold, %d do not hold, %d inconclusive", h, n, i)
	if h, n, i := Tally(cs, ProjectClaim); h+n+i > 0 {
		s += fmt.Sprintf("; this project's claims: %d hold, %d do not hold, %d inconclusive", h, n, i)
	}
	return s + fmt.Sprintf("; %d sanity checks", san)
}

// Units: the independent statistical units of the claims.

// GraphUnits returns one value per graph instance: the mean of metric over
// the instance's rows (repetitions, and the x values keep accepts) of
// series. perX keeps instances at different x apart (when each x has its
// own graphs, as in partition-density and spd); otherwise an instance is
// its generating seed across all x (kpart-mul, partition-k reuse graphs).
func GraphUnits(r *Results, series, metric string, keep func(Row) bool, perX bool) []float64 {
	keys, means := graphUnitMeans(r, series, metric, keep, perX)
	out := make([]float64, len(keys))
	for i, k := range keys {
		out[i] = means[k]
	}
	return out
}

// UnitSide is one side of a paired comparison: a series and the rows of
// it that count (nil: all).
type UnitSide struct {
	Series string
	Keep   func(Row) bool
}

// PairedGraphUnits returns the graph units (GraphUnits) of two sides that
// were measured on the same graph instances, aligned so that a[i] and b[i]
// are the same graph: the input of a paired test. A graph present on one
// side only is left out; unmatched counts those.
func PairedGraphUnits(r *Results, metric string, perX bool, sa, sb UnitSide) (a, b []float64, unmatched int) {
	ka, ma := graphUnitMeans(r, sa.Series, metric, sa.Keep, perX)
	kb, mb := graphUnitMeans(r, sb.Series, metric, sb.Keep, perX)
	for _, k := range ka {
		if v, ok := mb[k]; ok {
			a, b = append(a, ma[k]), append(b, v)
		} else {
			unmatched++
		}
	}
	return a, b, unmatched + len(kb) - len(a)
}

// unitKey names a graph instance: its x (when perX), generating seed and
// instance number.
type unitKey struct {
	x    float64
	seed uint64
	inst int
}

// graphUnitMeans is the mean of metric per graph instance, with the
// instances in the order of their first row.
func graphUnitMeans(r *Results, series, metric string, keep func(Row) bool, perX bool) ([]unitKey, map[unitKey]float64) {
	sums := map[unitKey][2]float64{}
	var order []unitKey
	for _, row := range r.Rows {
		if row.Series != series || (keep != nil && !keep(row)) || !row.Validity.Counts(metric) {
			continue
		}
		v, ok := row.Values[metric]
		if !ok {
			v = math.NaN()
		}
		k := unitKey{seed: row.InstanceSeed, inst: row.Instance}
		if perX {
			k.x = row.X
		} else {
			k.inst = 0
		}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		s := sums[k]
		sums[k] = [2]float64{s[0] + v, s[1] + 1}
	}
	means := make(map[unitKey]float64, len(order))
	for _, k := range order {
		means[k] = sums[k][0] / sums[k][1]
	}
	return order, means
}

// RunUnits returns one value per run (row) of series at the x values keep
// accepts (nil: all): the unit of the cluster experiments. A run whose
// figure for metric does not count (invalid, or suspect for metric:
// harness.Validity.Counts) is left out: a figure Storm's own statistics
// contradict feeds no verdict. ScreenRuns says which were left out and
// whether enough remain. A run suspect for other metrics only stays.
func RunUnits(r *Results, series, metric string, keep func(x float64) bool) []float64 {
	var out []float64
	for _, row := range r.Rows {
		if row.Series == series && (keep == nil || keep(row.X)) && row.Validity.Counts(metric) {
			v, ok := row.Values[metric]
			if !ok {
				v = math.NaN()
			}
			out = append(out, v)
		}
	}
	return out
}

// AtX keeps the rows at x.
func AtX(x float64) func(float64) bool { return func(v float64) bool { return v == x } }

// XMeans returns the sorted x values of series and the mean over units at
// each x (for trend checks: n = number of x values).
func XMeans(r *Results, series, metric string, keep func(Row) bool, perX bool) (xs, ys []float64) {
	seen := map[float64]bool{}
	for _, row := range r.Rows {
		if row.Series == series && (keep == nil || keep(row)) && !seen[row.X] {
			seen[row.X] = true
			xs = append(xs, row.X)
		}
	}
	sort.Float64s(xs)
	for _, x := range xs {
		u := GraphUnits(r, series, metric, func(row Row) bool { return row.X == x && (keep == nil || keep(row)) }, perX)
		ys = append(ys, stat.Mean(u, nil))
	}
	return xs, ys
}

// Screen is what the runs of a cluster claim allow. Excluded lists the
// suspect runs left out of the claim's units (RunUnits drops them), one
// "series x=.. rep ..: why" each. Blockers are reasons no verdict may be
// drawn; JudgeClaims then reports the claim inconclusive with them.
// Excluded names invalid runs too ("...: invalid: why").
type Screen struct {
	Excluded []string
	Blockers []string
	// Why says which run diagnoses differ between the compared series, with figures (whyOf); "" when
	// none was diagnosed.
	Why string
}

// ScreenRuns screens the runs of the given series at the x values keep
// accepts (nil: all), the cells a cluster claim on metric compares. The
// rule:
//
//   - a run whose figure for metric does not count (invalid, or suspect
//     for metric: its figures disagree with Storm's own statistics beyond
//     the harness's tolerance; harness.Validity.Counts) is left out and
//     named with its reasons;
//   - a cell (series, x) with fewer than MinVerdictReps runs left is a
//     blocker: the verdict would rest on too few independent runs;
//   - a run left in whose scheduler decided without an input it needs
//     (Row.NotMeasured) is a blocker: the scheduler under test did not see
//     what the paper's scheduler sees, so the comparison says nothing about
//     the paper's claim;
//   - a series more than half of whose runs were host-starved is a blocker: the runs measured the
//     host, not the scheduler (docs/statistics.md, "What limited a run").
//
// Why is filled from the same runs' diagnoses.
func ScreenRuns(r *Results, metric string, keep func(x float64) bool, series ...string) Screen {
	var sc Screen
	var starved []string
	sc.Why, starved = whyOf(r, keep, series)
	sc.Blockers = append(sc.Blockers, starved...)
	for _, s := range series {
		type cell struct{ valid, left int }
		cells := map[float64]*cell{}
		var xs []float64
		for _, row := range r.Rows {
			if row.Series != s || (keep != nil && !keep(row.X)) {
				continue
			}
			c := cells[row.X]
			if c == nil {
				c = &cell{}
				cells[row.X] = c
				xs = append(xs, row.X)
			}
			where := fmt.Sprintf("%s x=%s rep %d", s, FormatX(row.X), row.Rep)
			if why := whyLeftOut(row, metric); why != "" {
				c.left++
				sc.Excluded = append(sc.Excluded, where+": "+why)
				continue
			}
			c.valid++
			if len(row.NotMeasured) > 0 {
				sc.Blockers = append(sc.Blockers, fmt.Sprintf("%s: the scheduler decided without %s (not measured)", where, strings.Join(row.NotMeasured, ", ")))
			}
		}
		if len(xs) == 0 {
			sc.Blockers = append(sc.Blockers, fmt.Sprintf("no runs of %s", s))
		}
		sort.Float64s(xs)
		for _, x := range xs {
			if c := cells[x]; c.valid < MinVerdictReps {
				sc.Blockers = append(sc.Blockers, fmt.Sprintf("%s x=%s: %d valid run(s) (%d invalid or suspect left out), a verdict needs >= %d",
					s, FormatX(x), c.valid, c.left, MinVerdictReps))
			}
		}
	}
	return sc
}
