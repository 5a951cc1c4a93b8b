package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/internal/golden"
)

// sampleTable has text and value columns, a short row, a value with no
// interval and characters that LaTeX and HTML must escape.
func sampleTable() *Table {
	t := &Table{Title: "Cut rate & balance (k=3)", Columns: []string{"algorithm", "Mul", "cut_rate", "std"}}
	t.AddRow(Text("kpart"), Text("0"), Value(Summary{N: 10, Mean: 0.41234, CI95: 0.0213}), Value(Summary{N: 10, Mean: 152.6, CI95: 17.25}))
	t.AddRow(Text("kpart_5%"), Text("5"), Value(Summary{N: 10, Mean: 0.4671, CI95: 0.0042}), Number(12.5))
	t.AddRow(Text("m<part>"), Text("-"))
	return t
}

func TestTableRenderersGolden(t *testing.T) {
	for _, c := range []struct {
		file   string
		render func(*Table, *bytes.Buffer) error
	}{
		{"table.txt", func(tb *Table, b *bytes.Buffer) error { return tb.WriteText(b) }},
		{"table.md", func(tb *Table, b *bytes.Buffer) error { return tb.WriteMarkdown(b) }},
		{"table.csv", func(tb *Table, b *bytes.Buffer) error { return tb.WriteCSV(b) }},
		{"table.html", func(tb *Table, b *bytes.Buffer) error { return tb.WriteHTML(b) }},
		{"table.tex", func(tb *Table, b *bytes.Buffer) error { return tb.WriteLaTeX(b) }},
	} {
		t.Run(c.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := c.render(sampleTable(), &b); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "testdata/"+c.file, b.Bytes())
		})
	}
}

func TestCellString(t *testing.T) {
	for _, c := range []struct {
		cell Cell
		want string
	}{
		{Value(Summary{Mean: 0.41234, CI95: 0.0213}), "0.412 ± 0.021"}, // CI 2 sig. digits -> 3 decimals
		{Value(Summary{Mean: 152.6, CI95: 17.25}), "153 ± 17"},
		{Value(Summary{Mean: 3, CI95: 1.96324}), "3.0 ± 2.0"},
		{Number(12.5), "12.5"},
		{Number(0.123456), "0.1235"},
		{Text("x"), "x"},
	} {
		if got := c.cell.String(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.cell, got, c.want)
		}
	}
}

func TestEscapeLaTeX(t *testing.T) {
	in := `a_b & 5% $x$ #1 {y} ~ ^ \ ±`
	want := `a\_b \& 5\% \$x\$ \#1 \{y\} \textasciitilde{} \textasciicircum{} \textbackslash{} $\pm$`
	if got := EscapeLaTeX(in); got != want {
		t.Errorf("EscapeLaTeX(%q) = %q, want %q", in, got, want)
	}
}

func TestTableErrors(t *testing.T) {
	var b bytes.Buffer
	if err := (&Table{Title: "empty"}).WriteText(&b); err == nil {
		t.Error("table without columns rendered")
	}
	long := &Table{Columns: []string{"a"}, Rows: [][]Cell{{Text("1"), Text("2")}}}
	for name, f := range map[string]func() error{
		"text": func() error { return long.WriteText(&b) }, "md": func() error { return long.WriteMarkdown(&b) },
		"csv": func() error { return long.WriteCSV(&b) }, "html": func() error { return long.WriteHTML(&b) },
		"tex": func() error { return long.WriteLaTeX(&b) },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "row 0") {
			t.Errorf("%s: long row gave %v, want an error naming row 0", name, err)
		}
	}
}
