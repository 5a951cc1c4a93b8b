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
