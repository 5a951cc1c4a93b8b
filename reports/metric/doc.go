// Package metric is the registry of the metrics stormlab's experiments and
// `stormlab run` write: for each, its unit, which direction is better, the
// independent unit its repetitions are drawn over and how repetitions are
// aggregated. Tables, figures, claims and `stormlab compare` read it so a
// metric means the same thing everywhere; a metric missing from it is an
// error in tests and "untested" in compare's output, never silently skipped.
package metric
