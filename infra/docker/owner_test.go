package docker

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

func TestOwnerAlive(t *testing.T) {
	me := selfOwner()
	if me.PID != os.Getpid() || me.Start == "" {
		t.Fatalf("selfOwner = %+v, want this pid with a start time", me)
	}
	// A child that has exited and been reaped: its pid no longer exists.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	gone := cmd.ProcessState.Pid()
	tests := []struct {
		name string
		o    Owner
		want bool
	}{
		{"this process", me, true},
		{"pid reused by another process (other start time)", Owner{PID: me.PID, Start: me.Start + "0"}, false},
		{"exited process", Owner{PID: gone, Start: "1"}, false},
		{"no owner labels", Owner{}, true},
	}
	for _, tc := range tests {
		if got := tc.o.Alive(); got != tc.want {
			t.Errorf("%s: Alive(%+v) = %v, want %v", tc.name, tc.o, got, tc.want)
		}
	}
	labels := map[string]string{LabelOwnerPID: strconv.Itoa(me.PID), LabelOwnerStart: me.Start}
	if o := ownerOf(labels); o != me {
		t.Errorf("ownerOf(%v) = %+v, want %+v", labels, o, me)
	}
}

// A standing cluster (cluster up --detach) outlives its owner: it is never an orphan nor a leftover
// RemoveLeftovers takes, whereas a normal run of the same dead owner is both.
func TestStandingKept(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := Owner{PID: cmd.ProcessState.Pid(), Start: "1"}
	me := selfOwner()
	labels := func(o Owner, standing bool) map[string]string {
		l := map[string]string{LabelAll: "true", LabelOwnerPID: strconv.Itoa(o.PID), LabelOwnerStart: o.Start}
		if standing {
			l[LabelStanding] = "true"
		}
		return l
	}
	for _, tc := range []struct {
		name     string
		owner    Owner
		standing bool
		want     bool // orphaned and removable
	}{
		{"dead owner's run", dead, false, true},
		{"dead owner's standing cluster", dead, true, false},
		{"live owner's run", me, false, false},
		{"live owner's standing cluster", me, true, false},
	} {
		l := Leftover{Owner: tc.owner, Standing: tc.standing}
		if got := l.orphaned(); got != tc.want {
			t.Errorf("%s: orphaned = %v, want %v", tc.name, got, tc.want)
		}
		if got := removableLeftover(labels(tc.owner, tc.standing)); got != tc.want {
			t.Errorf("%s: removableLeftover = %v, want %v", tc.name, got, tc.want)
		}
	}
}
