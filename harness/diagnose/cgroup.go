package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/harness/hostspeed"
)

// Thresholds of host starvation (docs/statistics.md, "What limited a run").
const (
	StarvedUse  = 0.90 // a node using less than this share of its quota ...
	HostBusy    = 0.05 // ... while the host was idle less than this share of its CPU time,
	StarvedWait = 0.10 // ... and it throttled or waited for a CPU, beyond its throttling, this share of the window
)

// SampleCmd prints, for the control layer's shell on a node, what a node's starvation is judged from:
// its cgroup's CPU time and throttling (v1: cpuacct.usage, cpu.stat's throttled_time in ns; v2:
// cpu.stat's usage_usec and throttled_usec), its cgroup's cpu.pressure (v2 only), the run-queue wait of
// every thread it can see (/proc/*/task/*/schedstat: in a container, the container's own; on a host,
// the whole machine's) and the CPU line of /proc/stat (the host's, also inside a container); and the
// bytes its network interfaces sent and received, loopback left out (/sys/class/net: in a container,
// the container's own interface, which a link limit shapes; on a host, every interface of the machine).
// Each line is "key value..."; a file that is not there prints nothing (ParseSample says what is
// missing).
const SampleCmd = `c=/sys/fs/cgroup
if [ -r $c/cpuacct/cpuacct.usage ] || [ -r $c/cpu,cpuacct/cpuacct.usage ]; then
  echo usage_ns $(cat $c/cpuacct/cpuacct.usage 2>/dev/null || cat $c/cpu,cpuacct/cpuacct.usage)
  s=$(cat $c/cpu/cpu.stat 2>/dev/null || cat $c/cpu,cpuacct/cpu.stat 2>/dev/null)
  echo "$s" | awk '/^nr_periods/{print "periods", $2} /^nr_throttled/{print "throttled", $2} /^throttled_time/{print "throttled_ns", $2}'
elif [ -r $c/cpu.stat ]; then
  awk '/^usage_usec/{printf "usage_ns %.0f\n", $2*1000} /^nr_periods/{print "periods", $2} /^nr_throttled/{print "throttled", $2} /^throttled_usec/{printf "throttled_ns %.0f\n", $2*1000}' $c/cpu.stat
  [ -r $c/cpu.pressure ] && awk '/^some/{split($5, t, "="); print "pressure_us", t[2]}' $c/cpu.pressure
fi
cat /proc/[0-9]*/task/[0-9]*/schedstat 2>/dev/null | awk '{s += $2} END {if (NR > 0) printf "run_delay_ns %.0f\n", s}'
head -n 1 /proc/stat
n=0; tx=0; rx=0; tp=0; rp=0
for d in /sys/class/net/*; do
  [ "${d##*/}" = lo ] || [ ! -r $d/statistics/tx_bytes ] && continue
  n=$((n + 1)); tx=$((tx + $(cat $d/statistics/tx_bytes))); rx=$((rx + $(cat $d/statistics/rx_bytes)))
  tp=$((tp + $(cat $d/statistics/tx_packets))); rp=$((rp + $(cat $d/statistics/rx_packets)))
done
if [ $n -gt 0 ]; then echo tx_bytes $tx; echo rx_bytes $rx; echo tx_packets $tp; echo rx_packets $rp; fi`

// Sample is one reading of SampleCmd on one node. A field not read is nil (unknown, never 0).
type Sample struct {
	TimeMs      int64  `json:"time_ms"`
	UsageNs     *int64 `json:"usage_ns,omitempty"`
	Periods     *int64 `json:"periods,omitempty"`   // CFS periods with the quota enforced
	Throttled   *int64 `json:"throttled,omitempty"` // periods in which the quota ran out
	ThrottledNs *int64 `json:"throttled_ns,omitempty"`
	PressureUs  *int64 `json:"pressure_us,omitempty"`  // cpu.pressure's "some" total (cgroup v2)
	RunDelayNs  *int64 `json:"run_delay_ns,omitempty"` // summed run-queue wait of the threads
	HostBusy    *int64 `json:"host_busy,omitempty"`    // /proc/stat jiffies not idle nor iowait
	HostTotal   *int64 `json:"host_total,omitempty"`   // /proc/stat jiffies, all
	TxBytes     *int64 `json:"tx_bytes,omitempty"`     // sent by the node's interfaces (loopback aside)
	RxBytes     *int64 `json:"rx_bytes,omitempty"`     // received by them
	// TxPackets and RxPackets count the frames: with Netty's TCP_NODELAY a frame is about one write of
	// a batch of messages, so messages over frames is how full the batches are.
	TxPackets *int64 `json:"tx_packets,omitempty"`
	RxPackets *int64 `json:"rx_packets,omitempty"`
}

