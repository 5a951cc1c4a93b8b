// Package reports turns measured values into publication-ready output. It is
// pure rendering: every function writes to an io.Writer and does no file or
// network I/O of its own, so experiments decide where results go and tests
// compare output with golden files in testdata/.
//
// Three parts:
//   - statistics (Summarize): mean, sample standard deviation, 95% confidence
//     interval from Student's t, percentiles (montanaflynn/stats, gonum's
//     distuv for the t quantile);
//   - tables (Table): a title, columns and rows of cells, where a cell is text
//     or a "mean ± CI" value; rendered as terminal text, Markdown, CSV, HTML
//     (go-pretty) and LaTeX booktabs (our own small writer);
//   - figures (LinePlot, TimeSeriesPlot): gonum/plot line plots with 95% CI
//     error bars over an x axis, one line per series, and time-series plots,
//     written as PNG, SVG or PDF.
package reports
