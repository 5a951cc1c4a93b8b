package images

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadBuildStream(t *testing.T) {
	ok := `{"stream":"Step 1/2 : FROM x\n"}{"stream":" ---> abc\n"}{"aux":{"ID":"sha256:1"}}`
	if err := readBuildStream(strings.NewReader(ok), t.Logf); err != nil {
		t.Fatalf("clean stream: %v", err)
	}
	bad := `{"stream":"Step 2/2 : RUN false\n"}{"stream":"oops from the command\n"}` +
		`{"errorDetail":{"message":"The command '/bin/sh -c false' returned a non-zero code: 1"},"error":"The command '/bin/sh -c false' returned a non-zero code: 1"}`
	err := readBuildStream(strings.NewReader(bad), t.Logf)
	if err == nil {
		t.Fatal("stream with an error: got nil")
	}
	for _, want := range []string{"non-zero code: 1", "oops from the command", "last build output"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestHash(t *testing.T) {
	b := &Builder{}
	sp := specs()[Storm]
	dir := t.TempDir()
	jar := filepath.Join(dir, "bridge.jar")
	if err := os.WriteFile(jar, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	host := map[string]string{"storm/extlib-daemon/stormlab-bridge.jar": jar}
	args := map[string]string{"JAVA": "stormlab/java:aaa"}
	h1, err := b.hash(sp, args, host)
	if err != nil {
		t.Fatal(err)
	}
	if h2, _ := b.hash(sp, args, host); h2 != h1 {
		t.Errorf("same inputs, different hashes %s %s", h1, h2)
	}
	if h, _ := b.hash(sp, map[string]string{"JAVA": "stormlab/java:bbb"}, host); h == h1 {
		t.Error("a new parent image did not change the hash")
	}
	if h, _ := b.hash(sp, args, nil); h == h1 {
		t.Error("leaving out the bridge jar did not change the hash")
	}
	if err := os.WriteFile(jar, []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, _ := b.hash(sp, args, host); h == h1 {
		t.Error("a changed bridge jar did not change the hash")
	}
	if h, _ := b.hash(specs()[ZooKeeper], args, nil); h == h1 {
		t.Error("two images share a hash")
	}
}

func newBuilder(tb testing.TB) *Builder {
	tb.Helper()
	b, err := New(context.Background(), WithLogf(tb.Logf))
	if errors.Is(err, ErrNoEngine) {
		tb.Skipf("skipping: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	return b
}

// TestBuildWarm builds every image (cold if the engine has none: the time is logged) and then checks
// that a second Builder rebuilds nothing. The warm time is logged; BenchmarkWarmBuild measures it.
func TestBuildWarm(t *testing.T) {
	b := newBuilder(t)
	start := time.Now()
	set, err := b.BuildAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first build: %s, built %v", time.Since(start).Round(time.Millisecond), b.Built)
	if set.Storm == "" || set.ZooKeeper == "" {
		t.Fatalf("missing images: %+v", set)
	}
	b2 := newBuilder(t)
	start = time.Now()
	set2, err := b2.BuildAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("warm build: %s (target < 5 s)", time.Since(start).Round(time.Millisecond))
	if len(b2.Built) != 0 {
		t.Errorf("warm build rebuilt %v", b2.Built)
	}
	if set2 != set {
		t.Errorf("warm build tags %+v differ from %+v", set2, set)
	}
}

func BenchmarkWarmBuild(bm *testing.B) {
	if _, err := newBuilder(bm).BuildAll(context.Background()); err != nil {
		bm.Fatal(err)
	}
	for bm.Loop() {
		b := newBuilder(bm)
		if _, err := b.BuildAll(context.Background()); err != nil {
			bm.Fatal(err)
		}
		if len(b.Built) != 0 {
			bm.Fatalf("warm build rebuilt %v", b.Built)
		}
	}
}
