package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/hostspeed"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/protocol"
)

// cpuUsageCmd prints a container's CPU time in ns: cgroup v1 cpuacct, or
// v2 cpu.stat. It counts every process of the container (the supervisor,
// its workers, background load).
const cpuUsageCmd = `cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null || cat /sys/fs/cgroup/cpu,cpuacct/cpuacct.usage 2>/dev/null || awk '/^usage_usec/{printf "%d\n", $2*1000}' /sys/fs/cgroup/cpu.stat`

// StartNodeCPU reads cpuUsageCmd on every host through ctl each period (2 s if 0) and posts the CPU
// used over the period (a protocol.NodeReport) with post, until stop; stop reports the first error met
// (nil when every sample went through). Whole-node CPU sees what the workers' process CPU cannot: the
// node's own usage, background load included.
func StartNodeCPU(ctx context.Context, ctl control.Control, hosts []string, post func(context.Context, protocol.NodeReport) error, every time.Duration) (stop func() error, err error) {
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
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev int64
			var prevAt time.Time
			for {
				out, err := ctl.Exec(ctx, h, cpuUsageCmd)
				now := time.Now()
				ns, perr := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
				switch {
				case ctx.Err() != nil:
					return
				case err != nil || perr != nil:
					fail(errors.Join(err, perr, fmt.Errorf("node CPU of %s: output %q", h, out)))
				default:
					if !prevAt.IsZero() && ns >= prev {
						dt := now.Sub(prevAt).Seconds()
						rep := protocol.NodeReport{Host: h, TimeMs: now.UnixMilli(), IntervalS: dt, CPUPercent: float64(ns-prev) / (dt * 1e9) * 100}
						if err := post(ctx, rep); err != nil {
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

// SampleNodes reads diagnose.SampleCmd on every host through ctl, in parallel (one exec each): the
// cgroup figures a run's host starvation is judged from at the window's ends. A host whose read failed
// is left out and named in the error; the others are returned.
func SampleNodes(ctx context.Context, ctl control.Control, hosts []string) (map[string]diagnose.Sample, error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	out := map[string]diagnose.Sample{}
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			text, err := ctl.Exec(ctx, h, diagnose.SampleCmd)
			s, perr := diagnose.ParseSample(text, t0.Add(time.Since(t0)/2).UnixMilli()) // the read's midpoint
			mu.Lock()
			defer mu.Unlock()
			if err = errors.Join(err, perr); err != nil {
				errs = append(errs, fmt.Errorf("cgroup of %s: %w", h, err))
				return
			}
			out[h] = s
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// SampleInto reads every host's cgroup through n's control layer: into a new NodeStats with quota (st
// nil, the window's opening) or st's To (its close). Without a control layer (n nil, or none), where a
// read failed, or when the run leaves the reads out (off: to measure their cost), st says so in Unread
// and host starvation is unknown there, never 0. At the close it also records the background load the
// nodes carried over the window (Background; it needs no control layer). Where the nodes share this
// machine (containers) and the reads are on, it samples the host's speed from the opening to the close
// (HostSpeed, package hostspeed).
func (n *Nemesis) SampleInto(ctx context.Context, st *diagnose.NodeStats, quota map[string]float64, hosts []string, off bool) *diagnose.NodeStats {
	opening := st == nil
	if opening {
		st = &diagnose.NodeStats{Quota: quota}
		n.openWindow()
	} else {
		st.Background = n.backgroundCarried(ctx)
		st.HostSpeed = n.stopHostSpeed()
	}
	if off {
		st.Unread = "the run left the node samples out"
		return st
	}
	if n == nil || n.Control() == nil {
		st.Unread = "no control layer"
		return st
	}
	if opening {
		n.startHostSpeed(ctx)
	}
	got, err := SampleNodes(ctx, n.Control(), hosts)
	if st.From == nil {
		st.From = got
	} else {
		st.To = got
	}
	if err != nil {
		st.Unread = strings.TrimSpace(st.Unread + " " + err.Error())
	}
	return st
}

// SampleEvery reads every host's cgroup every period until stop, and drops the figures: the observer
// experiment's amplified diagnosis arm repeats the diagnosis's reads until their cost is large enough
// to measure, then scales it to the two sets a run reads. stop ends the reads and returns how many
// sets succeeded. Without a control layer (n nil, or none) nothing is read.
func (n *Nemesis) SampleEvery(ctx context.Context, hosts []string, every time.Duration) (stop func() int) {
	if n == nil || n.Control() == nil || every <= 0 {
		return func() int { return 0 }
	}
	ctx, cancel := context.WithCancel(ctx)
	done, sets := make(chan struct{}), 0
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if _, err := SampleNodes(ctx, n.Control(), hosts); err == nil {
					sets++
				}
			}
		}
	}()
	return func() int {
		cancel()
		<-done
		return sets
	}
}

// hostSpeedEvery is how often the probe samples the host's speed through a window: 30 samples in a
// minute's window, at about 30 ms of one core each (1.5% of a core).
const hostSpeedEvery = 2 * time.Second

// startHostSpeed starts sampling the host's speed when the nodes run on this machine: the docker control
// acts on the harness's own containers, whose host is the harness's. A sampling a failed run left
// running (no close) is stopped first.
func (n *Nemesis) startHostSpeed(ctx context.Context) {
	n.stopHostSpeed()
	if n.ctl.Name() == "docker" {
		n.speed = hostspeed.Start(ctx, hostSpeedEvery)
	}
}

// stopHostSpeed ends the window's sampling and returns its summary; nil when none ran.
func (n *Nemesis) stopHostSpeed() *hostspeed.Summary {
	if n == nil || n.speed == nil {
		return nil
	}
	s := n.speed()
	n.speed = nil
	return s
}
