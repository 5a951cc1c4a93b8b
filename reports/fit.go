package reports

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"
)

// TextWidth is the terminal width WriteText fits: a terminal's width when
// none is known.
const TextWidth = 120

// comfortWidth is the narrowest a text column is wrapped to before whole
// columns move under the table: narrower, a citation or a description
// reads as one word a line.
const comfortWidth = 16

// layout is how a table fits a width: the columns kept in the grid, their
// widths, and the footnotes holding the columns moved under the table.
type layout struct {
	keep   []int    // indices of the columns drawn
	widths []int    // width of each kept column
	marks  []string // per row: "[n]" appended to its first cell, or ""
	notes  []string // "[n] column: text; column: text", one a row
}

// colWidths measures column j: its natural width (widest cell or header),
// its widest cell, and its floor (the longest word: text wraps at spaces only, a value
// "mean ± ci" never wraps).
func (t *Table) colWidths(j int) (natural, floor, cells int) {
	floor = longestWord(t.Columns[j])
	for i := range t.Rows {
		c := t.cell(i, j)
		s := c.String()
		cells = max(cells, text.StringWidth(s))
		if c.Value != nil {
			floor = max(floor, text.StringWidth(s))
		} else {
			floor = max(floor, longestWord(s))
		}
	}
	return max(cells, text.StringWidth(t.Columns[j])), floor, cells
}

// fit lays the table out in maxWidth columns. The widest columns wrap at
// spaces down to comfortWidth; if that is not enough, or a cell would
// still take more than maxCellLines lines, the widest text columns (never
// the first, never a numeric one) move under the table as numbered
// footnotes, full; then columns wrap down to their longest word. Only a
// table whose kept columns' longest words do not fit gets words cut.
func (t *Table) fit(maxWidth int) layout {
	n := len(t.Columns)
	nat, floor, comfy, head := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	var firstCells int // the first column's widest cell, which may get a mark
	for j := range t.Columns {
		var cells int
		nat[j], floor[j], cells = t.colWidths(j)
		if j == 0 {
			firstCells = cells
		}
		comfy[j] = min(nat[j], max(floor[j], comfortWidth))
		head[j] = max(cells, floor[j]) // the header wrapped, cells whole
	}
	moved := map[int]bool{}
	marked := firstCells + len(fmt.Sprintf(" [%d]", len(t.Rows))) // the first column with a mark
	least := make([]int, n)                                       // the narrowest without cut words or tall cells
	for j := range least {
		least[j] = min(head[j], comfy[j])
	}
	for t.gridWidth(least, moved, marked) > maxWidth {
		j := t.widestMovable(least, nat, moved)
		if j < 0 {
			break
		}
		moved[j] = true
	}
	for {
		l := t.layoutMoving(moved, [][]int{nat, head, comfy, floor}, marked, maxWidth)
		j := t.tallColumn(l, moved)
		if j < 0 {
			return l
		}
		moved[j] = true
	}
}

// maxCellLines is the most lines a wrapped cell may take in the grid;
// taller, its column moves under the table.
const maxCellLines = 4

// layoutMoving is the layout with the moved columns under the table; w
// holds the natural widths, then the limits columns shrink to in turn
// (see shrink).
func (t *Table) layoutMoving(moved map[int]bool, w [][]int, marked, maxWidth int) layout {
	var l layout
	for j := range t.Columns {
		if !moved[j] {
			l.keep = append(l.keep, j)
		}
	}
	lim := make([][]int, len(w))
	for k := range w {
		lim[k] = pick(w[k], l.keep)
	}
	if len(moved) > 0 {
		l.marks, l.notes = t.footnotes(moved)
		lim[0][0] = max(lim[0][0], marked) // the mark goes in the first column
		lim[1][0] = max(lim[1][0], marked)
		for k := 2; k < len(lim); k++ {
			lim[k][0] = min(lim[0][0], max(lim[k][0], len(fmt.Sprintf("[%d]", len(l.notes)))))
		}
	}
	l.widths = shrink(lim[0], append(lim[1:], nil), maxWidth)
	return l
}

// tallColumn is a kept movable column with a cell taller than
// maxCellLines at its width (the widest such), or -1.
func (t *Table) tallColumn(l layout, moved map[int]bool) int {
	best, bestW := -1, 0
	for k, j := range l.keep {
		if j == 0 || t.numericColumn(j) {
			continue
		}
		for i := range t.Rows {
			s := t.cell(i, j).String()
			if strings.Count(WrapWords(s, l.widths[k], ""), "\n") >= maxCellLines && l.widths[k] > bestW {
				best, bestW = j, l.widths[k]
			}
		}
	}
	return best
}

