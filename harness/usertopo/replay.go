package usertopo

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/topologies"
)

// Replay builds the TopologyRun that replays a captured topology file (`stormlab capture`) live:
// the Java main topologies.ReplayClass in the topologies jar, handed the capture's components, streams
// and placement as JSON on its command line, so the submitter needs no access to the file (on the
// harness's containers it runs inside the Nimbus container). args follow and may override the replay's
// flags (e.g. --workers, --parallelism.COMPONENT, --rate, --cpu-mode). It also returns the warnings
// the user should see: what the replay cannot rebuild as captured.
//
// Bad input (errors wrapping ErrBadTopology, nothing submitted): a missing file, a file that is no
// captured topology, a newer format, a component with parallelism 0, no load (every spout at 0 tuples/s).
func Replay(file string, args ...string) (harness.TopologyRun, []string, error) {
	c, warnings, err := topologies.ReadReplay(file)
	if err != nil {
		return harness.TopologyRun{}, nil, fmt.Errorf("%w: %w", ErrBadTopology, err)
	}
	a, err := topologies.ReplayArgs(c)
	if err != nil {
		return harness.TopologyRun{}, nil, fmt.Errorf("%w: %s: %w", ErrBadTopology, file, err)
	}
	root, err := assets.Home()
	if err != nil {
		return harness.TopologyRun{}, nil, err
	}
	jar := filepath.Join(root, topologies.StormJar)
	if _, err := os.Stat(jar); err != nil {
		return harness.TopologyRun{}, nil, fmt.Errorf("topology jar %s is missing: build it with `mvn -q -f topologies/storm/pom.xml package` (make setup does)", jar)
	}
	name := topologies.ReplayName(c)
	a = append([]string{"--name", name}, a...)
	return harness.TopologyRun{Name: name, Jar: jar, MainClass: topologies.ReplayClass, Args: append(a, args...)}, warnings, nil
}
