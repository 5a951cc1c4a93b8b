package page

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/reports"
)

// MaxTableRows is the number of rows a table shows; longer CSV files (raw
// samples, time series) are listed as files instead of drawn as tables.
const MaxTableRows = 200

// Folder is what Load read.
type Folder struct {
	Dir         string
	Experiments []*Experiment
	Compare     *Comparison // nil unless the folder holds compare.json
	CompareDir  string      // where compare.json was found
	Summaries   []Doc       // summary-*.md of a results base (one per paper)
	// SideBySide are the experiments judged both on real and on simulated clusters, a column each.
	SideBySide []SideBySide
}

// Doc is a Markdown file (a paper's summary): its text, its "# " title,
// and the rest as HTML (tables as tables).
type Doc struct {
	File, Text, Title string
	HTML              template.HTML
}

// Experiment is one experiment's result folder.
type Experiment struct {
	Name, Dir                  string
	ID                         string // element id, unique in the page (assignIDs)
	Description, Source, Setup string
	Scale                      string
	Manifest                   []KV
	Tables                     []Table
	Figures                    []Figure
	Claims                     []Claim
	HasClaims                  bool   // claims.json was there (possibly with no claims)
	Simulated                  string // the claims were judged on a simulated cluster (claims.json says which)
	Standing                   string // that cluster's standing: not validated, validated, extrapolated
	Notes                      string
	OtherFiles                 []string // files not shown on the page (raw.csv, runs/, long CSVs)
	// Paper, Sanity and Project count the papers' claims, the sanity
	// checks and this project's own claims apart.
	Paper, Sanity, Project Tally
	// Invalid are the runs raw.csv records as invalid (in no table and no
	// claim), Suspect those it records as suspect (kept in the tables).
	Invalid, Suspect []RunNote
}

// KV is one manifest entry, value already formatted.
type KV struct{ Key, Value string }

// Table is a CSV file of the folder, value columns merged to "mean ± CI".
type Table struct {
	File    string
	Title   string
	Header  []string
	Numeric []bool // right-aligned columns
	Rows    [][]string
	HasCI   bool // some column had a "NAME ci95" partner
}

// Figure is one plot of the folder.
type Figure struct {
	File    string
	ID      string        // element id, unique in the page (assignIDs)
	SVG     template.HTML // inline SVG (trusted: written by our own plotter)
	PNGData template.URL  // data: URL when there is no SVG
	Caption string
}

// Claim and ClaimsFile are claims.json (the experiments' verdict file), as
// reports defines it.
type (
	Claim      = reports.ClaimRecord
	ClaimsFile = reports.ClaimsFile
)

// Load reads dir: an experiment folder (it holds manifest.json or
// table.csv), or a folder of such folders (a results base or a nightly
// folder), with compare.json if `stormlab compare --format json` wrote one.
func Load(dir string) (*Folder, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is a file: give the folder `stormlab experiment NAME --out DIR` wrote (DIR or DIR/NAME)", dir)
	}
	f := &Folder{Dir: dir}
	if isExperimentDir(dir) {
		e, err := loadExperiment(dir)
		if err != nil {
			return nil, err
		}
		f.Experiments = append(f.Experiments, e)
	} else {
		es, err := loadBase(dir, 2)
		if err != nil {
			return nil, err
		}
		f.Experiments = es
	}
	if !isExperimentDir(dir) {
		sums, _ := filepath.Glob(filepath.Join(dir, "summary-*.md"))
		sort.Strings(sums)
		for _, p := range sums {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			d, err := newDoc(filepath.Base(p), string(b))
			if err != nil {
				return nil, err
			}
			f.Summaries = append(f.Summaries, d)
		}
	}
	if c, err := loadCompare(filepath.Join(dir, "compare.json")); err != nil {
		return nil, err
	} else if c != nil {
		f.Compare, f.CompareDir = c, dir
	}
	if len(f.Experiments) == 0 && f.Compare == nil {
		return nil, fmt.Errorf("no experiment results in %s: give a folder `stormlab experiment NAME --out DIR` wrote (DIR or DIR/NAME)", dir)
	}
	f.assignIDs()
	f.SideBySide = f.sideBySide()
	return f, nil
}

