package lab

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/clusterref"
)

// Need is what an experiment needs from a Storm cluster; the zero value
// means the spec did not say (CheckSpec refuses it).
type Need int

// Needs, from least to most (stopping nodes is NeedsControl: a control
// layer's operation). An experiment above NeedsControl cannot run on
// a target (an existing cluster used through its endpoints, and its hosts
// through the target file's control section); one at NeedsControl runs on a
// target that has a control section.
const (
	NeedsNothing    Need = iota + 1 // runs in process, no cluster
	NeedsCluster                    // any Storm cluster: containers it starts, or a target
	NeedsControl                    // a cluster whose hosts it runs commands on: containers, or a target with control.ssh
	NeedsContainers                 // containers of its own (Docker-only features)
)

// String is the need as `stormlab experiment list` and the README show it.
func (n Need) String() string {
	switch n {
	case NeedsNothing:
		return "none"
	case NeedsCluster:
		return "cluster"
	case NeedsControl:
		return "cluster + control"
	case NeedsContainers:
		return "containers"
	}
	return "?"
}

// Needs is an experiment's need and why it has it.
type Needs struct {
	Need Need
	Why  string // what in the experiment needs it, as the refusal of --cluster target:FILE says it
	// RealStorm, when set, says what in the experiment a model of Storm (a simulated cluster,
	// clusterref.Caps.Model) cannot give it.
	RealStorm string
}

// Docker reports whether the experiment starts containers when no target is given.
func (n Needs) Docker() bool { return n.Need >= NeedsCluster }

// On is nil when the experiment can run on a cluster that offers caps, else why not.
func (n Needs) On(caps clusterref.Caps) error {
	switch {
	case caps.Model && n.RealStorm != "":
		return fmt.Errorf("%s: a simulated cluster does not model it yet (docs/simulator.md)", n.RealStorm)
	case n.Need <= NeedsCluster, caps.OwnShapes, n.Need == NeedsControl && caps.Control:
		return nil
	case n.Need == NeedsControl:
		return fmt.Errorf("%s: this cluster has no control layer (a target: add a control section, control.ssh: user, key, hosts, to its file)", n.Why)
	}
	return errors.New(n.Why)
}

// Cost is an experiment's expected wall time per scale on the reference
// machine (2 shared cores): a guide for planning, not a limit.
type Cost struct{ CI, Quick, Full string }

// Budget is the cost at a scale as a duration: "~25 s", "< 1 s", "~13 min", "~2 h" (the number
// and unit after an optional "~" or "<"). ok is false for a scale the experiment does not run at
// ("not run ...") or a cost that is not declared.
func (c Cost) Budget(profile string) (d time.Duration, ok bool) {
	f := strings.Fields(strings.TrimLeft(c.For(profile), "~< "))
	if len(f) != 2 {
		return 0, false
	}
	n, err := strconv.ParseFloat(f[0], 64)
	unit := map[string]time.Duration{"s": time.Second, "min": time.Minute, "h": time.Hour}[f[1]]
	if err != nil || n <= 0 || unit == 0 {
		return 0, false
	}
	return time.Duration(n * float64(unit)), true
}

// OverBudget is how far a measured wall time may exceed the declared cost before the run says so: the
// costs are estimates on a shared 2-core machine.
const OverBudget = 1.5

// For is the cost at the named scale ("?" for an unknown one).
func (c Cost) For(profile string) string {
	switch profile {
	case "ci":
		return c.CI
	case "quick":
		return c.Quick
	case "full":
		return c.Full
	}
	return "?"
}

// ScaleKnobs are an experiment's typed settings at one scale; each
// experiment defines its own type. Manifest lists them for manifest.json.
type ScaleKnobs interface {
	Manifest() map[string]any
}

// File is an extra output file of a run (time series, per-node tables,
// extra figures): Run returns it and Output writes it with the others.
type File struct {
	Name  string
	Write func(io.Writer) error
}

// CheckSpec reports what a spec lacks that the registry requires: a need
// with its reason and a cost for every scale.
func CheckSpec(s *Spec) error {
	var errs []error
	if s.Needs.Need < NeedsNothing || s.Needs.Need > NeedsContainers {
		errs = append(errs, fmt.Errorf("no Needs: say what it needs from a cluster (lab.NeedsNothing, NeedsCluster, NeedsControl or NeedsContainers) and why"))
	} else if s.Needs.Need > NeedsNothing && s.Needs.Why == "" {
		errs = append(errs, fmt.Errorf("Needs %s without a reason (Needs.Why)", s.Needs.Need))
	}
	for _, p := range ScaleNames {
		c := s.Cost.For(p)
		if _, ok := s.Cost.Budget(p); c == "" {
			errs = append(errs, fmt.Errorf("no Cost for scale %s: give its expected wall time", p))
		} else if !ok && !strings.HasPrefix(c, "not run") {
			errs = append(errs, fmt.Errorf("Cost %q for scale %s is not a wall time: write it as \"~N s\", \"~N min\" or \"~N h\" (or \"not run ...\")", c, p))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("experiment %s: %w", s.Name, err)
	}
	return nil
}

// CheckScale reports whether name is a scale (ci, quick or full).
func CheckScale(name string) error {
	for _, p := range ScaleNames {
		if p == name {
			return nil
		}
	}
	return fmt.Errorf("unknown scale %q: use ci, quick or full (--scale)", name)
}
