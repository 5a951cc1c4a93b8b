package reports

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
)

// Cell is one table cell: either text or a measured value (a Summary shown
// as "mean ± CI95"). The zero Cell is an empty text cell.
type Cell struct {
	Text  string
	Value *Summary
}

// Text makes a text cell.
func Text(s string) Cell { return Cell{Text: s} }

// Textf makes a formatted text cell.
func Textf(format string, a ...any) Cell { return Cell{Text: fmt.Sprintf(format, a...)} }

// Value makes a "mean ± CI" cell.
func Value(s Summary) Cell { return Cell{Value: &s} }

// Number makes a value cell for a single number (no interval).
func Number(x float64) Cell { return Cell{Value: &Summary{N: 1, Mean: x, Min: x, Max: x}} }

// String formats the cell for humans: values as "mean ± ci" with the CI
// rounded to two significant digits and the mean to the same decimal place,
// so the printed digits are the ones the data supports.
func (c Cell) String() string {
	if c.Value == nil {
		return c.Text
	}
	m, ci := formatValue(*c.Value)
	if ci == "" {
		return m
	}
	return m + " ± " + ci
}

// formatValue returns the mean and (if any) CI as strings.
func formatValue(s Summary) (mean, ci string) {
	if s.CI95 <= 0 || math.IsNaN(s.CI95) || math.IsInf(s.CI95, 0) {
		return strconv.FormatFloat(s.Mean, 'g', 4, 64), ""
	}
	// Two significant digits of the CI decide the decimal places.
	dec := 1 - int(math.Floor(math.Log10(s.CI95)))
	dec = max(0, min(dec, 8))
	return strconv.FormatFloat(s.Mean, 'f', dec, 64), strconv.FormatFloat(s.CI95, 'f', dec, 64)
}

// Table is a titled grid of cells. Rows shorter than Columns are padded with
// empty cells; longer rows are an error at render time.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]Cell
	Label   string // LaTeX \label; default "tab:" and a slug of Title
	// Notes are sentences under the table (in the caption of LaTeX and
	// terminal output): flags such as a broken bound, what n counts.
	Notes []string
	// MoveFirst names the columns that move under the table first when it
	// is too wide for a terminal (WriteTextWidth): the least needed ones.
	MoveFirst []string
}

// AddRow appends a row.
func (t *Table) AddRow(cells ...Cell) { t.Rows = append(t.Rows, cells) }

func (t *Table) check() error {
	if len(t.Columns) == 0 {
		return fmt.Errorf("table %q has no columns", t.Title)
	}
	for i, r := range t.Rows {
		if len(r) > len(t.Columns) {
			return fmt.Errorf("table %q: row %d has %d cells but there are %d columns", t.Title, i, len(r), len(t.Columns))
		}
	}
	return nil
}

// valueColumn reports whether column j holds any value cell.
func (t *Table) valueColumn(j int) bool {
	for _, r := range t.Rows {
		if j < len(r) && r[j].Value != nil {
			return true
		}
	}
	return false
}

// numericColumn reports whether column j holds numbers only: value cells,
// or text that parses as a number ("-" and empty cells allowed), so it is
// right-aligned.
func (t *Table) numericColumn(j int) bool {
	if t.valueColumn(j) {
		return true
	}
	nums := 0
	for i := range t.Rows {
		s := strings.TrimSpace(t.cell(i, j).Text)
		if s == "" || s == "-" {
			continue
		}
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return false
		}
		nums++
	}
	return nums > 0
}

// hasCI reports whether any cell has a confidence interval.
func (t *Table) hasCI() bool {
	for _, r := range t.Rows {
		for _, c := range r {
			if c.Value != nil && c.Value.CI95 > 0 {
				return true
			}
		}
	}
	return false
}

func (t *Table) cell(i, j int) Cell {
	if j < len(t.Rows[i]) {
		return t.Rows[i][j]
	}
	return Cell{}
}

// pretty builds the go-pretty table with human-formatted cells.
func (t *Table) pretty() table.Writer {
	tw := table.NewWriter()
	tw.SetTitle("%s", t.Title)
	hdr := make(table.Row, len(t.Columns))
	var cfg []table.ColumnConfig
	for j, c := range t.Columns {
		hdr[j] = c
		if t.numericColumn(j) {
			cfg = append(cfg, table.ColumnConfig{Number: j + 1, Align: text.AlignRight})
		}
	}
	tw.AppendHeader(hdr)
	tw.SetColumnConfigs(cfg)
	for i := range t.Rows {
		row := make(table.Row, len(t.Columns))
		for j := range t.Columns {
			row[j] = t.cell(i, j).String()
		}
		tw.AppendRow(row)
	}
	return tw
}

func writeString(w io.Writer, s string) error {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}

// notes is CICaption (when a cell has an interval) and the notes, one a
// line.
func (t *Table) notes() string {
	var lines []string
	if t.hasCI() {
		lines = append(lines, CICaption)
	}
	return strings.Join(append(lines, t.Notes...), "\n")
}

