package docker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/images"
)

// TestCheckBridge: a cluster whose Nimbus runs the bridge needs the bridge's jar; one that runs Storm's
// own scheduler does not.
func TestCheckBridge(t *testing.T) {
	home := t.TempDir()
	if err := checkBridge(home, images.BridgeClass); err == nil || !strings.Contains(err.Error(), "mvn -q -f infra/docker/bridge/pom.xml package") {
		t.Errorf("bridge without its jar: %v, want the build command", err)
	}
	if err := checkBridge(home, "org.apache.storm.scheduler.DefaultScheduler"); err != nil {
		t.Errorf("Storm's own scheduler: %v", err)
	}
	jar := filepath.Join(home, filepath.FromSlash(images.BridgeJar))
	if err := os.MkdirAll(filepath.Dir(jar), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jar, []byte("jar"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkBridge(home, images.BridgeClass); err != nil {
		t.Errorf("bridge with its jar: %v", err)
	}
}
