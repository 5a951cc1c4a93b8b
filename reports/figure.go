package reports

import (
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure sizes of a two-column paper (IEEE/ACM: 3.5 in column, 7.16 in
// page width), and the resolution of PNG output.
const (
	OneColumnWidth  = 3.5 * vg.Inch
	OneColumnHeight = 2.6 * vg.Inch
	TwoColumnWidth  = 7.16 * vg.Inch
	TwoColumnHeight = 3 * vg.Inch
	DPI             = 300
	// DefaultWidth and DefaultHeight are the one-column size.
	DefaultWidth  = OneColumnWidth
	DefaultHeight = OneColumnHeight
)

// Formats lists the figure formats WritePlot accepts.
var Formats = []string{"png", "svg", "pdf"}

// FigureFile is one file of a figure: Suffix goes after the metric name.
type FigureFile struct {
	Suffix        string
	Format        string
	Width, Height vg.Length
}

// FigureFiles are the files every figure is written as: SVG (the HTML page
// inlines it), PDF and 300 dpi PNG at one-column size, and PDF and PNG at
// two-column size ("-2col").
var FigureFiles = []FigureFile{
	{".svg", "svg", OneColumnWidth, OneColumnHeight},
	{".pdf", "pdf", OneColumnWidth, OneColumnHeight},
	{".png", "png", OneColumnWidth, OneColumnHeight},
	{"-2col.pdf", "pdf", TwoColumnWidth, TwoColumnHeight},
	{"-2col.png", "png", TwoColumnWidth, TwoColumnHeight},
}

// WritePlot draws p (its legend where p puts it) on a canvas of the given
// size and format and writes it to w.
func WritePlot(w io.Writer, p *plot.Plot, format string, width, height vg.Length) error {
	c, err := newCanvas(format, width, height)
	if err != nil {
		return err
	}
	p.Draw(draw.New(c))
	return writeCanvas(w, c, format)
}

// legendRightShare is the widest a legend beside the axes may be, as a
// share of the figure's width; a wider one goes below the axes in columns.
const legendRightShare = 0.3

// writeFigure draws p with its legend outside the data, and writes it to w in format ("png" at 300 dpi, "svg"
// or "pdf"). A legend narrow enough goes to the right of the axes; a wider
// one goes below them, in as many columns as fit, and the figure grows by
// its height (the width is what a column fixes, and the axes keep theirs).
// SVG output is deterministic (fonts are referenced, not embedded); PNG
// depends on font rasterisation; PDF embeds its fonts.
func writeFigure(w io.Writer, p *plot.Plot, entries []legendEntry, format string, width, height vg.Length) error {
	const margin = vg.Length(4)
	// A label wider than the figure was cut at both ends; it takes two lines or more instead.
	p.X.Label.Text = wrapLabel(p.X.Label.TextStyle, p.X.Label.Text, 0.8*width-2*margin) // centred on the axes, not the figure
	p.Y.Label.Text = wrapLabel(p.Y.Label.TextStyle, p.Y.Label.Text, 0.9*height)
	style := p.Legend
	p.Legend = plot.NewLegend() // the plot draws none; the legend goes outside
	defer func() { p.Legend = style }()
	newLegend := func(es []legendEntry) plot.Legend {
		l := plot.NewLegend()
		l.TextStyle, l.ThumbnailWidth, l.Left, l.Top = style.TextStyle, style.ThumbnailWidth, true, true
		for _, e := range es {
			l.Add(e.name, e.thumbs...)
		}
		return l
	}
	all := newLegend(entries)
	r := all.Rectangle(draw.Canvas{})
	colW := r.Max.X - r.Min.X + 3*margin
	right := len(entries) > 0 && colW <= vg.Length(legendRightShare)*width
	var cols, rows int
	var legH vg.Length
	if len(entries) > 0 && !right {
		cols = max(1, min(len(entries), int((width-2*margin)/colW)))
		rows = (len(entries) + cols - 1) / cols
		legH = (r.Max.Y-r.Min.Y)/vg.Length(len(entries))*vg.Length(rows) + 2*margin
		height += legH
	}
	c, err := newCanvas(format, width, height)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	bottom := vg.Length(0)
	switch {
	case len(entries) == 0:
		p.Draw(draw.Crop(dc, 0, 0, bottom, -margin)) // -margin: no title above, keep the top tick label in
	case right:
		p.Draw(draw.Crop(dc, 0, -colW, bottom, -margin))
		all.Draw(draw.Crop(dc, width-colW+margin, -margin, bottom, -margin))
	default: // below the axes: columns of equal width, filled top to bottom
		for k := 0; k < cols; k++ {
			lo, hi := k*rows, min((k+1)*rows, len(entries))
			if lo >= hi {
				break
			}
			l := newLegend(entries[lo:hi])
			x := margin + vg.Length(k)*colW
			l.Draw(draw.Crop(dc, x, -(width - x - colW), bottom, -(height - bottom - legH)))
		}
		p.Draw(draw.Crop(dc, 0, 0, bottom+legH, -margin))
	}
	return writeCanvas(w, c, format)
}

// wrapLabel breaks an axis label into lines no wider than avail in its
// font, at spaces (a word longer than avail keeps a line of its own).
func wrapLabel(st text.Style, label string, avail vg.Length) string {
	if label == "" || st.Width(label) <= avail {
		return label
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(label) {
		if line != "" && st.Width(line+" "+w) > avail {
			lines, line = append(lines, line), w
			continue
		}
		line = strings.TrimSpace(line + " " + w)
	}
	return strings.Join(append(lines, line), "\n")
}

func newCanvas(format string, width, height vg.Length) (vg.CanvasWriterTo, error) {
	switch strings.ToLower(format) {
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(DPI))}, nil
	case "svg":
		return vgsvg.New(width, height), nil
	case "pdf":
		c := vgpdf.New(width, height)
		c.EmbedFonts(true)
		return c, nil
	}
	return nil, fmt.Errorf("unknown figure format %q: use one of %s", format, strings.Join(Formats, ", "))
}

func writeCanvas(w io.Writer, c vg.CanvasWriterTo, format string) error {
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write %s: %w", format, err)
	}
	return nil
}

// WriteCaptionText writes a figure's caption as plain text (the .txt
// beside the figure).
func WriteCaptionText(w io.Writer, caption string) error {
	_, err := io.WriteString(w, strings.TrimSpace(caption)+"\n")
	return err
}

// WriteFigureTeX writes a LaTeX figure environment that includes graphic
// (a file name without extension: pdflatex picks the PDF) at the column
// width, with the caption and \label{label} (the .tex beside the figure;
// it needs \usepackage{graphicx}).
func WriteFigureTeX(w io.Writer, graphic, caption, label string) error {
	_, err := fmt.Fprintf(w, "%% Needs \\usepackage{graphicx} in the preamble.\n\\begin{figure}[htbp]\n  \\centering\n"+
		"  \\includegraphics[width=\\linewidth]{%s}\n  \\caption{%s}\n  \\label{%s}\n\\end{figure}\n",
		graphic, EscapeLaTeX(strings.TrimSpace(caption)), label)
	return err
}
