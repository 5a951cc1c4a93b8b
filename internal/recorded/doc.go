// Package recorded loads the recorded runs that tests keep as a tar.gz of run folders (each a folder
// with run.json, as `stormlab run --out` and the experiments write them): the cost runs a shipped cost
// model was measured from, the held-out runs a test simulates again. Import it from _test.go files only.
package recorded
