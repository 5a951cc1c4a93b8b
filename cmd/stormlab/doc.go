// Command stormlab is the command line of the project over the same code the
// tests use:
//
//	stormlab partition --graph FILE|random:N:M --k K --scheduler NAME [--mul M] [--seed S] [--format json|table]
//	stormlab spd --graph FILE|random:N --resources C --scheduler NAME [--seed S] [--format json|table]
//	stormlab schedulers
//	stormlab experiment NAME|list [--out DIR] [--scale ci|quick|full] [--cluster containers|target:FILE] [--force | --resume]
//	stormlab report DIR [--out FILE] [--title TEXT]
//	stormlab run --scheduler NAME --topology throughput|wordcount|kmeans [flags] [-- topology flags]
//	stormlab compare BASE_DIR NEW_DIR [--metric M]... [--threshold 0.05] [--only-changed] [--fail-on-regression] [--format table|markdown|csv|json]
//	stormlab completion bash|zsh|fish|powershell
//	stormlab --version
//	stormlab images [--prune]
//	stormlab cleanup [--dry-run] [--force]
//
// Exit codes: 0 success; 2 bad input (unknown scheduler or experiment, k out
// of range, malformed graph file, bad flags), with one line on stderr and no
// usage dump; 1 when a valid request fails while running.
//
// Subcommands live in their own files, each a newXxxCmd function wired in
// newRootCmd (root.go).
package main
