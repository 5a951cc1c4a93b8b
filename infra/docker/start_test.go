package docker

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestStartErrorText: a start failure keeps its role, its cause for errors.Is and the log lines in its
// text (the one-line form callers printed before it was typed), and omits the log header without a log.
func TestStartErrorText(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    *StartError
		want []string
		not  string
	}{
		{"with log", &StartError{Role: "nimbus", Err: fs.ErrNotExist, Log: "ClassNotFound: NoSuchScheduler"},
			[]string{"start nimbus: file does not exist", "--- last lines of the nimbus log ---\nClassNotFound: NoSuchScheduler"}, ""},
		{"no container", &StartError{Role: "sup1", Err: fs.ErrNotExist}, []string{"start sup1: file does not exist"}, "last lines"},
	} {
		msg := tc.e.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", tc.name, msg, w)
			}
		}
		if tc.not != "" && strings.Contains(msg, tc.not) {
			t.Errorf("%s: %q has %q", tc.name, msg, tc.not)
		}
		if !errors.Is(tc.e, fs.ErrNotExist) {
			t.Errorf("%s: errors.Is does not see the cause", tc.name)
		}
	}
}

// TestOptionsRunID: configure draws an 8-hex-digit run id when none is given, keeps a given one and
// returns an option's error instead of a cluster.
func TestOptionsRunID(t *testing.T) {
	a, err := configure(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := configure(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.runID) != 8 || strings.Trim(a.runID, "0123456789abcdef") != "" || a.runID == b.runID {
		t.Errorf("drawn run ids %q, %q: want two different 8-hex-digit ids", a.runID, b.runID)
	}
	bad := errors.New("bad option")
	if _, err := configure([]Option{func(*config) error { return bad }}); !errors.Is(err, bad) {
		t.Errorf("configure with a failing option = %v, want it", err)
	}
}
