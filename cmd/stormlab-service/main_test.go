package main

import (
	"testing"

	"github.com/stormlab/stormlab/schedulers"
)

func TestServiceOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		js   string
		seed uint64
		mul  int
		set  map[string]bool
		want schedulers.Options
		bad  bool
	}{
		{"shorthands only", "", 3, 5, map[string]bool{"seed": true, "mul": true}, schedulers.Options{Seed: 3, Mul: 5}, false},
		{"defaults", "", 1, 0, nil, schedulers.Options{Seed: 1}, false},
		{"json only", `{"seed":7,"theta":0.6,"mul":2}`, 1, 0, nil, schedulers.Options{Seed: 7, Mul: 2, Theta: 0.6}, false},
		{"json and agreeing flag", `{"seed":7}`, 7, 0, map[string]bool{"seed": true}, schedulers.Options{Seed: 7}, false},
		{"flag fills json", `{"theta":0.6}`, 4, 3, map[string]bool{"seed": true, "mul": true}, schedulers.Options{Seed: 4, Mul: 3, Theta: 0.6}, false},
		{"disagreeing seed", `{"seed":7}`, 8, 0, map[string]bool{"seed": true}, schedulers.Options{}, true},
		{"disagreeing mul", `{"mul":2}`, 1, 3, map[string]bool{"mul": true}, schedulers.Options{}, true},
		{"unknown field", `{"mull":2}`, 1, 0, nil, schedulers.Options{}, true},
	} {
		got, err := serviceOptions(tc.js, tc.seed, tc.mul, tc.set)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v, error %v", tc.name, got, err, tc.want, tc.bad)
		}
	}
}

// A listen address other hosts reach needs a token, unless the network is private.
func TestCheckBind(t *testing.T) {
	for _, c := range []struct {
		addr, token string
		private     bool
		ok          bool
	}{
		{"127.0.0.1:7070", "", false, true},
		{"localhost:7070", "", false, true},
		{"[::1]:7070", "", false, true},
		{":7070", "", false, false},
		{"0.0.0.0:7070", "", false, false},
		{"10.0.0.5:7070", "", false, false},
		{"10.0.0.5:7070", "t", false, true},
		{":7070", "", true, true},
		{"7070", "", false, false},
	} {
		if err := checkBind(c.addr, c.token, c.private); (err == nil) != c.ok {
			t.Errorf("checkBind(%q, %q, %v) = %v, want ok %v", c.addr, c.token, c.private, err, c.ok)
		}
	}
}
