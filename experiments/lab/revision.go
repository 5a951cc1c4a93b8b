package lab

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// The Makefile stamps these with -ldflags "-X ..." from the repository it builds, because builds
// with -buildvcs=false (or outside git) carry no vcs.revision in their build info. Git in the
// working directory is never asked: it may be another repository altogether.
var (
	stampedRevision string // full commit hash
	stampedModified string // "true" when the tree had uncommitted changes
)

// UnknownRevision is the manifest's vcs_revision when neither the build info nor the stamp knows it.
const UnknownRevision = "unknown"

var (
	unknownOnce sync.Once
	unknownOut  io.Writer = os.Stderr
)

// vcsRevision is the revision the running binary was built from: the build info's vcs.revision
// (stamped by `go build` in a git checkout), else the Makefile's -ldflags stamp, else "unknown"
// (said once on stderr, so a manifest never names a commit it cannot vouch for).
func vcsRevision() (rev string, modified bool, from string) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, modified = buildInfoRevision(bi)
		if rev != "" {
			return rev, modified, "buildinfo"
		}
	}
	if stampedRevision != "" {
		return stampedRevision, stampedModified == "true", "ldflags"
	}
	unknownOnce.Do(func() {
		fmt.Fprintln(unknownOut, "stormlab: the binary carries no VCS revision; the manifest records vcs_revision \"unknown\" (build with `make build` to stamp it)")
	})
	return UnknownRevision, false, ""
}

// StampedRevision is the Makefile's -ldflags stamp: the commit and whether the tree was modified
// ("" when the binary was built otherwise). `stormlab --version` shows it where build info has none.
func StampedRevision() (rev string, modified bool) {
	return stampedRevision, stampedModified == "true"
}

func buildInfoRevision(bi *debug.BuildInfo) (rev string, modified bool) {
	for _, st := range bi.Settings {
		switch st.Key {
		case "vcs.revision":
			rev = st.Value
		case "vcs.modified":
			modified = st.Value == "true"
		}
	}
	return rev, modified
}

// Revision is the commit this binary was built from ("+dirty" when the tree was modified), or
// "unknown" (said once on stderr).
func Revision() string {
	rev, modified, _ := vcsRevision()
	if modified {
		rev += "+dirty"
	}
	return rev
}
