// Package experiments holds the experiment definitions: one small file per
// experiment with a func returning *Spec, which declares everything about
// it (what to vary, which schedulers, repetitions, seeds; its typed knobs
// per profile, what it needs from a cluster and why, its expected cost per
// profile; the Run producing rows, and the papers' claims with their
// statistical checks). The framework (spec types, running,
// aggregation, verdicts, output) is package experiments/lab; framework.go
// aliases its types so a definition reads Spec, Row, Claim without a
// prefix. List is the explicit registry by name and Suites groups
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
// Profiles (cluster experiments; $STORMLAB_PROFILE, Options.Profile or
// `stormlab experiment --profile`): ci (default under go test: every
// cluster experiment end to end at tiny scale, one run per cell, every
// claim inconclusive), quick (3 runs per cell, fewer cells, verdicts), full
// (the papers' scale, 3 runs per cell). Each cluster experiment defines
// its own knobs per profile in its file (Spec.Profiles).
//
// Every experiment is also a Go test TestExperimentXxx in this package, and
// `stormlab experiment NAME` runs the same Spec. Tests write to
// $STORMLAB_OUT/<experiment>/ when STORMLAB_OUT is set, else to the
// module's results/ folder (gitignored), so a researcher finds the files
// after `go test ./experiments -run ExperimentKPartMul`.
//
// To add an experiment: write a file with a func returning *Spec with its
// Needs and Cost (for graph partition sweeps fill in a PartitionSweep and
// call its Spec method; its Algorithms are a list, so a new scheduler is
// one more entry), add it to List in registry.go, add a TestExperimentXxx
// that calls runForTest, and, if it belongs in `make experiment`, add its
// name to the default suite. TestRegistryComplete fails while a registered
// experiment lacks a cost or a need.
package experiments
