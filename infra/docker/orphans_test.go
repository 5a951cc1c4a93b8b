package docker

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childEnv makes TestOrphansOfKilledRunRemoved's child start a cluster and wait to be killed.
const childEnv = "STORMLAB_ORPHAN_CHILD"

// smallCluster is the cheapest cluster Run starts: ZooKeeper, Nimbus and one supervisor, no UI and no
// service.
var smallCluster = []Option{WithUI(false), WithSupervisors(SupervisorSpec{Host: "sup1", CPUs: 0.5, MemoryMB: 640})}

// TestOrphansOfKilledRunRemoved kills a process that runs a cluster with SIGKILL (so it cannot clean
// up), then starts the next cluster and checks that Run removed the dead owner's leftovers with a note
// and that the new cluster came up.
func TestOrphansOfKilledRunRemoved(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		orphanChild(t)
		return
	}
	needEngine(t)
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(testContext(t), 30*time.Minute) // mostly waiting for the cluster lock
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestOrphansOfKilledRunRemoved$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's run id, once its cluster is up.
	up := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			t.Logf("child: %s", line)
			if id, ok := strings.CutPrefix(strings.TrimSpace(line), "STORMLAB-CHILD-UP "); ok {
				up <- id
			}
		}
		close(up)
	}()
	id, ok := <-up
	if !ok {
		cmd.Wait()
		t.Fatal("the child ended before its cluster was up")
	}
	t.Cleanup(func() { removeLabelled(context.Background(), LabelRun+"="+id) }) // whatever happens below
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	left, err := Leftovers(ctx, LabelRun+"="+id)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) == 0 {
		t.Fatal("the killed child left nothing behind: the test proves nothing")
	}
	t.Logf("child %d killed with SIGKILL, left %d: %s", cmd.Process.Pid, len(left), strings.Join(left, ", "))

	var mu sync.Mutex
	var notes []string
	logf := func(f string, a ...any) {
		mu.Lock()
		notes = append(notes, fmt.Sprintf(f, a...))
		mu.Unlock()
		t.Logf(f, a...)
	}
	c, err := runCluster(t, append(smallCluster, WithLogf(logf))...)
	if err != nil {
		t.Fatalf("the next run failed: %v", err)
	}
	if c.Registered.IsZero() {
		t.Error("the next cluster did not register its supervisor")
	}
	if left, err := Leftovers(ctx, LabelRun+"="+id); err != nil || len(left) > 0 {
		t.Errorf("leftovers of the killed run still there after the next Run: %v %v", left, err)
	}
	mu.Lock()
	noted := false
	for _, n := range notes {
		noted = noted || strings.Contains(n, "removed leftovers of stormlab run "+id)
	}
	mu.Unlock()
	if !noted {
		t.Errorf("no note about removing run %s's leftovers in %q", id, notes)
	}
	t.Logf("wall time: %s", time.Since(t0).Round(time.Second))
}

// orphanChild starts a cluster, says so on stdout and waits to be killed (it terminates the cluster
// if nobody kills it within 10 minutes).
func orphanChild(t *testing.T) {
	c, err := Run(context.Background(), append(smallCluster, WithLogf(t.Logf))...)
	if err != nil {
		c.Terminate(context.Background())
		t.Fatal(err)
	}
	fmt.Printf("STORMLAB-CHILD-UP %s\n", c.ID)
	time.Sleep(10 * time.Minute)
	c.Terminate(context.Background())
}