// WriteText renders the table at its natural width (box-drawing lines),
// for logs and files; a terminal gets WriteTextWidth. A title longer than
// the grid wraps at spaces.
func (t *Table) WriteText(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	tw := t.pretty()
	if c := t.notes(); c != "" {
		tw.SetCaption("%s", c)
	}
	tw.SetStyle(table.StyleLight)
	tw.Style().Format.Header = text.FormatDefault // keep column names as written
	grid := 3*len(t.Columns) + 1
	for j := range t.Columns {
		n, _, _ := t.colWidths(j)
		grid += n
	}
	setTitle(tw, t.Title, grid, max(grid, longestWord(t.Title)+4))
	return writeString(w, tw.Render())
}

// setTitle sets a title wrapped at spaces to the grid's width, widening
// the table (up to maxWidth) for a title word longer than that; go-pretty
// would cut it.
func setTitle(tw table.Writer, title string, grid, maxWidth int) {
	if need := min(maxWidth, longestWord(title)+4); need > grid {
		tw.Style().Size.WidthMin, grid = need, need
	}
	tw.SetTitle("%s", WrapWords(title, grid-4, ""))
}

// WriteTextWidth renders the table for a terminal of maxWidth columns with
// no word cut: text columns wrap at spaces, and columns too wide for that
// move under the table as numbered notes, full (see fit). Markdown, CSV
// and JSON keep every column as it is.
func (t *Table) WriteTextWidth(w io.Writer, maxWidth int) error {
	if err := t.check(); err != nil {
		return err
	}
	l := t.fit(maxWidth)
	g := &Table{Title: t.Title}
	for _, j := range l.keep {
		g.Columns = append(g.Columns, t.Columns[j])
	}
	for i := range t.Rows {
		row := make([]Cell, len(l.keep))
		for k, j := range l.keep {
			row[k] = Text(t.cell(i, j).String())
		}
		if l.marks != nil && l.marks[i] != "" {
			row[0].Text = strings.TrimSpace(row[0].Text + " " + l.marks[i])
		}
		g.Rows = append(g.Rows, row)
	}
	tw := g.pretty()
	grid := 3*len(l.widths) + 1
	var cfg []table.ColumnConfig
	for k, j := range l.keep {
		c := table.ColumnConfig{Number: k + 1, WidthMax: l.widths[k], WidthMaxEnforcer: text.WrapSoft}
		if t.numericColumn(j) {
			c.Align = text.AlignRight
		}
		cfg = append(cfg, c)
		grid += l.widths[k]
	}
	tw.SetColumnConfigs(cfg)
	tw.SetStyle(table.StyleLight)
	setTitle(tw, t.Title, grid, maxWidth)
	var notes []string
	for _, n := range append(l.notes, strings.Split(t.notes(), "\n")...) {
		if n != "" {
			notes = append(notes, WrapWords(n, maxWidth, "    "))
		}
	}
	if len(notes) > 0 {
		tw.SetCaption("%s", strings.Join(notes, "\n"))
	}
	tw.Style().Format.Header = text.FormatDefault // keep column names as written
	return writeString(w, tw.Render())
}

// longestWord is the width of s's longest space-free run.
func longestWord(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		n = max(n, text.StringWidth(w))
	}
	return n
}

// WriteMarkdown renders the table as GitHub Markdown, the title as a bold
// line above it.
func (t *Table) WriteMarkdown(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	tw := t.pretty()
	tw.SetTitle("")
	s := tw.RenderMarkdown()
	if c := t.notes(); c != "" {
		s += "\n\n" + strings.ReplaceAll(c, "\n", "\n\n")
	}
	if t.Title != "" {
		s = "**" + t.Title + "**\n\n" + s
	}
	return writeString(w, s)
}

// WriteHTML renders the table as an HTML <table> (title as caption).
func (t *Table) WriteHTML(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	return writeString(w, t.pretty().RenderHTML())
}

// WriteCSV renders the table for machines: no title, and each value column
// split into "NAME" (mean) and "NAME ci95" with full precision, so the file
// can be read back without parsing "±".
func (t *Table) WriteCSV(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	tw := table.NewWriter()
	var hdr table.Row
	for j, c := range t.Columns {
		hdr = append(hdr, c)
		if t.valueColumn(j) {
			hdr = append(hdr, c+" ci95")
		}
	}
	tw.AppendHeader(hdr)
	for i := range t.Rows {
		var row table.Row
		for j := range t.Columns {
			c := t.cell(i, j)
			if !t.valueColumn(j) {
				row = append(row, c.Text)
				continue
			}
			if c.Value == nil {
				row = append(row, c.Text, "")
				continue
			}
			row = append(row, strconv.FormatFloat(c.Value.Mean, 'g', -1, 64), strconv.FormatFloat(c.Value.CI95, 'g', -1, 64))
		}
		tw.AppendRow(row)
	}
	return writeString(w, tw.RenderCSV())
}
