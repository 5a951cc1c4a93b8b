package clusterref

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in      string
		want    Ref
		wantErr string // substring of the error; "" for none
	}{
		{"", Ref{Kind: Containers}, ""},
		{"containers", Ref{Kind: Containers}, ""},
		{" containers ", Ref{Kind: Containers}, ""},
		{"containers:heterogeneous-4", Ref{Kind: Containers, Shape: "heterogeneous-4"}, ""},
		{"heterogeneous-2", Ref{Kind: Containers, Shape: "heterogeneous-2"}, ""},
		{"target:/tmp/t.yaml", Ref{Kind: Target, File: "/tmp/t.yaml"}, ""},
		{"target:", Ref{}, "names no file"},
		{"target", Ref{}, "names no file"},
		{"containers:", Ref{}, "names no shape"},
		{"sim:big", Ref{Kind: "sim", Arg: "big"}, ""}, // the registry of kinds decides
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("Parse(%q): error %v, want one containing %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("Parse(%q).String() = %q does not parse back: %+v, %v", c.in, got.String(), back, err)
		}
	}
}

func TestResolveLoadsTheTarget(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "t.yaml")
	body := "name: lab\nnimbus: {seeds: [127.0.0.1], port: 6627}\nui: http://127.0.0.1:8080\nservice: {cluster: http://127.0.0.1:7070, harness: http://127.0.0.1:7070}\n"
	if err := os.WriteFile(good, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Resolve("target:" + good)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if !r.IsTarget() || r.Target == nil || r.Target.Name != "lab" {
		t.Errorf("Resolve: %+v, want the loaded target lab", r)
	}
	if _, err := Resolve("target:" + filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "--cluster target:") {
		t.Errorf("Resolve of a missing file: %v, want an error naming the flag", err)
	}
	if r, err := Resolve("containers"); err != nil || r.Target != nil {
		t.Errorf("Resolve(containers) = %+v, %v", r, err)
	}
}
