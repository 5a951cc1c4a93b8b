package reports

import (
	"fmt"
	"io"
	"strings"
)

// WriteLaTeX renders the table as a LaTeX table with booktabs rules
// (\usepackage{booktabs}). go-pretty has no LaTeX renderer, so this is a
// small writer of our own. Text is escaped; value cells become
// "$mean \pm ci$"; value columns are right-aligned, text columns left.
func (t *Table) WriteLaTeX(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	var b strings.Builder
	align := make([]byte, len(t.Columns))
	for j := range t.Columns {
		align[j] = 'l'
		if t.valueColumn(j) {
			align[j] = 'r'
		}
	}
	b.WriteString("\\begin{table}[htbp]\n  \\centering\n")
	if t.Title != "" {
		fmt.Fprintf(&b, "  \\caption{%s}\n", EscapeLaTeX(t.Title))
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

// EscapeLaTeX escapes the characters that are special in LaTeX text mode.
func EscapeLaTeX(s string) string { return latexEscaper.Replace(s) }
