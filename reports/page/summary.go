package page

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// markdown renders the papers' summaries: CommonMark with GitHub's tables,
// raw HTML in the source left out (goldmark's default), so a claim's text
// cannot inject markup into the page.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

// newDoc splits a summary-*.md into its "# " heading (the title shown on
// the page) and the rest, rendered as HTML.
func newDoc(file, text string) (Doc, error) {
	d := Doc{File: file, Text: text, Title: file}
	body := text
	if first, rest, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "# ") {
		d.Title, body = strings.TrimSpace(strings.TrimPrefix(first, "# ")), rest
	}
	var b bytes.Buffer
	if err := markdown.Convert([]byte(body), &b); err != nil {
		return Doc{}, fmt.Errorf("%s: %w", file, err)
	}
	d.HTML = template.HTML(b.String()) // goldmark escapes text and drops raw HTML
	return d, nil
}

// Tally counts claims by verdict.
type Tally struct{ Held, Failed, Inconclusive int }

// Total is the number of claims counted.
func (t Tally) Total() int { return t.Held + t.Failed + t.Inconclusive }

func (t *Tally) add(verdict string) {
	switch verdict {
	case "holds":
		t.Held++
	case "does not hold":
		t.Failed++
	default:
		t.Inconclusive++
	}
}

func (t *Tally) plus(o Tally) {
	t.Held, t.Failed, t.Inconclusive = t.Held+o.Held, t.Failed+o.Failed, t.Inconclusive+o.Inconclusive
}

// countClaims tallies the claims apart by kind: the papers' claims (kind
// "paper", or none in older files), sanity checks of the set-up, and this
// project's own claims, so a headline never mixes them.
func (e *Experiment) countClaims() {
	for _, c := range e.Claims {
		switch c.Kind {
		case "sanity":
			e.Sanity.add(c.Verdict)
		case "project":
			e.Project.add(c.Verdict)
		default:
			e.Paper.add(c.Verdict)
		}
	}
}

// idChars are the characters an element id keeps; others become '-'.
var idChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// assignIDs gives every experiment and figure an element id unique in
// the page: a figure's id names its experiment (several experiments draw
// cut_rate.svg), and a repeated experiment name gets -2, -3.
func (f *Folder) assignIDs() {
	seen := map[string]int{}
	unique := func(id string) string {
		seen[id]++
		if n := seen[id]; n > 1 {
			id += "-" + strconv.Itoa(n)
			seen[id]++
		}
		return id
	}
	for _, e := range f.Experiments {
		e.ID = unique("exp-" + idChars.ReplaceAllString(e.Name, "-"))
		for i := range e.Figures {
			e.Figures[i].ID = unique("fig-" + strings.TrimPrefix(e.ID, "exp-") + "-" + idChars.ReplaceAllString(e.Figures[i].File, "-"))
		}
	}
}
