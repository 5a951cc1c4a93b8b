package docker

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"

	"github.com/testcontainers/testcontainers-go"
	"golang.org/x/crypto/ssh"
)

// SSH into the supervisors, for a cluster used as a user's cluster is (WithSSH): the harness reaches
// the hosts through the SSH control layer (infra/control), as it reaches a user's hosts, not through
// Docker. OpenSSH runs beside the supervisor daemon in its container (bin/stormlab-entrypoint starts it
// when STORMLAB_SSHD_PORT is set), accepts one key for root, and presents a host key made here, so
// the known_hosts lines are known without asking the container.

// SSHPort is the port sshd listens on inside a supervisor container.
const SSHPort = 2222

// SSHUser is the login of the supervisors' sshd: root, like the supervisor and its workers (pausing a
// worker JVM and reading the container's cgroup need no more).
const SSHUser = "root"

// Paths inside a supervisor container.
const (
	sshHostKeyPath       = "/etc/ssh/stormlab_host_ed25519_key"
	sshAuthorizedKeyPath = "/etc/ssh/stormlab_authorized_keys"
)

// WithSSH runs sshd in every supervisor container (published on 127.0.0.1), with a client key and host
// keys made for this cluster; Cluster.SSH gives what a client needs.
func WithSSH() Option {
	return func(c *config) error {
		keys, err := newSSHKeys()
		if err != nil {
			return fmt.Errorf("ssh keys: %w", err)
		}
		c.ssh = keys
		return nil
	}
}

// sshKeys are a cluster's client key and each supervisor's host key (made on first use).
type sshKeys struct {
	client    ed25519.PrivateKey
	hostKeys  map[string]ed25519.PrivateKey
	clientPub ssh.PublicKey
}

func newSSHKeys() (*sshKeys, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pub, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		return nil, err
	}
	return &sshKeys{client: priv, clientPub: pub, hostKeys: map[string]ed25519.PrivateKey{}}, nil
}

// hostKey is host's key, made on first use. Supervisors start concurrently: called under Cluster.mu.
func (k *sshKeys) hostKey(host string) (ed25519.PrivateKey, error) {
	if key, ok := k.hostKeys[host]; ok {
		return key, nil
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	k.hostKeys[host] = key
	return key, nil
}

// pemKey is key in OpenSSH's private key form.
func pemKey(key ed25519.PrivateKey) ([]byte, error) {
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(block), nil
}

// withSupervisorSSH gives a supervisor container its sshd: host key, authorized key, the port published
// on 127.0.0.1 and the entrypoint's switch.
func (c *Cluster) withSupervisorSSH(keys *sshKeys, host string) (testcontainers.CustomizeRequestOption, error) {
	c.mu.Lock()
	key, err := keys.hostKey(host)
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	hostPEM, err := pemKey(key)
	if err != nil {
		return nil, err
	}
	return func(req *testcontainers.GenericContainerRequest) error {
		req.Files = append(req.Files,
			testcontainers.ContainerFile{Reader: bytes.NewReader(hostPEM), ContainerFilePath: sshHostKeyPath, FileMode: 0o600},
			testcontainers.ContainerFile{Reader: bytes.NewReader(ssh.MarshalAuthorizedKey(keys.clientPub)), ContainerFilePath: sshAuthorizedKeyPath, FileMode: 0o644})
		if req.Env == nil {
			req.Env = map[string]string{}
		}
		req.Env["STORMLAB_SSHD_PORT"] = fmt.Sprint(SSHPort)
		return publish(SSHPort)(req)
	}, nil
}

// The commands that stop and start a supervisor over SSH (bin/stormlab-entrypoint runs the daemon in a
// loop that waits while the stop file exists). Stopping kills every JVM of the node: the daemon and its
// workers, as a failed node loses them (Docker's kill-supervisor stops the whole container).
const (
	SSHSupervisorStop  = "touch /tmp/stormlab-supervisor.stopped && pkill -9 java; true"
	SSHSupervisorStart = "rm -f /tmp/stormlab-supervisor.stopped"
)

// SSHAccess is what an SSH client needs to reach a cluster's supervisors.
type SSHAccess struct {
	User       string
	Key        []byte            // the client's private key (OpenSSH PEM)
	Addrs      map[string]string // supervisor host -> 127.0.0.1:PORT
	KnownHosts []byte            // known_hosts lines: each address with its host key
}

// SSH gives the client key, addresses and host keys of the supervisors' sshd (WithSSH); an error when
// the cluster was started without it.
func (c *Cluster) SSH(ctx context.Context) (*SSHAccess, error) {
	if c.ssh == nil {
		return nil, fmt.Errorf("cluster %s runs no sshd in its supervisors (start it with WithSSH)", c.ID)
	}
	key, err := pemKey(c.ssh.client)
	if err != nil {
		return nil, err
	}
	a := &SSHAccess{User: SSHUser, Key: key, Addrs: map[string]string{}}
	var known bytes.Buffer
	for _, s := range c.Supervisors() {
		p, err := s.Container.MappedPort(ctx, portName(SSHPort))
		if err != nil {
			return nil, fmt.Errorf("%s ssh port: %w", s.Host(), err)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", p.Num())
		c.mu.Lock()
		hk, ok := c.ssh.hostKeys[s.Host()]
		c.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("%s: no host key", s.Host())
		}
		pub, err := ssh.NewPublicKey(hk.Public())
		if err != nil {
			return nil, err
		}
		a.Addrs[s.Host()] = addr
		fmt.Fprintf(&known, "[127.0.0.1]:%d %s", p.Num(), ssh.MarshalAuthorizedKey(pub))
	}
	a.KnownHosts = known.Bytes()
	return a, nil
}
