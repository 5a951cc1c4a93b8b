package page

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"time"
)

//go:embed page.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"num":     num,
	"badge":   badge,
	"ints":    ints,
	"ci":      ciText,
	"rowattr": func(b bool) string { return map[bool]string{true: "num", false: ""}[b] },
}).Parse(pageTemplate))

// Options of Write.
type Options struct {
	Title     string
	Generated time.Time // shown in the footer; zero leaves it out (golden files)
}

type view struct {
	*Folder
	Title     string
	Generated string
	// Paper, Sanity and Project add up the tallies of the experiments run on real clusters, SimPaper,
	// SimSanity and SimProject those of the simulated ones: never one sum of both.
	Paper, Sanity, Project          Tally
	SimPaper, SimSanity, SimProject Tally
	Claims                          int
	Changes                         []CompareRow
	Unchanged                       []CompareRow
}

// Write renders f as one HTML page.
func Write(w io.Writer, f *Folder, o Options) error {
	v := view{Folder: f, Title: o.Title}
	if v.Title == "" {
		v.Title = "stormlab results: " + f.Dir
	}
	if !o.Generated.IsZero() {
		v.Generated = o.Generated.UTC().Format(time.RFC3339)
	}
	for _, e := range f.Experiments {
		if e.Simulated != "" {
			v.SimPaper.plus(e.Paper)
			v.SimSanity.plus(e.Sanity)
			v.SimProject.plus(e.Project)
		} else {
			v.Paper.plus(e.Paper)
			v.Sanity.plus(e.Sanity)
			v.Project.plus(e.Project)
		}
		v.Claims += len(e.Claims)
	}
	if f.Compare != nil {
		for _, r := range f.Compare.Rows {
			if r.Changed {
				v.Changes = append(v.Changes, r)
			} else {
				v.Unchanged = append(v.Unchanged, r)
			}
		}
		// Regressions first, then the other changes, each in file order.
		sort.SliceStable(v.Changes, func(i, j int) bool { return v.Changes[i].Regressed && !v.Changes[j].Regressed })
	}
	if err := tmpl.Execute(w, v); err != nil {
		return fmt.Errorf("render page: %w", err)
	}
	return nil
}

func num(p *float64) string {
	if p == nil {
		return "–"
	}
	return strconv.FormatFloat(*p, 'g', 4, 64)
}

func ciText(lo, hi *float64) string {
	if lo == nil || hi == nil {
		return "–"
	}
	return "[" + num(lo) + ", " + num(hi) + "]"
}

func ints(n []int) string {
	if len(n) == 0 {
		return "–"
	}
	s := ""
	for i, x := range n {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(x)
	}
	return s
}

// badge is the CSS class of a verdict (colour is never the only cue: the
// badge also carries the verdict's words).
func badge(verdict string) string {
	switch verdict {
	case "holds", "improved":
		return "ok"
	case "does not hold", "regressed", "changed":
		return "bad" // "changed": a metric that should not change did, which fails the gate too
	}
	return "unk"
}
