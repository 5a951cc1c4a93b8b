package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
)

// cpuUsageCmd prints a container's CPU time in ns: cgroup v1 cpuacct, or
// v2 cpu.stat. It counts every process of the container (the supervisor,
// its workers, background load).
const cpuUsageCmd = `cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null || cat /sys/fs/cgroup/cpu,cpuacct/cpuacct.usage 2>/dev/null || awk '/^usage_usec/{printf "%d\n", $2*1000}' /sys/fs/cgroup/cpu.stat`

// StartNodeCPUReports samples each supervisor container's whole CPU use
// (cgroup CPU time over every period) and posts it to the scheduler
// service as a protocol.NodeReport, where it becomes the load table's
// CPU_use: the node's own usage, background load included, which the
// workers' process CPU cannot see. The returned stop ends the sampling and
// reports the first error met (nil when every sample went through).
func (s *Session) StartNodeCPUReports(ctx context.Context, every time.Duration) (stop func() error, err error) {
	url, err := s.c.ServiceURL(ctx)
	if err != nil {
		return nil, fmt.Errorf("node CPU reports: %w", err)
	}
	if every <= 0 {
		every = 2 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil && ctx.Err() == nil {
			first = err
		}
	}
	for _, h := range s.hosts() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev int64
			var prevAt time.Time
			for {
				code, out, err := s.c.Exec(ctx, h, "sh", "-c", cpuUsageCmd)
				now := time.Now()
				ns, perr := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
				switch {
				case ctx.Err() != nil:
					return
				case err != nil || code != 0 || perr != nil:
					fail(errors.Join(err, perr, fmt.Errorf("node CPU of %s: exit %d, output %q", h, code, out)))
				default:
					if !prevAt.IsZero() && ns >= prev {
						dt := now.Sub(prevAt).Seconds()
						rep := protocol.NodeReport{Host: h, TimeMs: now.UnixMilli(), IntervalS: dt, CPUPercent: float64(ns-prev) / (dt * 1e9) * 100}
						if err := postJSON(ctx, url+protocol.PathNodes, rep); err != nil {
							fail(fmt.Errorf("node CPU of %s: %w", h, err))
						}
					}
					prev, prevAt = ns, now
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(every):
				}
			}
		}()
	}
	return func() error {
		cancel()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return first
	}, nil
}

// postJSON posts v and fails on a non-2xx answer.
func postJSON(ctx context.Context, url string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, bytes.TrimSpace(msg))
	}
	return nil
}
