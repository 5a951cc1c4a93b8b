// Package experiments holds the experiment definitions: one small file per
// experiment with a func returning *lab.Spec, which declares everything about
// it (what to vary, which schedulers, repetitions, seeds; its typed knobs
// per scale, what it needs from a cluster and why, its expected cost per
// scale; the Run producing rows, and the papers' claims with their
// statistical checks). The framework (spec types, running,
// aggregation, verdicts, output) is package experiments/lab, and its names
// are written lab.Spec, lab.Row, lab.Claim here as everywhere: this package
// is the registry. List is the explicit registry by name and Suites groups
// experiments (the "default" suite is what `make experiment` runs).
//
// Claims: every claim names its source (Cite: authors, title, year,
// figure), is a paper claim or a sanity check, and is decided by checks
// from package reports at one level, the 95% CI (Welch or, on shared
// graphs, paired t one-sided + Holm for differences, Spearman's rho with a
// Fisher-z CI for trends, a 95% CI wholly on one side for thresholds, TOST
// against a stated margin for claims of no or small effect); see
// reports/doc.go for the rules. Units: a graph
// instance (mean over its repetitions) for graph experiments,
// deterministic schedulers run once per instance; one run for cluster
// experiments.
//
// Scales (cluster experiments; `stormlab experiment --scale`, Options.Scale,
// or under go test $STORMLAB_SCALE, read by internal/testsettings): ci
// (default under go test: every cluster experiment end to end at tiny
// scale, one run per cell, every claim inconclusive), quick (3 runs per
// cell, fewer cells, verdicts), full (the papers' scale, 3 runs per cell).
// Each cluster experiment defines its own knobs per scale in its file
// (Spec.Scales).
//
// Every registered experiment is also the Go test TestExperiment/<name> in
// this package (the name `stormlab experiment list` gives), and
// `stormlab experiment NAME` runs the same Spec. Tests write to
// $STORMLAB_OUT/<experiment>/ when STORMLAB_OUT is set, else to a temporary
// folder removed after the test (never the checkout's results/), so a
// researcher keeps the files with
// `STORMLAB_OUT=results go test ./experiments -run 'TestExperiment/kpart-mul$'`.
//
// To add an experiment: write a file with a func returning *lab.Spec with its
// Needs and Cost (for graph partition sweeps fill in a PartitionSweep and
// call its Spec method; its Algorithms are a list, so a new scheduler is
// one more entry), add it to List in registry.go (TestExperiment then runs
// it as a subtest; checks beyond the framework's go in afterRun in
// experiments_test.go), and, if it belongs in `make experiment`, add its
// name to the default suite. TestRegistryComplete fails while a registered
// experiment lacks a cost or a need.
package experiments
