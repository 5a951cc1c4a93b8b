// Package target reads a target description: the small YAML file that says where an existing Storm
// cluster's endpoints are (Nimbus seeds and Thrift port, the UI's REST URL, the scheduler service as
// the cluster and as the harness reach it), so that runs use that cluster instead of containers this
// machine starts. Parsing is strict: an unknown key or a missing field is an error naming the key and
// the fix.
package target