// loadBase loads the experiment folders in dir, and down to depth levels in folders of such folders
// (a folder holding a real cluster's results base and a simulated one's: their verdicts side by side).
func loadBase(dir string, depth int) ([]*Experiment, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	var out []*Experiment
	for _, de := range ents {
		sub := filepath.Join(dir, de.Name())
		if !de.IsDir() {
			continue
		}
		if !isExperimentDir(sub) {
			if depth > 1 {
				es, err := loadBase(sub, depth-1)
				if err != nil {
					return nil, err
				}
				out = append(out, es...)
			}
			continue
		}
		e, err := loadExperiment(sub)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func isExperimentDir(dir string) bool {
	return exists(filepath.Join(dir, "manifest.json")) || exists(filepath.Join(dir, "table.csv"))
}

func loadExperiment(dir string) (*Experiment, error) {
	e := &Experiment{Name: filepath.Base(dir), Dir: dir}
	if err := e.loadManifest(filepath.Join(dir, "manifest.json")); err != nil {
		return nil, err
	}
	if err := e.loadClaims(filepath.Join(dir, "claims.json")); err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes.md")); err == nil {
		e.Notes = string(b)
	}
	if err := e.loadRuns(filepath.Join(dir, "raw.csv")); err != nil {
		return nil, err
	}
	names, err := e.listFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if err := e.addFile(dir, n, names); err != nil {
			return nil, err
		}
	}
	captionFigures(dir, e.Figures)
	e.titleTable(dir)
	return e, nil
}

// loadClaims reads claims.json when the experiment has one (its scale
// overrides the manifest's).
func (e *Experiment) loadClaims(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// One decoder for claims.json: the one `stormlab compare --verdicts`
	// reads with (experiments/compare.ReadClaimsDir).
	cf, err := reports.ReadClaimsFile(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	e.Claims, e.HasClaims, e.Simulated, e.Standing = cf.Claims, true, cf.Simulated, cf.SimulatedStanding
	if e.Simulated != "" && e.Standing == "" { // written before standings: nothing validated then
		e.Standing = "not validated"
	}
	if cf.Scale != "" {
		e.Scale = cf.Scale
	}
	e.countClaims()
	return nil
}

// listFiles returns the names of the files in dir, the results table first
// and then by name; subfolders go to OtherFiles.
func (e *Experiment) listFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		if de.IsDir() {
			e.OtherFiles = append(e.OtherFiles, de.Name()+"/")
			continue
		}
		names = append(names, de.Name())
	}
	sort.Strings(names)
	// The results table first, then the other tables.
	sort.SliceStable(names, func(i, j int) bool { return names[i] == "table.csv" && names[j] != "table.csv" })
	return names, nil
}

// addFile puts file n of dir on the page as a table, a figure or an other
// file; names are all the folder's files (a figure's companions).
func (e *Experiment) addFile(dir, n string, names []string) error {
	p := filepath.Join(dir, n)
	stem, ext := strings.TrimSuffix(n, filepath.Ext(n)), strings.ToLower(filepath.Ext(n))
	switch {
	case ext == ".csv" && n != "raw.csv":
		t, ok, err := loadTable(p)
		if err != nil {
			return err
		}
		if ok {
			e.Tables = append(e.Tables, t)
		} else {
			e.OtherFiles = append(e.OtherFiles, n)
		}
	case ext == ".svg":
		fig, err := loadSVG(p)
		if err != nil {
			return err
		}
		e.Figures = append(e.Figures, fig)
	case ext == ".png" && !slices.Contains(names, strings.TrimSuffix(stem, "-2col")+".svg"):
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		e.Figures = append(e.Figures, Figure{File: n, Caption: stem,
			PNGData: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))})
	case ext == ".png" || ext == ".pdf" || n == "manifest.json" || n == "claims.json" || n == "notes.md" ||
		n == "table.md" || n == "index.html" || figureCompanion(names, n):
		// shown on the page in another form
	default:
		e.OtherFiles = append(e.OtherFiles, n)
	}
	return nil
}

// titleTable gives table.csv the title that table.md carries.
func (e *Experiment) titleTable(dir string) {
	md, err := os.ReadFile(filepath.Join(dir, "table.md"))
	if err != nil {
		return
	}
	first, _, _ := strings.Cut(string(md), "\n")
	if t := strings.Trim(strings.TrimSpace(first), "*"); t != "" && strings.HasPrefix(first, "**") {
		for i := range e.Tables {
			if e.Tables[i].File == "table.csv" {
				e.Tables[i].Title = t
			}
		}
	}
}

