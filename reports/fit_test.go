package reports

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// summaryLike is a suite summary's table: a citation, a long clause, and
// output paths with no space to wrap at.
func summaryLike() *Table {
	t := &Table{Title: "default suite: 5 experiments, 2 edges each way", Columns: []string{"experiment", "reproduces", "profile", "rows",
		"paper claims: holds / not / inconclusive (this project's)", "sanity checks holding", "output"}}
	for _, name := range []string{"kpart-mul", "partition-density", "spd"} {
		t.AddRow(Text(name), Text(`Jian, Lu and Zhang, "Storm heuristic balanced graph-partition scheduling optimization method", 2018, Fig. 5`),
			Text("ci"), Textf("%d", 1100), Text("3 / 0 / 3 (1 / 0 / 0)"), Text("2/2"), Text("/home/researcher/stormlab/results/2026-12-04/"+name))
	}
	t.Notes = []string{"n counts graphs: the statistical unit of every row."}
	return t
}

// cellWords is every word of the table's cells, title, columns and notes.
func cellWords(t *Table) map[string]bool {
	set := map[string]bool{}
	add := func(s string) {
		for _, w := range strings.Fields(s) {
			set[strings.TrimRight(w, ",;:")] = true
		}
	}
	add(t.Title)
	add(strings.Join(t.Columns, " "))
	add(strings.Join(t.Notes, " "))
	for i := range t.Rows {
		for j := range t.Columns {
			add(t.cell(i, j).String())
		}
	}
	return set
}

// TestWriteTextWidthNoCutWord: at 120 and 80 columns every line fits, each
// printed word is a word of the table (none cut), no cell runs over
// maxCellLines lines (a citation was once wrapped over 13), and what moved
// under the table is there in full; Markdown and CSV keep every column.
func TestWriteTextWidthNoCutWord(t *testing.T) {
	tb := summaryLike()
	whole := cellWords(tb)
	for _, width := range []int{120, 80} {
		var b bytes.Buffer
		if err := tb.WriteTextWidth(&b, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for i, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line %d is %d columns: %s", width, i+1, n, l)
			}
		}
		for _, w := range strings.FieldsFunc(out, func(r rune) bool { return r == ' ' || r == '\n' || (r >= 0x2500 && r <= 0x257F) }) {
			if w = strings.TrimRight(w, ",;:"); !whole[w] && !strings.HasPrefix(w, "[") {
				t.Errorf("width %d: %q is not a word of the table (cut?):\n%s", width, w, out)
			}
		}
		if !strings.Contains(out, "/home/researcher/stormlab/results/2026-12-04/partition-density\n") {
			t.Errorf("width %d: the output path is not under the table in full:\n%s", width, out)
		}
		// The column that frees the most room moves first: the paths, not the claim counts.
		if !strings.Contains(out, "│ 3 / 0 / 3 (1 / 0 / 0)") {
			t.Errorf("width %d: the claim counts left the grid:\n%s", width, out)
		}
		if !strings.Contains(out, "n counts graphs") {
			t.Errorf("width %d: notes missing:\n%s", width, out)
		}
		// The body, under the last "├" rule: 3 rows of at most maxCellLines lines.
		body := out[strings.LastIndex(out, "├"):strings.Index(out, "└")]
		if n := strings.Count(body, "\n│"); n > 3*maxCellLines {
			t.Errorf("width %d: %d lines for 3 rows:\n%s", width, n, out)
		}
	}
	var md, csv bytes.Buffer
	if err := tb.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := tb.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{md.String(), csv.String()} {
		if !strings.Contains(s, "/home/researcher/stormlab/results/2026-12-04/spd") || strings.Contains(s, "[1]") {
			t.Errorf("Markdown/CSV lost a column or got a footnote:\n%s", s)
		}
	}
}

// TestTitleWordsNotCut: a title longer than a narrow grid wraps at spaces
// (go-pretty alone cut "2 edges" into "2 edge" / "s").
func TestTitleWordsNotCut(t *testing.T) {
	tb := &Table{Title: "kpart, k=4, 4 vertices, 2 edges, every vertex alone", Columns: []string{"p", "v"}}
	tb.AddRow(Text("0"), Text("1"))
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text":  func(b *bytes.Buffer) error { return tb.WriteText(b) },
		"width": func(b *bytes.Buffer) error { return tb.WriteTextWidth(b, 30) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasSuffix(strings.TrimRight(l, " │"), "edge") {
				t.Errorf("%s: title word cut:\n%s", name, b.String())
			}
		}
		if !strings.Contains(b.String(), "2 edges") && !strings.Contains(b.String(), "edges,") {
			t.Errorf("%s: title lacks its words:\n%s", name, b.String())
		}
	}
}

// TestWrapWords: spaces between words stay as written, no word is cut,
// and a word longer than a line breaks after a '/'.
func TestWrapWords(t *testing.T) {
	cases := []struct{ in, indent, want string }{
		{"cut_rate 0.5  std 10  max_dev 0.2", "  ", "cut_rate 0.5  std 10\n  max_dev 0.2"},
		{"  deadline: no node has room", "    ", "  deadline: no node\n    has room"},
		{"out: /a/bb/ccc/dddd/eeeee/f", "", "out:\n/a/bb/ccc/dddd/\neeeee/f"},
	}
	for _, c := range cases {
		if got := WrapWords(c.in, 20, c.indent); got != c.want {
			t.Errorf("WrapWords(%q, 20, %q) = %q, want %q", c.in, c.indent, got, c.want)
		}
	}
}
