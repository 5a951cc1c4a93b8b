// Package experiments runs the project's experiments and writes their
// results. An experiment is a declarative Spec (name, description, paper
// figure, x axis, metrics, a Run function producing per-run rows, and the
// paper's claims as measured checks); List is the explicit registry by name
// and Suites groups experiments (the "default" suite is what `make
// experiment` runs).
//
// Flow: Spec.Run -> Results (raw rows: series, x, repetition, seeds, metric
// values) -> Aggregate (mean and 95% CI per series, x and metric) -> claims
// -> Output: raw.csv, table.md, table.csv, table.tex, one PNG and SVG plot
// per metric, notes.md and manifest.json in <out>/<experiment>/. Each file
// is written atomically (temp file + rename) and manifest.json is written
// last, so a folder whose manifest is present holds one complete run.
//
// Every experiment is also a Go test TestExperimentXxx in this package, and
// `stormlab experiment NAME` runs the same Spec. Tests write to
// $STORMLAB_OUT/<experiment>/ when STORMLAB_OUT is set, else to the
// module's results/ folder (gitignored), so a researcher finds the files
// after `go test ./experiments -run ExperimentKPartMul`.
//
// To add an experiment: write a file with a func returning *Spec (for graph
// partition sweeps fill in a PartitionSweep and call its Spec method), add
// it to List in registry.go, add a TestExperimentXxx that calls runForTest,
// and, if it belongs in `make experiment`, add its name to the default suite.
package experiments
