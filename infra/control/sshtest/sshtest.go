package sshtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"embed"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	mnetwork "github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/wait"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/stormlab/stormlab/infra/images"
)

//go:embed files/Dockerfile
var files embed.FS

// User is the login user of the server.
const User = "storm"

// Server is a running SSH server and the files a client needs for it.
type Server struct {
	Addr       string        // 127.0.0.1:PORT
	HostKey    ssh.PublicKey // the server's ed25519 host key
	Key        string        // a private key file the server accepts for User
	OtherKey   string        // a private key file the server refuses
	KnownHosts string        // a known_hosts file holding HostKey for Addr
	ctr        *testcontainers.DockerContainer
}

// Start starts a server for t and removes it when t ends. It skips t with -short or without a Docker
// engine.
func Start(t testing.TB) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("container test: skipped with -short")
	}
	ctx := context.Background()
	base := baseImage(t, ctx)
	dir := t.TempDir()
	key, pub := keyPair(t, filepath.Join(dir, "id_ed25519"))
	other, _ := keyPair(t, filepath.Join(dir, "other_ed25519"))
	// testcontainers-go reads these once from the environment: loopback for mapped ports (this machine
	// has /.dockerenv) and no Ryuk (it needs a pulled image); t.Cleanup removes the container.
	for k, v := range map[string]string{"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1", "TESTCONTAINERS_RYUK_DISABLED": "true"} {
		if os.Getenv(k) == "" {
			t.Setenv(k, v)
		}
	}
	ctxDir := filepath.Join(dir, "build")
	df, err := files.ReadFile("files/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), df, 0o644); err != nil {
		t.Fatal(err)
	}
	ctr, err := testcontainers.Run(ctx, "",
		testcontainers.WithDockerfile(testcontainers.FromDockerfile{Context: ctxDir, Repo: "stormlab/sshd-test", Tag: "latest",
			BuildArgs: map[string]*string{"BASE": &base}, KeepImage: true}),
		testcontainers.WithLabels(map[string]string{"org.stormlab.test": "sshtest"}),
		testcontainers.WithFiles(testcontainers.ContainerFile{Reader: bytes.NewReader(ssh.MarshalAuthorizedKey(pub)),
			ContainerFilePath: "/etc/ssh/keys/" + User, FileMode: 0o644}),
		publishLoopback("22/tcp"),
		testcontainers.WithWaitStrategy(wait.ForLog("Server listening on").WithStartupTimeout(2*time.Minute)))
	t.Cleanup(func() {
		if ctr != nil {
			if err := ctr.Terminate(context.Background()); err != nil {
				t.Errorf("remove sshd container: %v", err)
			}
		}
	})
	if err != nil {
		t.Fatalf("start sshd container: %v", err)
	}
	port, err := ctr.MappedPort(ctx, "22/tcp")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port.Num()), Key: key, OtherKey: other, ctr: ctr}
	s.HostKey = hostKey(t, ctx, ctr)
	s.KnownHosts = filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(s.KnownHosts, []byte(knownhosts.Line([]string{s.Addr}, s.HostKey)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// baseImage is the tag of stormlab's Debian base image (built here when missing).
func baseImage(t testing.TB, ctx context.Context) string {
	b, err := images.New(ctx)
	if errors.Is(err, images.ErrNoEngine) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tag, err := b.Build(ctx, images.Base)
	if err != nil {
		t.Fatalf("build the base image: %v", err)
	}
	return tag
}

// KeyFiles writes a fresh ed25519 private key and an empty known_hosts file into a temporary folder:
// a client the test server does not know, for tests of refusals.
func KeyFiles(t testing.TB) (key, known string) {
	t.Helper()
	dir := t.TempDir()
	key, _ = keyPair(t, filepath.Join(dir, "id"))
	known = filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return key, known
}

// keyPair writes a new ed25519 private key to path (OpenSSH form, mode 0600) and returns the path and
// the public key.
func keyPair(t testing.TB, path string) (string, ssh.PublicKey) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return path, sp
}

// hostKey reads the container's ed25519 host key (made when it started).
func hostKey(t testing.TB, ctx context.Context, ctr *testcontainers.DockerContainer) ssh.PublicKey {
	code, r, err := ctr.Exec(ctx, []string{"cat", "/etc/ssh/ssh_host_ed25519_key.pub"}, tcexec.Multiplexed())
	if err != nil || code != 0 {
		t.Fatalf("read the host key: exit %d: %v", code, err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	k, _, _, _, err := ssh.ParseAuthorizedKey(out)
	if err != nil {
		t.Fatalf("parse the host key %q: %v", out, err)
	}
	return k
}

// Exec runs cmd in the server's container as root (for checks the SSH user cannot make).
func (s *Server) Exec(ctx context.Context, cmd ...string) (int, string, error) {
	code, r, err := s.ctr.Exec(ctx, cmd, tcexec.Multiplexed())
	if err != nil {
		return code, "", err
	}
	out, err := io.ReadAll(r)
	return code, string(out), err
}

// publishLoopback publishes port on an ephemeral port of 127.0.0.1 only.
func publishLoopback(port string) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		req.ExposedPorts = append(req.ExposedPorts, port)
		req.HostConfigModifier = func(h *container.HostConfig) {
			h.PortBindings = mnetwork.PortMap{mnetwork.MustParsePort(port): {{HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: "0"}}}
		}
		return nil
	}
}