func (e *Experiment) loadManifest(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	if n := str("experiment"); n != "" {
		e.Name = n
	}
	e.Description, e.Source, e.Setup, e.Scale = str("description"), str("source"), str("setup"), str("profile")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "experiment", "description", "source", "setup":
			continue
		}
		e.Manifest = append(e.Manifest, KV{k, formatJSON(m[k])})
	}
	return nil
}

// formatJSON prints a manifest value compactly: strings as they are, lists
// comma-separated, numbers without exponent noise.
func formatJSON(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		s := make([]string, len(x))
		for i, y := range x {
			s[i] = formatJSON(y)
		}
		return strings.Join(s, ", ")
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// loadTable reads a CSV table; ok is false when it is too long to show.
// A column "NAME ci95" right after "NAME" is merged into it as "mean ± CI".
func loadTable(path string) (Table, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return Table{}, false, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return Table{}, false, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 || len(recs)-1 > MaxTableRows {
		return Table{}, false, nil
	}
	t := Table{File: filepath.Base(path), Title: filepath.Base(path)}
	hdr := recs[0]
	type col struct{ val, ci int }
	var cols []col
	for j := 0; j < len(hdr); j++ {
		c := col{j, -1}
		if j+1 < len(hdr) && hdr[j+1] == hdr[j]+" ci95" {
			c.ci = j + 1
			j++
			t.HasCI = true
		}
		cols = append(cols, c)
		t.Header = append(t.Header, hdr[c.val])
	}
	t.Numeric = make([]bool, len(cols))
	for k := range cols {
		t.Numeric[k] = true
	}
	cell := func(r []string, j int) string {
		if j >= 0 && j < len(r) {
			return r[j]
		}
		return ""
	}
	for _, r := range recs[1:] {
		row := make([]string, len(cols))
		for k, c := range cols {
			v := cell(r, c.val)
			m, err1 := strconv.ParseFloat(v, 64)
			if v != "" && v != "n/a" && err1 != nil { // n/a: an optional metric not measured in the cell
				t.Numeric[k] = false
			}
			if c.ci >= 0 && err1 == nil {
				if ci, err := strconv.ParseFloat(cell(r, c.ci), 64); err == nil {
					v = reports.Value(reports.Summary{N: 2, Mean: m, CI95: ci}).String()
				}
			}
			row[k] = v
		}
		t.Rows = append(t.Rows, row)
	}
	return t, true, nil
}

// loadSVG reads an SVG file for inlining: the XML prolog and comments before
// the <svg> element are dropped, and a fixed size gives way to the viewBox
// so the figure scales with the page.
func loadSVG(path string) (Figure, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Figure{}, err
	}
	i := bytes.Index(b, []byte("<svg"))
	if i < 0 {
		return Figure{}, fmt.Errorf("%s is not an SVG file (no <svg> element)", path)
	}
	n := filepath.Base(path)
	return Figure{File: n, SVG: template.HTML(b[i:]), Caption: strings.TrimSuffix(n, filepath.Ext(n))}, nil
}

// figureCompanion says whether n is the caption (.txt) or LaTeX snippet (.tex) written beside a
// figure of the same stem: the page shows the caption under the figure instead of listing the file.
func figureCompanion(names []string, n string) bool {
	ext := filepath.Ext(n)
	if ext != ".txt" && ext != ".tex" {
		return false
	}
	stem := strings.TrimSuffix(n, ext)
	return slices.Contains(names, stem+".svg") || slices.Contains(names, stem+".png")
}

// captionFigures replaces each figure's file-name caption with the text of <stem>.txt beside it,
// where there is one (the images carry no caption inside since figures are publication-ready).
func captionFigures(dir string, figs []Figure) {
	for i := range figs {
		stem := strings.TrimSuffix(strings.TrimSuffix(figs[i].File, filepath.Ext(figs[i].File)), "-2col")
		if b, err := os.ReadFile(filepath.Join(dir, stem+".txt")); err == nil && len(bytes.TrimSpace(b)) > 0 {
			figs[i].Caption = strings.TrimSpace(string(b))
		}
	}
}
