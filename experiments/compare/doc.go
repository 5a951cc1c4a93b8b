// Package compare is the domain of `stormlab compare`: it reads two results
// folders (raw.csv of experiments, or run.json of `stormlab run --out`),
// pairs their values by experiment, series, x and metric, tests every pair
// and names a verdict per row, and lists what one side has and the other
// lacks. The command in cmd/stormlab only parses flags and prints.
//
// Each run's validity is read from the folder (run.json "validity", raw.csv's
// validity and reasons columns), never judged again here: an invalid run adds
// no value to any row, so the gate never counts it (a cell whose new runs are
// all invalid is missing, which fails the gate), and it is listed with its
// reasons under the output; a suspect run is kept, counted per row in an
// extra column, and listed.
//
// Values are counted in the experiment's statistical unit, as its
// manifest.json records it (metric.UnitRun, metric.UnitInstance): under
// "instance" each side's repetitions on one graph are averaged into one
// value, and a row whose sides hold the same instances is tested pair by
// pair (paired t-test on the logs of the per-instance means; units.go).
// A folder that records no unit takes the other side's; when neither does,
// every row counts as a run, with a note. docs/statistics.md states the rule.
//
// A metric's direction comes from the registry (reports/metric); a metric
// not in it is shown as "untested", never dropped. A nightly gate fails on a
// significant regression beyond the threshold, on a significant change of a
// metric that should not change, and on any experiment, series, cell or
// metric the base has and the new side lacks (a crashed experiment must not
// pass).
//
// # Why a moderated t-test
//
// A nightly compares tens of series with about 5 runs a side and must keep
// false nights rare, so p-values are Holm-corrected (family-wise 5%). With a
// per-series Welch test, 5 runs a side leave about 7.5 degrees of freedom
// and the Holm threshold for 42 series (0.05/42, two-sided) needs |t| above
// 5.1, while a 25% throughput drop at a run-to-run CV of 8% (3 sigma per
// run) gives t of about 5.6 on average: Welch + Holm misses many such
// regressions (TestGatePower logs how many). The runs of one metric share
// their noise, so the series' variances are estimated together: on log values (a common CV is a common
// variance there, whatever each series' level), each series' variance is
// shrunk toward the metric's pooled variance by the empirical Bayes rule of
// moderated t-tests (Smyth, "Linear models and empirical Bayes methods for
// assessing differential expression in microarray experiments", 2004;
// limma's eBayes). The prior's degrees of freedom d0 are fitted from the
// spread of the variances: equal CVs give d0 = infinity (full pooling, a
// near-normal test), unequal ones a small d0 (close to each series' own
// test), so a noisy series does not borrow a quiet one's variance.
// Benjamini-Hochberg over per-series Welch tests was not chosen: it bounds
// the false discovery rate, not false nights, and it keeps Welch's few
// degrees of freedom, so in the same simulation it still falls short of the
// power and lets through more false nights than Holm. More runs a night were not chosen: they cost
// cluster time the pooled variance gets for free. TestGatePower simulates
// the 42-series night and checks power >= 90% and false nights <= 1 in 10;
// TestGateFalseNightsUnequalCV checks the false nights when the series'
// CVs differ 16-fold.
//
// Rows with fewer than 3 series to pool, or values <= 0 (log undefined),
// use Welch's t-test as the experiments' verdicts do (reports.Welch).
package compare
