package reports

import (
	"fmt"
	"io"
	"strings"
)

// CICaption is what a table's "±" means; captions of tables with intervals
// end with it.
const CICaption = "Values are mean ± half width of the 95% confidence interval of the mean (Student's t)."

// WriteLaTeX renders the table as a LaTeX table with booktabs rules; a
// comment on its first line says it needs \usepackage{booktabs}. go-pretty
// has no LaTeX renderer, so this is a small writer of our own. Text is
// escaped; value cells become "$mean \pm ci$"; numeric columns are
// right-aligned, text columns left. The caption is the title, followed by
// CICaption when a cell has an interval, and the table gets \label{Label}
// (default "tab:" and the title in lower-case letters and digits).
func (t *Table) WriteLaTeX(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	var b strings.Builder
	align := make([]byte, len(t.Columns))
	for j := range t.Columns {
		align[j] = 'l'
		if t.numericColumn(j) {
			align[j] = 'r'
		}
	}
	b.WriteString("% Needs \\usepackage{booktabs} in the preamble (\\toprule, \\midrule, \\bottomrule).\n")
	b.WriteString("\\begin{table}[htbp]\n  \\centering\n")
	caption := t.Title
	if t.hasCI() {
		caption = strings.TrimSpace(caption + " " + CICaption)
	}
	if caption != "" {
		fmt.Fprintf(&b, "  \\caption{%s}\n", EscapeLaTeX(caption))
	}
	if l := t.label(); l != "" {
		fmt.Fprintf(&b, "  \\label{%s}\n", l)
	}
	fmt.Fprintf(&b, "  \\begin{tabular}{%s}\n    \\toprule\n", align)
	hdr := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		hdr[j] = EscapeLaTeX(c)
	}
	fmt.Fprintf(&b, "    %s \\\\\n    \\midrule\n", strings.Join(hdr, " & "))
	for i := range t.Rows {
		cells := make([]string, len(t.Columns))
		for j := range t.Columns {
			c := t.cell(i, j)
			if c.Value == nil {
				cells[j] = EscapeLaTeX(c.Text)
				continue
			}
			m, ci := formatValue(*c.Value)
			if ci == "" {
				cells[j] = "$" + m + "$"
			} else {
				cells[j] = "$" + m + " \\pm " + ci + "$"
			}
		}
		fmt.Fprintf(&b, "    %s \\\\\n", strings.Join(cells, " & "))
	}
	b.WriteString("    \\bottomrule\n  \\end{tabular}\n\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

var latexEscaper = strings.NewReplacer(
	`\`, `\textbackslash{}`,
	`&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`,
	`~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	`<`, `\textless{}`, `>`, `\textgreater{}`,
	`±`, `$\pm$`,
)

// label is Label, or "tab:" and a slug of the title ("" without either).
func (t *Table) label() string {
	if t.Label != "" {
		return t.Label
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(t.Title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if b.Len() > 0 && !dash {
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

// EscapeLaTeX escapes the characters that are special in LaTeX text mode.
func EscapeLaTeX(s string) string { return latexEscaper.Replace(s) }
