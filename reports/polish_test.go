package reports

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"gonum.org/v1/plot"
)

// wideTable is a nine-column table with long headers, long series names
// and a note, like the K-PART experiments' tables.
func wideTable() *Table {
	cols := []string{"algorithm", "k", "n graphs", "cut rate", "std dev of subset weights", "max deviation rate",
		"largest subset / expected weight", "empty subsets", "cut / optimum cut"}
	t := &Table{Title: `partition-k (Jian, Lu and Zhang, "Storm heuristic balanced graph-partition scheduling optimization method", 2018, Fig. 6): A^cont and n^(2/c)`,
		Columns: cols, Notes: []string{"* mlfm (max dev <= 0.05) breaks its stated bound at x = 24: largest max dev 0.958."}}
	for _, name := range []string{"optimum (exact, max dev <= 0.05)", "K-PART Mul=5", "mlfm (max dev <= 0.05) *"} {
		row := []Cell{Text(name), Text("24"), Text("10")}
		for j := 0; j < 6; j++ {
			row = append(row, Value(Summary{N: 10, Mean: 1234.5678 * float64(j+1), CI95: 12.345}))
		}
		t.AddRow(row...)
	}
	return t
}

// TestLaTeXCompiles compiles a wide table in a two-column article and in a
// one-column one: no error, no overfull box (it fits its width).
func TestLaTeXCompiles(t *testing.T) {
	if _, err := exec.LookPath("pdflatex"); err != nil {
		t.Skip("pdflatex not installed (.ci/setup.sh installs texlive-latex-base and texlive-latex-recommended)")
	}
	var b bytes.Buffer
	if err := wideTable().WriteLaTeX(&b); err != nil {
		t.Fatal(err)
	}
	tex := b.String()
	for _, want := range []string{`\begin{table*}`, `$A^{\mathrm{cont}}$`, `$n^{2/c}$`, `$\le$ 0.05`, `\resizebox`} {
		if !strings.Contains(tex, want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, tex)
		}
	}
	if strings.Contains(tex, "textasciicircum") {
		t.Errorf("a power printed literally:\n%s", tex)
	}
	if l := wideTable().label(); len(l) > 40 {
		t.Errorf("label %q is %d characters long", l, len(l))
	}
	for _, class := range []string{"[twocolumn]{article}", "{article}"} {
		dir := t.TempDir()
		doc := "\\documentclass" + class + "\n" + LaTeXPreamble + "\\begin{document}\n" + tex + "\\end{document}\n"
		os.WriteFile(filepath.Join(dir, "doc.tex"), []byte(doc), 0o644)
		cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: pdflatex: %v\n%s", class, err, out)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "doc.log"))
		if strings.Contains(string(log), "Overfull \\hbox") {
			t.Errorf("%s: the table overflows:\n%s", class, log)
		}
	}
}

