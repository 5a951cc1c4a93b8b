// Package reports turns measured values into publication-ready output. It is
// pure rendering: every function writes to an io.Writer and does no file or
// network I/O of its own, so experiments decide where results go and tests
// compare output with golden files in testdata/.
//
// Its parts:
//   - statistics (Summarize): mean, sample standard deviation, 95% confidence
//     interval from Student's t, percentiles (montanaflynn/stats, gonum's
//     distuv for the t quantile);
//   - verdicts (inference.go; by kind difference.go, trend.go, interval.go,
//     ratio.go, equivalence.go): checks that judge a claim holds, does not
//     hold or inconclusive by the rules below;
//   - tables (Table): a title, columns and rows of cells, where a cell is text
//     or a "mean ± CI" value; rendered as terminal text, Markdown, CSV, HTML
//     (go-pretty; WriteTextWidth wraps to a terminal's width) and LaTeX
//     booktabs (our own small writer, compiled by pdflatex in the tests:
//     \label, numbers right-aligned, the CI and notes in the caption, shrunk
//     to the line width when wider, long tables split into parts, "A^cont"
//     set as math);
//   - figures (LinePlot in plot.go, TimeSeriesPlot in timeseries.go, axes and
//     ticks in axes.go, writing in figure.go): gonum/plot line plots with 95%
//     CI error bars over an x axis, one line per series, and time-series plots,
//     in Okabe and Ito's colour-blind-safe palette with distinct markers, the
//     legend beside the axes, tick labels that never repeat and a log x axis
//     when x spans two orders of magnitude; no title or caption inside the
//     image: CaptionText (what the error bars are, n) goes beside it as .txt
//     and .tex (WriteCaptionText, WriteFigureTeX); written as SVG, PDF or 300
//     dpi PNG at one- or two-column size (FigureFiles lists the set experiments
//     write);
//   - progress (Progress, Meter): run i of N, phase with a countdown and an
//     ETA for long work, as a go-pretty bar on a terminal or plain lines.
//     Meter is the one type here that keeps state over time; it still only
//     writes to the io.Writer it is given.
//
// # Verdicts
//
// One convention decides every check kind: Alpha = 0.05 two-sided, that is
// each one-sided test at OneSided = 0.025, which is the same as the
// two-sided 95% confidence interval lying wholly on one side of a
// boundary. Every verdict line prints that 95% interval, so a check that
// holds never shows an interval reaching its boundary:
//
//   - difference ("A > B"): Welch's t-test for independent units, the
//     paired t-test when both sides are the same units (graph experiments
//     run every series on the same graphs); holds when the Holm-adjusted
//     one-sided p of the claimed direction is < 0.025 (Holm over the
//     experiment's difference checks), does not hold when that of the
//     opposite direction is; the printed p is the one that decided;
//   - threshold ("the mean / ratio is above, below or within a bound"): the
//     95% CI of the mean (Student's t), of a ratio of means (delta method on
//     the log scale) or of paired ratios (Student's t on the logs) wholly
//     inside the band holds, wholly outside does not hold; the printed p is
//     the rule's own: the larger one-sided p against the band's bounds, or
//     for "does not hold" the one-sided p of lying beyond the bound crossed
//     (the two-period crossover ratio prints none);
//   - trend ("y rises with x"): the 95% CI of Spearman's rho (Fisher z,
//     standard error sqrt(1.06/(n-3))) wholly on the claimed side of 0 (or
//     inside the claimed band); the printed p is that rule's own (Fisher z
//     against the bound; exact permutation p for a perfect rank order);
//   - equivalence (a claim of no or of a small effect, with the margin
//     stated in the claim): the two one-sided tests (TOST, Schuirmann 1987)
//     against the margin, i.e. the 95% CI wholly inside it holds and wholly
//     outside does not hold; the printed p is the TOST p, or for "does not
//     hold" the one-sided p of lying beyond the margin. A difference test
//     can never support "no effect"; this can;
//   - exact (a universal statement): one counter-example refutes it.
//
// Threshold, trend and equivalence checks are interval rules, each at the
// common 95% level and not multiplicity-corrected; Holm covers the
// difference checks, the family of hypothesis tests of an experiment.
//
// Minimum n: no check decides on fewer than MinUnits = 3 units per side
// (pairs when paired), the team's rule of at least 3 independent units;
// two units give one degree of freedom and two equal units a zero spread.
// A trend needs MinTrendPoints = 5 points: below that even a perfect rank
// order is not significant (exact permutation p 1/n! = 1/24 > 0.025 at n
// = 4). Samples constant up to floating-point rounding (relative 1e-12,
// e.g. a mean of 0.1s that is 0.1 + 1.39e-17) are decided exactly: equal
// means are no difference, never a significant one.
package reports
