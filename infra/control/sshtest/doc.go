// Package sshtest starts a throwaway SSH server in a container for tests of the control layer: an
// image built here on stormlab's Debian base with OpenSSH, a key pair made by the test, the
// container's own host key read back for known_hosts, and port 22 published on 127.0.0.1 only. The
// container is removed when the test ends.
package sshtest
