package main

// partitionLong is `stormlab partition --help`: what the command prints and
// the graph file format (docs/graph-format.md has the same with its errors).
const partitionLong = `partition splits a weighted executor graph into k parts with one of the schedulers (stormlab
schedulers; one that only places executors on a cluster is refused, naming those that partition)
and prints each part's vertex ids, size and weight, and the partition metrics of Jian, Lu and Zhang, "Storm heuristic balanced graph-partition scheduling
optimization method" (2018): cut_rate (edge weight between parts / all edge weight), std (std dev
of part weights), max_dev (max |part weight - mean| / mean) and max_over (largest part / mean).

The graph is --graph random:N:M (N vertices, M distinct edges, weights uniform integers 1..100,
--seed) or a JSON file holding one object (unknown fields are errors):

  {"vertices": [{"id": 0, "weight": 10}, {"id": 1, "weight": 20}, {"id": 2, "weight": 30}],
   "edges":    [{"from": 0, "to": 1, "weight": 5}, {"from": 1, "to": 2, "weight": 15}]}

  vertices[].id         integer, unique: the executor's name in the output
  vertices[].weight     CPU demand >= 0, any unit common to all vertices (from a running cluster:
                        percent of one core)
  vertices[].component  optional: the executor's Storm component
  vertices[].memory_mb  optional: memory demand in MB (0 = unknown)
  edges[].from, .to     vertex ids; an edge is a directed tuple flow
  edges[].weight        traffic >= 0, any unit common to all edges (from a running cluster: tuples/s)

Weights must be finite. The partitioners see the graph undirected: parallel and opposite edges are
summed, self loops dropped. A bad file is refused with exit 2 and a message naming the fix.

A partition that leaves a part empty (any scheduler) or breaks exact's or mlfm's --epsilon (in
[0, 1)) is printed and refused with exit 1, unless --allow-imbalance accepts it with a warning.
--mul or --epsilon given to a scheduler that does not read it is said on stderr.`
