package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// One cluster at a time per machine: `go test ./...` runs packages in
// parallel, and two clusters on a 2-core machine would both measure the
// other's load. Run takes an exclusive flock on this file and Terminate
// releases it (the kernel releases it too if the process dies).
var lockPath = filepath.Join(os.TempDir(), "stormlab-cluster.lock")

// machineLock waits for the lock until ctx ends, polling a non-blocking
// flock once a second (a blocking flock cannot be cancelled).
func machineLock(ctx context.Context, logf func(string, ...any)) (*os.File, error) {
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("cluster lock %s: %w", lockPath, err)
	}
	waiting := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("cluster lock %s: %w", lockPath, err)
		}
		if !waiting {
			logf("waiting for another stormlab cluster on this machine to end (lock %s)", lockPath)
			waiting = true
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("waiting for the cluster lock %s (another stormlab cluster runs on this machine): %w", lockPath, ctx.Err())
		case <-t.C:
		}
	}
}

func machineUnlock(f *os.File) {
	if f != nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
