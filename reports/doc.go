// Package reports turns measured values into publication-ready output. It is
// pure rendering: every function writes to an io.Writer and does no file or
// network I/O of its own, so experiments decide where results go and tests
// compare output with golden files in testdata/.
//
// Its parts:
//   - statistics (Summarize): mean, sample standard deviation, 95% confidence
//     interval from Student's t, percentiles (montanaflynn/stats, gonum's
//     distuv for the t quantile);
//   - tables (Table): a title, columns and rows of cells, where a cell is text
//     or a "mean ± CI" value; rendered as terminal text, Markdown, CSV, HTML
//     (go-pretty; WriteTextWidth wraps to a terminal's width) and LaTeX
//     booktabs (our own small writer, compiled by pdflatex in the tests:
//     \label, numbers right-aligned, the CI and notes in the caption, shrunk
//     to the line width when wider, long tables split into parts, "A^cont"
//     set as math);
//   - figures (LinePlot, TimeSeriesPlot): gonum/plot line plots with 95% CI
//     error bars over an x axis, one line per series, and time-series plots,
//     in Okabe and Ito's colour-blind-safe palette with distinct markers, the
//     legend beside the axes, tick labels that never repeat and a log x axis
//     when x spans two orders of magnitude; no title or caption inside the
//     image: CaptionText (what the error bars are, n) goes beside it as .txt
//     and .tex (WriteCaptionText, WriteFigureTeX); written as SVG, PDF or
//     300 dpi PNG at one- or two-column size (FigureFiles lists the set
//     experiments write);
//   - progress (Progress, Meter): run i of N, phase with a countdown and an
//     ETA for long work, as a go-pretty bar on a terminal or plain lines.
//     Meter is the one type here that keeps state over time; it still only
//     writes to the io.Writer it is given.
package reports
