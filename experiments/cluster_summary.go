package experiments

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/stormlab/stormlab/reports"
)

// One summary per paper: the headline claims of its cluster evaluation,
// the paper's value, ours, and whether the claim holds. Each cluster
// experiment writes its checked claims to <out>/<experiment>/paper-claims.json
// and then rebuilds <out>/summary-<paper>.md from the claims of every
// experiment of that paper found under <out> (so running the experiments
// one by one, in any order, ends with a complete summary).

// paperClaim is one row of a paper summary.
type paperClaim struct {
	Experiment string `json:"experiment"`
	Claim      string `json:"claim"`
	Paper      string `json:"paper"`    // the paper's value
	Measured   string `json:"measured"` // ours
	Holds      bool   `json:"holds"`
	Test       string `json:"test"` // how we decide
}

// paperClaims is what paper-claims.json holds.
type paperClaims struct {
	Paper      string       `json:"paper"`
	Experiment string       `json:"experiment"`
	Profile    string       `json:"profile"`
	Written    string       `json:"written"`
	Claims     []paperClaim `json:"claims"`
}

// paperExperiments lists the cluster experiments of each paper.
var paperExperiments = map[string][]string{
	"000": {"comm-cost", "kpart-cluster"},
	"002": {"deadline"},
}

var paperTitles = map[string]string{
	"000": "000_1e4e00aeded315e8.txt (K-PART, Jian/Lu/Zhang): cluster evaluation, Figs. 1 and 8-11",
	"002": "002_39f4f6839cbfd73d.txt (deadline- and load-type-aware scheduling): Figs. 7-10",
}

// toClaims turns summary rows into the framework's claims (notes.md).
func toClaims(pcs []paperClaim) []Claim {
	out := make([]Claim, len(pcs))
	for i, p := range pcs {
		out[i] = Claim{Statement: fmt.Sprintf("%s (paper: %s)", p.Claim, p.Paper), Test: p.Test, Holds: p.Holds, Evidence: p.Measured}
	}
	return out
}

// publishClaims writes the experiment's paper-claims.json and rebuilds the
// paper's summary; it prints the summary to env.Log. Without an output
// folder it only prints this experiment's rows.
func publishClaims(env Env, paper, exp, profile string, pcs []paperClaim) error {
	dir := expDir(env)
	if dir == "" {
		return summaryTable(paper, []paperClaims{{Paper: paper, Experiment: exp, Profile: profile, Claims: pcs}}).WriteText(env.Log)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pc := paperClaims{Paper: paper, Experiment: exp, Profile: profile, Written: time.Now().UTC().Format(time.RFC3339), Claims: pcs}
	if err := writeAtomic(filepath.Join(dir, "paper-claims.json"), func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(pc)
	}); err != nil {
		return err
	}
	out := filepath.Dir(dir)
	md, err := WritePaperSummary(out, paper)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Log, "\n%s\n", md)
	return err
}

// WritePaperSummary rebuilds <out>/summary-<paper>.md from the
// paper-claims.json files of the paper's experiments under out and returns
// its text.
func WritePaperSummary(out, paper string) (string, error) {
	var all []paperClaims
	for _, exp := range paperExperiments[paper] {
		data, err := os.ReadFile(filepath.Join(out, exp, "paper-claims.json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		var pc paperClaims
		if err := json.Unmarshal(data, &pc); err != nil {
			return "", fmt.Errorf("read %s claims: %w", exp, err)
		}
		all = append(all, pc)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Summary: %s\n\n", paperTitles[paper])
	for _, pc := range all {
		fmt.Fprintf(&b, "- %s: profile %s, written %s\n", pc.Experiment, pc.Profile, pc.Written)
	}
	for _, exp := range paperExperiments[paper] {
		found := false
		for _, pc := range all {
			found = found || pc.Experiment == exp
		}
		if !found {
			fmt.Fprintf(&b, "- %s: not run yet\n", exp)
		}
	}
	b.WriteString("\n")
	if err := summaryTable(paper, all).WriteMarkdown(&b); err != nil {
		return "", err
	}
	b.WriteString("\nA claim that does not hold is a finding, reported as measured; see each experiment's notes.md for the tests and raw numbers.\n")
	if err := writeAtomic(filepath.Join(out, "summary-"+paper+".md"), func(w io.Writer) error {
		_, err := w.Write(b.Bytes())
		return err
	}); err != nil {
		return "", err
	}
	return b.String(), nil
}

func summaryTable(paper string, all []paperClaims) *reports.Table {
	t := &reports.Table{Title: "paper " + paper, Columns: []string{"experiment", "claim", "paper's value", "our measured value", "verdict"}}
	for _, pc := range all {
		for _, c := range pc.Claims {
			v := "does not hold"
			if c.Holds {
				v = "holds"
			}
			t.AddRow(reports.Text(pc.Experiment), reports.Text(c.Claim), reports.Text(c.Paper), reports.Text(c.Measured), reports.Text(v))
		}
	}
	return t
}
