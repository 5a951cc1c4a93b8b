// Command stormlab is the command line of the project over the same code the
// tests use:
//
//	stormlab partition --graph FILE|random:N:M --k K --scheduler NAME [--mul M] [--seed S] [--format json|table]
//	stormlab schedulers
//	stormlab experiment NAME|list [--out DIR]
//
// Exit codes: 0 success; 2 bad input (unknown scheduler or experiment, k out
// of range, malformed graph file, bad flags), with one line on stderr and no
// usage dump; 1 when a valid request fails while running.
//
// Subcommands live in their own files, each a newXxxCmd function wired in
// newRootCmd (root.go).
package main