func TestEscapeLaTeXMath(t *testing.T) {
	for in, want := range map[string]string{
		"A^cont's cost":           `$A^{\mathrm{cont}}$'s cost`,
		"A^disc (spd)":            `$A^{\mathrm{disc}}$ (spd)`,
		"group size 2 n^(2/c)/x":  `group size 2 $n^{2/c}$/x`,
		"max dev <= 0.05, x >= 1": `max dev $\le$ 0.05, x $\ge$ 1`,
		"a ^ b":                   `a \textasciicircum{} b`,
		"10% — 5×":                `10\% --- 5$\times$`,
		`Jian, "Storm", 2018`:     "Jian, ``Storm'', 2018",
	} {
		if got := EscapeLaTeX(in); got != want {
			t.Errorf("EscapeLaTeX(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDistinctTicks: gonum's default labels for ticks 0.05 apart near 1
// repeat ("1, 1.1, 1.1, 1.1"); ours are distinct and print each value.
func TestDistinctTicks(t *testing.T) {
	for _, r := range [][2]float64{{0.98, 1.17}, {0.4, 0.47}, {0, 1}, {-0.2, 0.2}, {100, 2000}, {1.0001, 1.0009}} {
		ticks := distinctTicks{plot.DefaultTicks{}}.Ticks(r[0], r[1])
		seen := map[string]bool{}
		labels := 0
		for _, tk := range ticks {
			if tk.Label == "" {
				continue
			}
			labels++
			if seen[tk.Label] {
				t.Errorf("range %v: label %q repeats in %+v", r, tk.Label, ticks)
			}
			seen[tk.Label] = true
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(tk.Value)) {
				t.Errorf("range %v: label %q for tick %v", r, tk.Label, tk.Value)
			}
			if tk.Label == "-0" || strings.HasPrefix(tk.Label, "-0.0") && v == 0 {
				t.Errorf("range %v: negative zero label %q", r, tk.Label)
			}
		}
		if labels < 2 {
			t.Errorf("range %v: %d labels", r, labels)
		}
	}
}

// TestLogX: x from 10 to 1000 gets a log axis; 2..24 keeps a linear one.
func TestLogX(t *testing.T) {
	lp := &LinePlot{XLabel: "tasks n", YLabel: "ratio", Series: []Series{{Name: "spd", X: []float64{10, 30, 100, 300, 1000},
		Y: []Summary{{N: 8, Mean: 1.2}, {N: 8, Mean: 1.3}, {N: 8, Mean: 1.4}, {N: 8, Mean: 1.5}, {N: 8, Mean: 1.6}}}}}
	p, err := lp.Plot()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.X.Scale.(plot.LogScale); !ok || p.X.Min <= 0 {
		t.Errorf("x scale %T from %v: want a log scale above 0", p.X.Scale, p.X.Min)
	}
	if p, _ = samplePlot().Plot(); func() bool { _, ok := p.X.Scale.(plot.LogScale); return ok }() {
		t.Error("x 0..2 got a log scale")
	}
}

// TestFigureWithoutTitleOrCaption: neither the title nor the caption is
// drawn into the image; CaptionText carries both and n with its unit.
func TestFigureWithoutTitleOrCaption(t *testing.T) {
	lp := samplePlot()
	lp.Unit = "graphs"
	var b bytes.Buffer
	if err := lp.Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Cut rate vs Mul") || strings.Contains(b.String(), "Error bars") {
		t.Errorf("title or caption drawn into the figure")
	}
	want := "Cut rate vs Mul. " + ErrorBarCaption + "; n = 10 graphs per point."
	if got := lp.CaptionText(); got != want {
		t.Errorf("caption %q, want %q", got, want)
	}
	b.Reset()
	if err := WriteFigureTeX(&b, "cut_rate", "A^cont bound; 5% of runs", "fig:x"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`\includegraphics[width=\linewidth]{cut_rate}`, `\caption{$A^{\mathrm{cont}}$ bound; 5\% of runs}`, `\label{fig:x}`} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("figure .tex lacks %q:\n%s", w, b.String())
		}
	}
}

// TestWriteTextWidth: a nine-column table fits 120 and 80 columns.
func TestWriteTextWidth(t *testing.T) {
	for _, width := range []int{120, 80} {
		var b bytes.Buffer
		if err := wideTable().WriteTextWidth(&b, width); err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line %d is %d wide: %s", width, i, n, l)
			}
		}
		if !strings.Contains(b.String(), "breaks its stated bound") {
			t.Errorf("notes missing:\n%s", b.String())
		}
	}
}

// TestLaTeXLongTableSplit: 80 rows become 3 floats of at most
// maxLaTeXRows rows, "part i of 3" in each caption, labels tab:x, tab:x-2,
// tab:x-3; pdflatex sets them without a float too large for the page.
func TestLaTeXLongTableSplit(t *testing.T) {
	tb := &Table{Title: "long", Label: "tab:x", Columns: []string{"k", "cut rate"}}
	for i := 0; i < 80; i++ {
		tb.AddRow(Textf("%d", i), Value(Summary{N: 10, Mean: 0.5, CI95: 0.01}))
	}
	var b bytes.Buffer
	if err := tb.WriteLaTeX(&b); err != nil {
		t.Fatal(err)
	}
	tex := b.String()
	for _, want := range []string{"(part 1 of 3)", "(part 3 of 3)", `\label{tab:x}`, `\label{tab:x-2}`, `\label{tab:x-3}`} {
		if !strings.Contains(tex, want) {
			t.Errorf("LaTeX lacks %q", want)
		}
	}
	if n := strings.Count(tex, `\begin{table}`); n != 3 {
		t.Errorf("%d floats, want 3", n)
	}
	if _, err := exec.LookPath("pdflatex"); err != nil {
		t.Skip("pdflatex not installed (.ci/setup.sh installs texlive-latex-base and texlive-latex-recommended)")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "doc.tex"), []byte("\\documentclass[twocolumn]{article}\n"+LaTeXPreamble+"\\begin{document}\n"+tex+"\\end{document}\n"), 0o644)
	cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdflatex: %v\n%s", err, out)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "doc.log")); strings.Contains(string(log), "Float too large") {
		t.Errorf("a part is too tall for the page:\n%s", log)
	}
}
