package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Owner is the process that created a cluster, as recorded in LabelOwnerPID and LabelOwnerStart.
type Owner struct {
	PID   int
	Start string // /proc/<pid>/stat starttime; "" if unknown
}

func (o Owner) String() string {
	if o.PID == 0 {
		return "unknown owner (no owner labels)"
	}
	return fmt.Sprintf("process %d (start %s)", o.PID, o.Start)
}

// procStart returns a process's start time (field 22 of /proc/<pid>/stat, clock ticks since boot) and
// whether it is a zombie. An error means no such process.
func procStart(pid int) (start string, zombie bool, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false, err
	}
	// The command name (field 2) is in parentheses and may hold spaces: fields count after the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 {
		return "", false, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return f[19], f[0] == "Z" || f[0] == "X", nil
}

var self = func() Owner {
	o := Owner{PID: os.Getpid()}
	o.Start, _, _ = procStart(o.PID)
	return o
}()

func selfOwner() Owner { return self }

// Alive reports whether the owner process still runs: the pid exists, is not a zombie, and started
// at the recorded time (otherwise the pid was reused). An owner without labels is not known to be dead,
// so it counts as alive.
func (o Owner) Alive() bool {
	if o.PID <= 0 {
		return true
	}
	start, zombie, err := procStart(o.PID)
	if err != nil || zombie {
		return false
	}
	return o.Start == "" || start == o.Start
}

func ownerOf(labels map[string]string) Owner {
	pid, err := strconv.Atoi(labels[LabelOwnerPID])
	if err != nil {
		return Owner{}
	}
	return Owner{PID: pid, Start: labels[LabelOwnerStart]}
}

// Orphan is what one dead owner left: the run id and the names of its containers and networks.
type Orphan struct {
	Run        string
	Owner      Owner
	Containers []string
	Networks   []string
}

// FindOrphans lists, per run, the stormlab containers and networks whose owner process is gone.
// Containers and networks of a live owner, of a standing cluster (LabelStanding) and those without
// owner labels (made before owners were recorded), are not listed.
func FindOrphans(ctx context.Context) ([]Orphan, error) {
	left, err := ListLeftovers(ctx, LabelAll+"=true")
	if err != nil {
		return nil, fmt.Errorf("find orphans: %w", err)
	}
	byRun := map[string]*Orphan{}
	for _, l := range left {
		if !l.orphaned() {
			continue
		}
		o := byRun[l.Run]
		if o == nil {
			o = &Orphan{Run: l.Run, Owner: l.Owner}
			byRun[l.Run] = o
		}
		if l.Kind == "network" {
			o.Networks = append(o.Networks, l.Name)
		} else {
			o.Containers = append(o.Containers, l.Name)
		}
	}
	out := make([]Orphan, 0, len(byRun))
	for _, o := range byRun {
		sort.Strings(o.Containers)
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Run < out[j].Run })
	return out, nil
}

// RemoveOrphans removes the containers and networks of every run whose owner process is gone, with a
// one-line note per run through logf, and returns what it removed. Runs of a live owner are never
// touched. It ignores ctx's cancellation (it keeps ctx's values), like Terminate.
func RemoveOrphans(ctx context.Context, logf func(string, ...any)) ([]Orphan, error) {
	setEnv()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	orphans, err := FindOrphans(ctx)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, o := range orphans {
		if err := removeLabelled(ctx, LabelRun+"="+o.Run); err != nil {
			errs = append(errs, err)
			continue
		}
		if logf != nil {
			logf("removed leftovers of stormlab run %s, whose %s is gone: %d containers, %d networks", o.Run, o.Owner, len(o.Containers), len(o.Networks))
		}
	}
	return orphans, errors.Join(errs...)
}

// orphaned: the owner is known and gone, and it is no standing cluster's.
func (l Leftover) orphaned() bool { return !l.Standing && l.Owner.PID != 0 && !l.Owner.Alive() }
