package schedulers

import (
	"fmt"
	"sort"
	"strings"
)

// Options configures a scheduler. Each scheduler reads the fields it needs
// and documents them; zero values mean the paper's defaults.
type Options struct {
	Seed           uint64  // random seed (K-PART start vertices, ...)
	Mul            int     // K-PART balance-adjustment iteration multiplier
	Alpha          float64 // K-PART slack over the expected subset weight
	WeightVertices bool    // M-PART: pass vertex weights to METIS (the paper uses none)
	Theta          float64 // deadline and adaptive schedulers' load threshold in [0,1] (0 means 0.8)
	Consolidation  float64 // T-Storm consolidation factor gamma >= 1 (0 means 1: use all workers)
}

// Info describes one scheduler of the explicit list.
type Info struct {
	Name        string
	Description string // one line
	Source      string // paper or system it comes from
	New         func(Options) (Scheduler, error)
}

// List returns every scheduler, sorted by name. It is built on each call so
// no caller can change the list.
func List() []Info {
	l := []Info{
		// Each scheduler file contributes one entry, e.g. evenInfo, kpartInfo.
		evenInfo, kpartInfo, kpartDynamicInfo, mpartInfo, onlineInfo, tstormInfo,
		spdInfo, spdSharesInfo, rstormInfo, deadlineInfo, adaptiveInfo,
	}
	sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	return l
}

// Names lists the scheduler names, sorted.
func Names() []string {
	var n []string
	for _, i := range List() {
		n = append(n, i.Name)
	}
	return n
}

// Lookup finds a scheduler's Info by name.
func Lookup(name string) (Info, error) {
	for _, i := range List() {
		if i.Name == name {
			return i, nil
		}
	}
	return Info{}, fmt.Errorf("unknown scheduler %q: choose one of %s (see `stormlab schedulers`)", name, strings.Join(Names(), ", "))
}

// New builds the named scheduler.
func New(name string, o Options) (Scheduler, error) {
	i, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return i.New(o)
}

// defaultTheta is the load threshold of the deadline and adaptive
// schedulers when Options.Theta is 0: the 80% of 002_39f4f6839cbfd73d.txt.
const defaultTheta = 0.8

// checkTheta rejects a load threshold outside [0,1] (NaN included) for the
// scheduler called name.
func checkTheta(name string, theta float64) error {
	if !(theta >= 0 && theta <= 1) {
		return fmt.Errorf("%s: theta = %v: need 0 < theta <= 1 (0 means %v)", name, theta, defaultTheta)
	}
	return nil
}

// thetaOrDefault returns theta, or defaultTheta when it is not positive.
func thetaOrDefault(theta float64) float64 {
	if theta <= 0 {
		return defaultTheta
	}
	return theta
}
