package page

import (
	"path/filepath"
	"strings"
)

// SideBySide is one experiment judged both on a real cluster and on a simulated one (two or more
// results folders of it, at least one simulated): its claims' verdicts in a column per folder, the
// real ones first. Each column is counted alone: a simulated verdict is the model's, and adding it to
// a real one would count one claim twice, on different evidence.
type SideBySide struct {
	Name, ID string
	Columns  []Column
	Rows     []SideRow
}

// Column is one results folder of a SideBySide.
type Column struct {
	Folder    string // the folder, as the page's folder reaches it
	Where     string // the cluster its manifest names ("" when it names none)
	Simulated bool
	Standing  string // a simulated cluster's standing: not validated, validated, extrapolated
	Paper     Tally  // this folder's paper claims, counted alone
}

// SideRow is one claim, with its verdict in each column ("" where that folder did not judge it).
type SideRow struct {
	Statement, Kind string
	Verdicts        []string
}

// sideBySide finds the experiments of f judged both on real and on simulated clusters.
func (f *Folder) sideBySide() []SideBySide {
	var names []string
	byName := map[string][]*Experiment{}
	for _, e := range f.Experiments {
		if byName[e.Name] == nil {
			names = append(names, e.Name)
		}
		byName[e.Name] = append(byName[e.Name], e)
	}
	var out []SideBySide
	for _, name := range names {
		var real, simulated []*Experiment
		for _, e := range byName[name] {
			if e.Simulated != "" {
				simulated = append(simulated, e)
			} else {
				real = append(real, e)
			}
		}
		if len(real) > 0 && len(simulated) > 0 {
			out = append(out, f.side(name, append(real, simulated...)))
		}
	}
	return out
}

// side is the SideBySide of one experiment's folders es, in their order: a row per claim (by its
// statement and kind, in the order the folders first name it).
func (f *Folder) side(name string, es []*Experiment) SideBySide {
	s := SideBySide{Name: name, ID: "side-" + idChars.ReplaceAllString(name, "-")}
	row := map[[2]string]int{}
	for i, e := range es {
		s.Columns = append(s.Columns, Column{Folder: f.rel(e.Dir), Where: e.manifestValue("cluster"), Simulated: e.Simulated != "",
			Standing: e.Standing, Paper: e.Paper})
		for _, c := range e.Claims {
			k := [2]string{c.Statement, c.Kind}
			j, ok := row[k]
			if !ok {
				j = len(s.Rows)
				row[k] = j
				s.Rows = append(s.Rows, SideRow{Statement: c.Statement, Kind: c.Kind, Verdicts: make([]string, len(es))})
			}
			s.Rows[j].Verdicts[i] = c.Verdict
		}
	}
	return s
}

// rel is dir as the page's folder reaches it.
func (f *Folder) rel(dir string) string {
	if r, err := filepath.Rel(f.Dir, dir); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return dir
}

// manifestValue is the manifest's entry key, "" when it has none.
func (e *Experiment) manifestValue(key string) string {
	for _, kv := range e.Manifest {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}
