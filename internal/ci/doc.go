// Package ci holds the checks of the project's CI definitions: every GitHub
// Actions workflow in .github/workflows passes actionlint (with shellcheck on
// its scripts where shellcheck is installed), the nightly workflow runs the
// experiments and the gate `make nightly` runs, and that gate
// (.ci/nightly-gate.sh) passes an unchanged night and fails a regressed one
// on folders built in the test. The package has no code of its own: a
// workflow is only ever run by GitHub, so these tests are the one place it
// is checked before a night.
package ci