// gridWidth is the width of the grid without the moved columns, each kept
// column at w (plus the footnote mark in the first when any moved).
func (t *Table) gridWidth(w []int, moved map[int]bool, marked int) int {
	total := 1
	for j := range w {
		if !moved[j] {
			total += w[j] + 3
		}
	}
	if len(moved) > 0 {
		total += max(0, marked-w[0])
	}
	return total
}

// widestMovable is the next column of MoveFirst not yet moved, else the
// text column, other than the first, that frees the most room (the widest
// at its least width, then at its natural one); -1 when none is left.
func (t *Table) widestMovable(least, nat []int, moved map[int]bool) int {
	for _, name := range t.MoveFirst {
		if j := slices.Index(t.Columns, name); j > 0 && !moved[j] {
			return j
		}
	}
	best := -1
	for j := 1; j < len(t.Columns); j++ {
		if moved[j] || t.numericColumn(j) {
			continue
		}
		if best < 0 || least[j] > least[best] || (least[j] == least[best] && nat[j] >= nat[best]) {
			best = j
		}
	}
	return best
}

// footnotes numbers the rows with text in a moved column and writes each
// one's note: "[n] column: text; column: text".
func (t *Table) footnotes(moved map[int]bool) (marks, notes []string) {
	marks = make([]string, len(t.Rows))
	for i := range t.Rows {
		var parts []string
		for j := range t.Columns {
			if s := strings.TrimSpace(t.cell(i, j).String()); moved[j] && s != "" {
				parts = append(parts, t.Columns[j]+": "+s)
			}
		}
		if len(parts) == 0 {
			continue
		}
		marks[i] = fmt.Sprintf("[%d]", len(notes)+1)
		notes = append(notes, marks[i]+" "+strings.Join(parts, "; "))
	}
	return marks, notes
}

func pick(xs []int, idx []int) []int {
	out := make([]int, len(idx))
	for k, j := range idx {
		out[k] = xs[j]
	}
	return out
}

// shrink narrows the widest column by one until the grid fits maxWidth,
// never below the first limit, then the next (nil: 6 columns, cutting
// words: the last resort).
func shrink(widths []int, limits [][]int, maxWidth int) []int {
	const minCol = 6
	total := func() int {
		n := 3*len(widths) + 1 // "│ " before each column, " │" after the last
		for _, x := range widths {
			n += x
		}
		return n
	}
	for _, lim := range limits {
		for total() > maxWidth {
			wide := -1
			for j := range widths {
				low := minCol
				if lim != nil {
					low = max(low, lim[j])
				}
				if widths[j] > low && (wide < 0 || widths[j] > widths[wide]) {
					wide = j
				}
			}
			if wide < 0 {
				break
			}
			widths[wide]--
		}
	}
	return widths
}

// WrapWords breaks s at spaces into lines of at most width columns, the
// second and later lines starting with indent; the spaces between words
// on a line stay as written. Words are never cut, except one longer than a
// whole line, which breaks after a '/' or '-' where it can (a path), else
// at the width.
func WrapWords(s string, width int, indent string) string {
	width = max(width, 1)
	if text.StringWidth(indent) >= width/2 {
		indent = ""
	}
	var lines []string
	line, gap := "", ""
	for _, tok := range spaceRuns.FindAllString(s, -1) {
		if strings.TrimSpace(tok) == "" {
			gap = tok
			continue
		}
		switch {
		case strings.TrimSpace(line) == "":
			line += gap + tok
		case text.StringWidth(line+gap+tok) <= width:
			line += gap + tok
		default:
			lines = append(lines, line)
			line = indent + tok
		}
		gap = ""
		for text.StringWidth(line) > width {
			head, rest := cutLong(line, width)
			lines = append(lines, head)
			line = indent + rest
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// spaceRuns splits text into words and the runs of spaces between them.
var spaceRuns = regexp.MustCompile(`\s+|\S+`)

// cutLong splits a line too long for width after its last '/' or '-'
// that fits, else at width.
func cutLong(line string, width int) (head, rest string) {
	r := []rune(line)
	at := width
	for k := width - 1; k > width/2; k-- {
		if r[k] == '/' || r[k] == '-' {
			at = k + 1
			break
		}
	}
	return string(r[:at]), string(r[at:])
}
