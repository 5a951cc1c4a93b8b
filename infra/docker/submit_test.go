package docker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/images"
)

// topologyJar is the jar of topologies/storm (built by its Maven project); tests that need it skip
// while it has not been built.
func topologyJar(t *testing.T) string {
	t.Helper()
	root, err := images.FindRoot()
	if err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(root, "topologies", "storm", "target", "stormlab-topologies.jar")
	if _, err := os.Stat(jar); err != nil {
		t.Skipf("skipping: %s not built (mvn -f topologies/storm package)", jar)
	}
	return jar
}

// TestSubmitAndKill submits the Throughput topology through Submit (java in the Nimbus container, no
// python), waits until every executor is placed and the spout's tuples are acked, then kills it.
func TestSubmitAndKill(t *testing.T) {
	needEngine(t)
	jar := topologyJar(t)
	c, err := runCluster(t, WithProfile("homogeneous-2"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testContext(t), 4*time.Minute)
	defer cancel()
	if err := c.Submit(ctx, jar, "org.stormlab.topologies.ThroughputTopology",
		"--name", "submit-test", "--workers", "2", "--interval-ms", "10"); err != nil {
		t.Fatal(err)
	}
	id, err := c.TopologyID(ctx, "submit-test")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		top, err := c.Topology(ctx, id)
		if err == nil && top.ExecutorsTotal > 0 {
			placed, acked := 0, int64(0)
			hosts := map[string]bool{}
			for _, e := range top.Executors {
				if e.Host != "" && e.Port > 0 {
					placed++
					hosts[e.Host] = true
				}
				if e.Type == "spout" {
					acked += e.Acked
				}
			}
			if placed == top.ExecutorsTotal && acked > 0 {
				t.Logf("%d executors placed on %d hosts, %d spout tuples acked, %s after submit",
					placed, len(hosts), acked, time.Since(start).Round(time.Second))
				break
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("topology did not run within the deadline (last error %v)\n%s", err, c.LastLogLines(context.Background(), 20))
		case <-tick.C:
		}
	}
	if err := c.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	for {
		tops, err := c.TopologySummary(ctx)
		if err == nil && len(tops) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("topology still listed after kill: %v %v", tops, err)
		case <-tick.C:
		}
	}
}