// ParseSample reads SampleCmd's output; a node whose cgroup CPU time is not in it is an error (the
// rest is optional).
func ParseSample(out string, timeMs int64) (Sample, error) {
	s := Sample{TimeMs: timeMs}
	fields := map[string]**int64{"usage_ns": &s.UsageNs, "periods": &s.Periods, "throttled": &s.Throttled,
		"throttled_ns": &s.ThrottledNs, "pressure_us": &s.PressureUs, "run_delay_ns": &s.RunDelayNs,
		"tx_bytes": &s.TxBytes, "rx_bytes": &s.RxBytes, "tx_packets": &s.TxPackets, "rx_packets": &s.RxPackets}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 9 && f[0] == "cpu" {
			s.HostBusy, s.HostTotal = hostJiffies(f[1:])
			continue
		}
		p, ok := fields[firstOf(f)]
		if !ok || len(f) != 2 {
			continue
		}
		if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			*p = &v
		}
	}
	if s.UsageNs == nil {
		return s, fmt.Errorf("no cgroup CPU time in %q", strings.TrimSpace(out))
	}
	return s, nil
}

func firstOf(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// hostJiffies sums /proc/stat's cpu line (user nice system idle iowait irq softirq steal; guest time
// is inside user): busy is all but idle and iowait.
func hostJiffies(f []string) (busy, total *int64) {
	var sum, idle int64
	for i, x := range f[:min(8, len(f))] {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return nil, nil
		}
		sum += v
		if i == 3 || i == 4 {
			idle += v
		}
	}
	b := sum - idle
	return &b, &sum
}

// NodeStats are the samples of every node at the window's ends, with the nodes' quotas (percent of a
// core). Unread says why there are none (a target without a control layer) or which reads failed.
type NodeStats struct {
	Quota  map[string]float64 `json:"quota"`
	From   map[string]Sample  `json:"from,omitempty"`
	To     map[string]Sample  `json:"to,omitempty"`
	Unread string             `json:"unread,omitempty"`
	// Background is the background load each node carried over the window, by its burner's reports.
	Background []Applied `json:"background_load,omitempty"`
	// HostSpeed is what a CPU-second bought on the nodes' host through the window (package hostspeed);
	// nil where the nodes are not on the harness's machine (a target) or not sampled.
	HostSpeed *hostspeed.Summary `json:"host_speed,omitempty"`
}

// Cgroup is one node's CPU over the window as its cgroup counted it (the whole node: workers,
// supervisor, background load), and whether the host starved it. Nil figures are unknown.
type Cgroup struct {
	Host        string  `json:"host"`
	Quota       float64 `json:"quota"` // percent of a core
	Used        float64 `json:"used"`  // percent of a core
	UsedOfQuota float64 `json:"used_of_quota"`
	// ThrottledShare is the share of the CFS periods in which the node used up its quota.
	ThrottledShare *float64 `json:"throttled_share,omitempty"`
	ThrottledS     *float64 `json:"throttled_s,omitempty"`
	HostIdle       *float64 `json:"host_idle,omitempty"` // share of the host's CPU time idle
	// Waited is how long the node's tasks waited for a CPU beyond its throttling, per second of the
	// window: cpu.pressure's "some" share (v2) or, without it, the threads' summed run-queue wait less
	// the throttled time (v1: a thread count, at least the v2 share).
	Waited     *float64 `json:"waited,omitempty"`
	WaitedFrom string   `json:"waited_from,omitempty"` // "cpu.pressure" or "schedstat"
	Starved    bool     `json:"host_starved"`
}

// cgroups computes every node's Cgroup from st, sorted by host; the hosts without both samples or a
// quota are returned as unread.
func cgroups(st *NodeStats) (out []Cgroup, unread []string) {
	if st == nil {
		return nil, nil
	}
	for host, q := range st.Quota {
		a, okA := st.From[host]
		b, okB := st.To[host]
		c, ok := cgroupOf(host, q, a, b)
		if !okA || !okB || !ok {
			unread = append(unread, host)
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Cgroup) int { return cmp.Compare(a.Host, b.Host) })
	slices.Sort(unread)
	return out, unread
}

// cgroupOf is one node's figures between samples a and b; false when the two do not make a window.
func cgroupOf(host string, quota float64, a, b Sample) (Cgroup, bool) {
	dt := float64(b.TimeMs-a.TimeMs) / 1000
	du, ok := delta(a.UsageNs, b.UsageNs)
	if !(quota > 0) || dt <= 0 || !ok {
		return Cgroup{}, false
	}
	c := Cgroup{Host: host, Quota: quota, Used: 100 * du / 1e9 / dt}
	c.UsedOfQuota = c.Used / quota
	if dp, ok := delta(a.Periods, b.Periods); ok && dp > 0 {
		if dn, ok := delta(a.Throttled, b.Throttled); ok {
			c.ThrottledShare = ptr(dn / dp)
		}
	}
	dthr, okThr := delta(a.ThrottledNs, b.ThrottledNs)
	if okThr {
		c.ThrottledS = ptr(dthr / 1e9)
	}
	if db, ok := delta(a.HostBusy, b.HostBusy); ok {
		if dtot, ok := delta(a.HostTotal, b.HostTotal); ok && dtot > 0 {
			c.HostIdle = ptr(1 - db/dtot)
		}
	}
	if dp, ok := delta(a.PressureUs, b.PressureUs); ok {
		c.Waited, c.WaitedFrom = ptr(dp/1e6/dt), "cpu.pressure"
	} else if dr, ok := delta(a.RunDelayNs, b.RunDelayNs); ok {
		c.Waited, c.WaitedFrom = ptr(max(0, dr-dthr)/1e9/dt), "schedstat"
	}
	c.Starved = starved(c)
	return c, true
}

