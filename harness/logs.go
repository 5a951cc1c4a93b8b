package harness

import "github.com/stormlab/stormlab/infra/tail"

// logFiles is where a cluster keeps its daemons' logs, as data (tail.Logs): infra/docker.Cluster has it.
type logFiles = tail.Logs

// logTail is the end of one daemon's log (tail.Log).
type logTail = tail.Log
