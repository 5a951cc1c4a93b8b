package reports

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// CICaption is what a table's "±" means; captions of tables with intervals
// end with it.
const CICaption = "Values are mean ± half width of the 95% confidence interval of the mean (Student's t)."

// LaTeXPreamble lists the packages a table from WriteLaTeX needs.
const LaTeXPreamble = "\\usepackage{booktabs}\n\\usepackage{graphicx}\n"

// wideColumns is the number of columns from which a table spans both
// columns of a two-column paper (table*).
const wideColumns = 7

// headerLine is the longest header line before it is wrapped.
const headerLine = 14

// maxLaTeXRows is the most rows one LaTeX table float holds: at \small
// about 40 rows fill a page of a two-column paper; a longer table is split
// into parts ("part 2 of 4" in the caption), each a float of its own.
const maxLaTeXRows = 36

// WriteLaTeX renders the table as LaTeX tables with booktabs rules that
// pdflatex compiles (it needs LaTeXPreamble; a comment on the first line
// says so). go-pretty has no LaTeX renderer, so this is a small writer of
// our own. Text is escaped (EscapeLaTeX); value cells become
// "$mean \pm ci$"; numeric columns are right-aligned, text columns left;
// long headers wrap over lines. The tabular is set \small and shrunk to
// the line width only when wider (\resizebox); a table of wideColumns or
// more columns is a table* (the text width of a two-column paper); more
// than maxLaTeXRows rows are split into parts. The caption is the title,
// CICaption when a cell has an interval, then the notes; the table gets
// \label{Label} (default "tab:" and a short slug of the title), later
// parts Label-2, Label-3, ...
func (t *Table) WriteLaTeX(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	parts := max(1, (len(t.Rows)+maxLaTeXRows-1)/maxLaTeXRows)
	var b strings.Builder
	b.WriteString("% Needs \\usepackage{booktabs} and \\usepackage{graphicx} in the preamble.\n")
	for p := 0; p < parts; p++ {
		lo, hi := p*maxLaTeXRows, min((p+1)*maxLaTeXRows, len(t.Rows))
		caption, label := t.caption(), t.label()
		if parts > 1 {
			caption = fmt.Sprintf("%s (part %d of %d)", caption, p+1, parts)
			if p > 0 && label != "" {
				label = fmt.Sprintf("%s-%d", label, p+1)
			}
		}
		t.writeLaTeXPart(&b, lo, hi, caption, label)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeLaTeXPart writes rows lo..hi-1 as one table float.
func (t *Table) writeLaTeXPart(b *strings.Builder, lo, hi int, caption, label string) {
	align := make([]byte, len(t.Columns))
	for j := range t.Columns {
		align[j] = 'l'
		if t.numericColumn(j) {
			align[j] = 'r'
		}
	}
	env := "table"
	if len(t.Columns) >= wideColumns {
		env = "table*"
	}
	fmt.Fprintf(b, "\\begin{%s}[htbp]\n  \\centering\n  \\small\n", env)
	if caption != "" {
		fmt.Fprintf(b, "  \\caption{%s}\n", EscapeLaTeX(caption))
	}
	if label != "" {
		fmt.Fprintf(b, "  \\label{%s}\n", label)
	}
	b.WriteString("  \\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n")
	fmt.Fprintf(b, "  \\begin{tabular}{%s}\n    \\toprule\n", align)
	hdr := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		hdr[j] = latexHeader(c, align[j])
	}
	fmt.Fprintf(b, "    %s \\\\\n    \\midrule\n", strings.Join(hdr, " & "))
	for i := lo; i < hi; i++ {
		cells := make([]string, len(t.Columns))
		for j := range t.Columns {
			cells[j] = latexCell(t.cell(i, j))
		}
		fmt.Fprintf(b, "    %s \\\\\n", strings.Join(cells, " & "))
	}
	fmt.Fprintf(b, "    \\bottomrule\n  \\end{tabular}}\n\\end{%s}\n", env)
}

// caption is the title, CICaption when a cell has an interval, and the
// notes, one sentence after another.
func (t *Table) caption() string {
	title := strings.TrimSpace(t.Title)
	if title != "" && !strings.HasSuffix(title, ".") {
		title += "."
	}
	parts := []string{title}
	if t.hasCI() {
		parts = append(parts, CICaption)
	}
	parts = append(parts, t.Notes...)
	return strings.TrimSpace(strings.Join(parts, " "))
}

func latexCell(c Cell) string {
	if c.Value == nil {
		return EscapeLaTeX(c.Text)
	}
	m, ci := formatValue(*c.Value)
	if ci == "" {
		return "$" + m + "$"
	}
	return "$" + m + " \\pm " + ci + "$"
}

// latexHeader escapes a column header and wraps a long one into a
// one-column tabular of lines of about headerLine characters, so the
// table's width is set by its values, not by its headers.
func latexHeader(h string, align byte) string {
	words := strings.Fields(h)
	if len(h) <= headerLine || len(words) < 2 {
		return EscapeLaTeX(h)
	}
	var lines []string
	cur := ""
	for _, w := range words {
		if cur != "" && len(cur)+1+len(w) > headerLine {
			lines = append(lines, cur)
			cur = w
			continue
		}
		cur = strings.TrimSpace(cur + " " + w)
	}
	lines = append(lines, cur)
	for i, l := range lines {
		lines[i] = EscapeLaTeX(l)
	}
	return fmt.Sprintf("\\begin{tabular}[b]{@{}%c@{}}%s\\end{tabular}", align, strings.Join(lines, "\\\\"))
}

var latexEscaper = strings.NewReplacer(
	`\`, `\textbackslash{}`,
	`&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`,
	`~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	`<=`, `$\le$`, `>=`, `$\ge$`,
	`<`, `\textless{}`, `>`, `\textgreater{}`,
	`±`, `$\pm$`, `≤`, `$\le$`, `≥`, `$\ge$`, `×`, `$\times$`,
	`—`, `---`, `–`, `--`, `…`, `\dots{}`, `’`, `'`, `“`, "``", `”`, "''",
)

// superscript finds the text-mode powers EscapeLaTeX sets as math:
// "A^cont" (a word) and "n^(2/c)" (a bracketed expression).
var superscript = regexp.MustCompile(`([A-Za-z0-9])\^(\(([0-9A-Za-z/+\-* ]+)\)|[A-Za-z]+)`)

// doubleQuoted finds "text" in ASCII double quotes, set as “text”.
var doubleQuoted = regexp.MustCompile(`"([^"]*)"`)

// label is Label, or "tab:" and a slug of the title's first few words
// ("" without either).
func (t *Table) label() string {
	if t.Label != "" {
		return t.Label
	}
	const maxSlug = 32
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(t.Title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if b.Len() > 0 && !dash {
			if b.Len() >= maxSlug {
				break
			}
			b.WriteByte('-')
			dash = true
		}
	}
	slug := strings.TrimSuffix(b.String(), "-")
	if slug == "" {
		return ""
	}
	return "tab:" + slug
}

// EscapeLaTeX makes s safe in LaTeX text mode: special characters are
// escaped, "quotes" become “quotes”, "<=", ">=", "±", "×" and powers such as "A^cont" or "n^(2/c)"
// become math ($A^{\mathrm{cont}}$, $n^{2/c}$), and typographic Unicode
// that pdflatex lacks is replaced.
func EscapeLaTeX(s string) string {
	s = doubleQuoted.ReplaceAllString(s, "``$1''")
	var b strings.Builder
	last := 0
	for _, m := range superscript.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(latexEscaper.Replace(s[last:m[2]]))
		base := s[m[2]:m[3]]
		if m[6] >= 0 { // bracketed expression: math as is
			fmt.Fprintf(&b, "$%s^{%s}$", base, s[m[6]:m[7]])
		} else {
			fmt.Fprintf(&b, "$%s^{\\mathrm{%s}}$", base, s[m[4]:m[5]])
		}
		last = m[1]
	}
	b.WriteString(latexEscaper.Replace(s[last:]))
	return b.String()
}
