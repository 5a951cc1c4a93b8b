package docker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/infra/tail"
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
// python), waits until every executor is placed and the spout's tuples are acked, then kills it. The
// cluster delays messages between its two nodes by 100 ms; the even scheduler alternates the chain's
// executors between the two workers (one per node), so every tuple tree crosses nodes at least once and
// the mean complete latency must be at least 100 ms (checked against 50 ms, for stats windows).
func TestSubmitAndKill(t *testing.T) {
	needEngine(t)
	jar := topologyJar(t)
	c, err := runCluster(t, WithShape("homogeneous-2"), WithNetworkDelay(100))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testContext(t), 4*time.Minute)
	defer cancel()
	if err := c.Submit(ctx, jar, "org.stormlab.topologies.ThroughputTopology",
		"--name", "submit-test", "--workers", "2", "--interval-ms", "10"); err != nil {
		t.Fatal(err)
	}
	ui, err := c.UI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id, err := ui.TopologyID(ctx, "submit-test")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		top, err := ui.Topology(ctx, id)
		if err == nil && top.ExecutorsTotal > 0 {
			placed, acked, latency := 0, int64(0), 0.0
			hosts := map[string]bool{}
			for _, e := range top.Executors {
				if e.Host != "" && e.Port > 0 {
					placed++
					hosts[e.Host] = true
				}
				if e.Type == "spout" {
					acked += e.Acked
					latency = e.CompleteLatency
				}
			}
			if placed == top.ExecutorsTotal && acked > 0 {
				t.Logf("%d executors placed on %d hosts, %d spout tuples acked, complete latency %.1f ms, %s after submit",
					placed, len(hosts), acked, latency, time.Since(start).Round(time.Second))
				if len(hosts) == 2 && latency < 50 {
					t.Errorf("complete latency %.1f ms with a 100 ms delay between nodes; want >= 50 ms", latency)
				}
				break
			}
		}
		select {
		case <-ctx.Done():
			nimbus, _ := c.Log(context.Background(), RoleNimbus)
			t.Fatalf("topology did not run within the deadline (last error %v)\n--- nimbus log ---\n%s", err, tail.Lines(nimbus, 20))
		case <-tick.C:
		}
	}
	if err := c.Kill(ctx, id); err != nil {
		t.Fatal(err)
	}
	for {
		tops, err := ui.Topologies(ctx)
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