// starved is the rule of docs/statistics.md: the node used less than StarvedUse of its quota while it
// wanted more and the host had none to give, that is, either the host was under HostBusy idle and the
// node throttled or waited for a CPU beyond its throttling more than StarvedWait of the window, or its
// cpu.pressure (v2) says it waited that long. The run-queue wait of v1 counts only on a busy host: it
// is a count of waiting threads, and a busy JVM's threads queue up behind their own quota several
// seconds per second (docs/results-log.md, "Host starvation and a straggler's applied load").
func starved(c Cgroup) bool {
	if c.UsedOfQuota >= StarvedUse {
		return false
	}
	waited := c.Waited != nil && *c.Waited > StarvedWait
	throttled := c.ThrottledShare != nil && *c.ThrottledShare > 0
	busyHost := c.HostIdle != nil && *c.HostIdle < HostBusy
	return busyHost && (throttled || waited) || waited && c.WaitedFrom == "cpu.pressure"
}

// delta is b - a when both were read and the counter did not go back (a counter reset: unknown).
func delta(a, b *int64) (float64, bool) {
	if a == nil || b == nil || *b < *a {
		return 0, false
	}
	return float64(*b - *a), true
}

func ptr(x float64) *float64 { return &x }

// StarvedText is the run's host starvation, one text per starved node, most starved first ("host-starved:
// sup4 got 0.71 of 1.00 core"), the form of the bottleneck and of the run's suspect reason.
func StarvedText(cs []Cgroup) []string {
	var st []Cgroup
	for _, c := range cs {
		if c.Starved {
			st = append(st, c)
		}
	}
	slices.SortFunc(st, func(a, b Cgroup) int {
		return cmp.Or(cmp.Compare(a.UsedOfQuota, b.UsedOfQuota), cmp.Compare(a.Host, b.Host))
	})
	out := make([]string, len(st))
	for i, c := range st {
		out[i] = fmt.Sprintf("host-starved: %s got %.2f of %.2f core (%s)", c.Host, c.Used/100, c.Quota/100, starvedWhy(c))
	}
	return out
}

func starvedWhy(c Cgroup) string {
	var parts []string
	if c.HostIdle != nil {
		parts = append(parts, fmt.Sprintf("host %.0f%% idle", 100**c.HostIdle))
	}
	if c.ThrottledShare != nil {
		parts = append(parts, fmt.Sprintf("throttled in %.0f%% of periods", 100**c.ThrottledShare))
	}
	if c.Waited != nil {
		parts = append(parts, fmt.Sprintf("waited %.2f s/s for a CPU (%s)", *c.Waited, c.WaitedFrom))
	}
	return strings.Join(parts, ", ")
}

// NodesText is the nodes' cgroup figures in one line, for a person reading a run's output ("sup1 0.45 of
// 0.50 core, throttled in 73% of periods, host 0% idle, host-starved; sup2 ..."), or why they are
// unknown; "" when the diagnosis has neither.
func (d *Diagnosis) NodesText() string {
	if d == nil {
		return ""
	}
	var parts []string
	for _, c := range d.Cgroups {
		p := fmt.Sprintf("%s %.2f of %.2f core", c.Host, c.Used/100, c.Quota/100)
		if c.ThrottledShare != nil {
			p += fmt.Sprintf(", throttled in %.0f%% of periods", 100**c.ThrottledShare)
		}
		if c.HostIdle != nil {
			p += fmt.Sprintf(", host %.0f%% idle", 100**c.HostIdle)
		}
		if c.Starved {
			p += ", host-starved"
		}
		parts = append(parts, p)
	}
	for _, u := range d.Unknown {
		if strings.HasPrefix(u, "host starvation") {
			parts = append(parts, "unknown: "+u)
		}
	}
	return strings.Join(parts, "; ")
}

// HostText is the host's speed through the window ("10.9 ns a probe step (median of 21, middle half
// 10.0-11.5)"); "" where it was not sampled.
func (d *Diagnosis) HostText() string {
	if d == nil {
		return ""
	}
	return d.HostSpeed.Text()
}
