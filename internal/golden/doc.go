// Package golden compares rendered output with golden files and rewrites
// them when a test binary runs with -update:
//
//	go test ./reports -run TestTableRenderersGolden -update
//
// It registers the -update flag itself, because a flag can be registered
// only once per test binary: a test that reads the flag calls Update, a test
// that compares output with a file calls Assert, and no test registers
// "update" again. Import it from _test.go files only; a command that
// imported it would grow an -update flag.
//
// On a mismatch Assert prints a line diff of the golden file against the
// output (go-cmp's cmp.Diff: unchanged runs are folded, so a one-line change
// in a long HTML page stays readable) and the exact command that rewrites
// the file.
package golden
