package docker

import (
	"fmt"
	"sort"
	"strings"
)

// SupervisorSpec is one supervisor node: its container limits and the matching Storm capacities.
type SupervisorSpec struct {
	// Host is the container's hostname and network alias, and storm.local.hostname (e.g. "sup1").
	Host string
	// CPUs is the container's CPU quota in cores (HostConfig.NanoCPUs); supervisor.cpu.capacity is
	// CPUs*100 (Storm counts 100 per core).
	CPUs float64
	// MemoryMB is the container's memory limit. supervisor.memory.capacity.mb is MemoryMB minus
	// SupervisorReserveMB, the share the supervisor daemon itself needs, so that workers sized to the
	// advertised capacity fit under the limit.
	MemoryMB int
	// Slots is the number of worker slots (ports 6700, 6701, ...). Zero means DefaultSlots.
	Slots int
	// Meta is published as supervisor.scheduler.meta (visible to schedulers).
	Meta map[string]string
	// LinkMbit limits what the supervisor's container sends to the others, Mbit/s (10^6 bits); 0 is
	// unlimited (one host's bridge). See link.go for how and what it covers.
	LinkMbit float64
}

// DefaultSlots is the number of worker slots of a supervisor whose spec does not say.
const DefaultSlots = 4

// SupervisorReserveMB is the memory kept for the supervisor JVM (256 MB heap plus JVM overhead) and
// left out of supervisor.memory.capacity.mb.
const SupervisorReserveMB = 384

// FirstSlotPort is the first worker port of every supervisor.
const FirstSlotPort = 6700

// CapacityCPU is the supervisor.cpu.capacity for the spec (percent of one core).
func (s SupervisorSpec) CapacityCPU() float64 { return s.CPUs * 100 }

// CapacityMemoryMB is the supervisor.memory.capacity.mb for the spec.
func (s SupervisorSpec) CapacityMemoryMB() int { return s.MemoryMB - SupervisorReserveMB }

// Ports lists the worker slot ports.
func (s SupervisorSpec) Ports() []int {
	n := s.Slots
	if n == 0 {
		n = DefaultSlots
	}
	ports := make([]int, n)
	for i := range ports {
		ports[i] = FirstSlotPort + i
	}
	return ports
}

func (s SupervisorSpec) validate() error {
	switch {
	case s.Host == "" || strings.ContainsAny(s.Host, " ./:"):
		return fmt.Errorf("supervisor host %q: use a plain hostname like sup1", s.Host)
	case s.CPUs <= 0 || s.CPUs > 64:
		return fmt.Errorf("supervisor %s: CPUs %.2f out of range (0, 64]", s.Host, s.CPUs)
	case s.MemoryMB < SupervisorReserveMB+256:
		return fmt.Errorf("supervisor %s: MemoryMB %d too small: needs at least %d (daemon reserve %d + one 256 MB worker)",
			s.Host, s.MemoryMB, SupervisorReserveMB+256, SupervisorReserveMB)
	case s.Slots < 0 || s.Slots > 32:
		return fmt.Errorf("supervisor %s: Slots %d out of range [0, 32]", s.Host, s.Slots)
	}
	return checkLinkMbit(s.Host, s.LinkMbit)
}

// Memory limits of the other containers, MB. With the largest shape (4 supervisors, 5,120 MB) the
// whole cluster stays at 6,784 MB, within the 8 GiB the project allows a 4-supervisor cluster.
const (
	ZooKeeperMemoryMB = 384
	NimbusMemoryMB    = 768
	UIMemoryMB        = 256
	ServiceMemoryMB   = 256
)

// shapes are the named clusters. Heterogeneous shapes vary CPU (the resource the papers' schedulers
// balance) and memory with it; homogeneous ones give every node the same share.
var shapes = map[string][]SupervisorSpec{
	"homogeneous-2": {
		{Host: "sup1", CPUs: 0.5, MemoryMB: 1280},
		{Host: "sup2", CPUs: 0.5, MemoryMB: 1280},
	},
	"heterogeneous-2": {
		{Host: "sup1", CPUs: 0.5, MemoryMB: 1024},
		{Host: "sup2", CPUs: 1.0, MemoryMB: 1536},
	},
	"homogeneous-4": {
		{Host: "sup1", CPUs: 0.5, MemoryMB: 1280},
		{Host: "sup2", CPUs: 0.5, MemoryMB: 1280},
		{Host: "sup3", CPUs: 0.5, MemoryMB: 1280},
		{Host: "sup4", CPUs: 0.5, MemoryMB: 1280},
	},
	"heterogeneous-4": {
		{Host: "sup1", CPUs: 0.25, MemoryMB: 1024},
		{Host: "sup2", CPUs: 0.5, MemoryMB: 1280},
		{Host: "sup3", CPUs: 0.5, MemoryMB: 1280},
		{Host: "sup4", CPUs: 1.0, MemoryMB: 1536},
	},
}

// Shapes lists the shape names, sorted.
func Shapes() []string {
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Shape returns a copy of the named shape's supervisors.
func Shape(name string) ([]SupervisorSpec, error) {
	p, ok := shapes[name]
	if !ok {
		return nil, fmt.Errorf("unknown cluster shape %q; known: %s", name, strings.Join(Shapes(), ", "))
	}
	return append([]SupervisorSpec(nil), p...), nil
}

// MemoryTotalMB is the sum of the container memory limits of a cluster with these supervisors, with
// or without UI and service containers.
func MemoryTotalMB(sups []SupervisorSpec, ui, service bool) int {
	total := ZooKeeperMemoryMB + NimbusMemoryMB
	if ui {
		total += UIMemoryMB
	}
	if service {
		total += ServiceMemoryMB
	}
	for _, s := range sups {
		total += s.MemoryMB
	}
	return total
}
