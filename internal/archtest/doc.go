// Package archtest holds tests over the whole module's source: rules of the architecture that no one
// package can check for itself (docs/architecture.md). It has no code of its own.
package archtest
