// Package stormui is the one client of the Storm UI REST API (/api/v1) in stormlab. The UI reads Nimbus
// over Thrift, so its answers are Nimbus's own: the cluster and supervisor summaries, the running
// topologies, each executor's placement and Storm's all-time counters (acked, failed, complete
// latency), and the kill operation. Both infra/docker (waiting for supervisors, killing topologies) and
// the harness (placement, idleness, the cross-check against Storm's statistics) use it.
//
// Two page formats are read: the stormlab UI's topology page, which lists "executors" directly (Storm's
// own UI, storm-webapp, is not on Maven Central; see infra/images), and Storm UI's, where executors sit
// on component pages.
package stormui
