package target

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const good = `
nimbus:
  seeds: [nimbus1.example.org]
  port: 6627
ui: http://ui.example.org:8080
service:
  cluster: http://10.0.0.5:7070
  harness: http://127.0.0.1:7070
capacity:
  sup1: 200
`

func TestParse(t *testing.T) {
	tg, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := Target{Nimbus: Nimbus{Seeds: []string{"nimbus1.example.org"}, Port: 6627}, UI: "http://ui.example.org:8080",
		Service: Service{Cluster: "http://10.0.0.5:7070", Harness: "http://127.0.0.1:7070"}, Capacity: map[string]float64{"sup1": 200}}
	if !reflect.DeepEqual(*tg, want) {
		t.Fatalf("got %+v, want %+v", *tg, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"empty", "", "empty"},
		{"unknown top key", good + "colour: red\n", `unknown key "colour": remove it`},
		{"unknown nimbus key", strings.Replace(good, "port: 6627", "port: 6627\n  host: x", 1), `unknown key "host" under nimbus`},
		{"unknown service key", strings.Replace(good, "cluster:", "url: http://x:1\n  cluster:", 1), `unknown key "url" under service`},
		{"missing seeds", strings.Replace(good, "seeds: [nimbus1.example.org]", "", 1), "missing nimbus.seeds"},
		{"missing port", strings.Replace(good, "port: 6627", "", 1), "missing nimbus.port"},
		{"seed with port", strings.Replace(good, "nimbus1.example.org]", "nimbus1:6627]", 1), "not a host name"},
		{"missing ui", strings.Replace(good, "ui: http://ui.example.org:8080", "", 1), "missing ui"},
		{"ui not url", strings.Replace(good, "http://ui.example.org:8080", "ui.example.org:8080", 1), "ui \"ui.example.org:8080\" is not an http(s) URL"},
		{"missing service harness", strings.Replace(good, "harness: http://127.0.0.1:7070", "", 1), "missing service.harness"},
		{"missing service cluster", strings.Replace(good, "cluster: http://10.0.0.5:7070", "", 1), "missing service.cluster"},
		{"bad capacity", strings.Replace(good, "sup1: 200", "sup1: 0", 1), "capacity.sup1 is 0"},
		{"not yaml", "nimbus: [", "not a valid target description"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestWriteLoadRoundTrip(t *testing.T) {
	tg, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	tg.Nimbus.Resolve = map[string]string{"nimbus": "127.0.0.1"}
	p := filepath.Join(t.TempDir(), "target.yaml")
	if err := tg.Write(p); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, tg) {
		t.Fatalf("round trip: got %+v, want %+v", back, tg)
	}
}
