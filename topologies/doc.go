// Package topologies models what a Storm scheduler places: the weighted
// executor graph (vertex = executor with a CPU weight, edge = tuple rate
// between two executors), topologies made of components, streams and
// groupings that expand into such a graph, seeded graph generators (the
// K-PART paper's random G(n,m) and friends) and the JSON graph file format.
//
// The real Storm topologies (Java, Maven) live in the storm/ subfolder.
package topologies
