package lab

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/reports"
)

// One summary per paper: every experiment reproducing it writes
// claims.json into its folder, and Output then rebuilds
// <out>/summary-<paper key>.md from the claims.json files of all that
// paper's experiments found under <out> (so running the experiments one by
// one, in any order, ends with a complete summary).

// WritePaperSummary rebuilds <out>/summary-<paper>.md from the claims.json
// files of the paper's experiments exps found under out and returns its
// text.
func WritePaperSummary(out, paper string, exps []string) (string, error) {
	var all []ClaimsFile
	var missing []string
	for _, exp := range exps {
		data, err := os.ReadFile(filepath.Join(out, exp, "claims.json"))
		if os.IsNotExist(err) {
			missing = append(missing, exp)
			continue
		}
		if err != nil {
			return "", err
		}
		cf, err := reports.ReadClaimsFile(bytes.NewReader(data))
		if err != nil {
			return "", fmt.Errorf("read %s claims: %w", exp, err)
		}
		all = append(all, cf)
	}
	var b bytes.Buffer
	p, ok := PaperByKey(paper)
	title := paper
	if ok {
		title = fmt.Sprintf("%s, %q, %s, %d", p.Authors, p.Title, p.Venue, p.Year)
	}
	fmt.Fprintf(&b, "# Summary: %s\n\n", title)
	for _, cf := range all {
		fmt.Fprintf(&b, "- %s: scale %s", cf.Experiment, OrStr(cf.Scale, "n/a"))
		if cf.Simulated != "" {
			fmt.Fprintf(&b, "; simulated (%s), the model's verdicts, not Storm's: %s", OrStr(cf.SimulatedStanding, "not validated"), cf.Simulated)
		}
		b.WriteString("\n")
	}
	for _, exp := range missing {
		fmt.Fprintf(&b, "- %s: not run yet\n", exp)
	}
	b.WriteString("\n")
	if err := summaryTable(paper, all).WriteMarkdown(&b); err != nil {
		return "", err
	}
	b.WriteString("\nVerdicts: holds / does not hold / inconclusive by the rule in each row (reports/inference.go); \"does not hold\" needs significant evidence against the claim. A FORCED claim's outcome is built into its setup and says nothing about the paper. See each experiment's notes.md and claims.json for the raw numbers.\n")
	if err := WriteAtomic(filepath.Join(out, "summary-"+paper+".md"), func(w io.Writer) error {
		_, err := w.Write(b.Bytes())
		return err
	}); err != nil {
		return "", err
	}
	return b.String(), nil
}

func summaryTable(paper string, all []ClaimsFile) *reports.Table {
	t := &reports.Table{Title: Cite(paper, ""), Columns: []string{"experiment", "claim", "where in the paper", "rule", "effect (95% CI), n, p", "verdict"}}
	for _, cf := range all {
		for _, c := range cf.Claims {
			stmt := c.Statement
			switch c.Kind {
			case string(SanityCheck):
				stmt += " (sanity check)"
			case string(ProjectClaim):
				stmt += " (this project's claim, not the paper's)"
			}
			if c.Forced != "" {
				stmt += " (FORCED: " + c.Forced + ")"
			}
			// The table's title cites the paper; the column keeps the figure.
			src := strings.TrimPrefix(strings.TrimPrefix(c.Source, Cite(paper, "")), ", ")
			t.AddRow(reports.Text(cf.Experiment), reports.Text(stmt), reports.Text(src), reports.Text(c.Rule),
				reports.Text(jsonEffect(c)), reports.Text(c.Verdict+simulatedMark(cf)))
		}
	}
	return t
}

// simulatedMark follows a verdict judged on a simulated cluster, so a row never reads as Storm's.
func simulatedMark(cf ClaimsFile) string {
	if cf.Simulated == "" {
		return ""
	}
	return " (simulated, " + OrStr(cf.SimulatedStanding, "not validated") + ")"
}

func jsonEffect(c ClaimJSON) string {
	var b bytes.Buffer
	if c.Effect != nil {
		fmt.Fprintf(&b, "%s %.4g", OrStr(c.EffectLabel, "effect"), *c.Effect)
		if c.CILow != nil && c.CIHigh != nil {
			fmt.Fprintf(&b, " (%.4g to %.4g)", *c.CILow, *c.CIHigh)
		}
		b.WriteString(", ")
	}
	fmt.Fprintf(&b, "n = %s", joinN(c.N))
	if c.P != nil {
		fmt.Fprintf(&b, ", p = %.3g", *c.P)
	}
	return b.String()
}

// joinN prints the units per group ("16 and 24"), not Go's "[16 24]".
func joinN(n []int) string {
	s := make([]string, len(n))
	for i, x := range n {
		s[i] = strconv.Itoa(x)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
