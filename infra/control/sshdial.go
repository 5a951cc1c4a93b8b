package control

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Problem is why the harness could not log in to a host.
type Problem string

// The problems target check tells apart.
const (
	UnknownHost     Problem = "unknown host"     // the name does not resolve
	Unreachable     Problem = "unreachable"      // no SSH server answers at the address
	UnknownHostKey  Problem = "unknown host key" // known_hosts has no key for the address
	HostKeyMismatch Problem = "host key mismatch"
	RefusedKey      Problem = "refused key" // the server did not accept the login key
)

// HostError is a failed connection to one host, with the problem told apart and its fix.
type HostError struct {
	Host, Addr string
	Problem    Problem
	Fix        string
	Err        error
}

func (e *HostError) Error() string {
	return fmt.Sprintf("ssh to %s (%s): %s: %v: %s", e.Host, e.Addr, e.Problem, e.Err, e.Fix)
}

func (e *HostError) Unwrap() error { return e.Err }

// dial connects and logs in to host, checking its key against known_hosts.
func (s *SSH) dial(ctx context.Context, host string) (*ssh.Client, error) {
	addr, ok := s.cfg.Addr(host)
	if !ok {
		return nil, s.Can(OpExec, host)
	}
	fail := func(p Problem, err error, fix string) error {
		return &HostError{Host: host, Addr: addr, Problem: p, Err: err, Fix: fix}
	}
	conn, err := (&net.Dialer{Timeout: s.timeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		var dns *net.DNSError
		if errors.As(err, &dns) {
			return nil, fail(UnknownHost, err, fmt.Sprintf("fix control.ssh.hosts.%s (a name this machine resolves, or an address)", host))
		}
		return nil, fail(Unreachable, err, fmt.Sprintf("start sshd on %s or fix the address in control.ssh.hosts.%s", host, host))
	}
	var presented ssh.PublicKey
	cc := &ssh.ClientConfig{
		User: s.cfg.User,
		Auth: []ssh.AuthMethod{ssh.PublicKeys(s.signer)},
		HostKeyCallback: func(hostname string, remote net.Addr, key ssh.PublicKey) error {
			presented = key
			return s.hostKeys(hostname, remote, key)
		},
		HostKeyAlgorithms: s.knownAlgorithms(addr, conn.RemoteAddr()),
		Timeout:           s.timeout,
	}
	conn.SetDeadline(time.Now().Add(s.timeout)) // the handshake takes no context
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, cc)
	stop()
	if err != nil {
		conn.Close()
		return nil, s.classify(host, addr, presented, err, fail)
	}
	conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// classify tells a failed handshake's problems apart.
func (s *SSH) classify(host, addr string, presented ssh.PublicKey, err error, fail func(Problem, error, string) error) error {
	fp := "?"
	if presented != nil {
		fp = ssh.FingerprintSHA256(presented)
	}
	var ke *knownhosts.KeyError
	var re *knownhosts.RevokedError
	switch {
	case errors.As(err, &ke) && len(ke.Want) == 0:
		h, p, _ := net.SplitHostPort(addr)
		return fail(UnknownHostKey, err, fmt.Sprintf("add %s's host key (%s, fingerprint %s) to %s after checking the fingerprint on the host (`ssh-keyscan -p %s %s` prints the line)",
			host, typeOf(presented), fp, s.known, p, h))
	case errors.As(err, &ke):
		return fail(HostKeyMismatch, err, fmt.Sprintf("the host presented %s, which %s line %d does not hold: if the host was reinstalled, replace that line after checking the fingerprint; else do not connect",
			fp, ke.Want[0].Filename, ke.Want[0].Line))
	case errors.As(err, &re):
		return fail(HostKeyMismatch, err, "the host presented a key revoked in known_hosts: do not connect")
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fail(RefusedKey, err, fmt.Sprintf("add the public key of control.ssh.key (%s) to ~%s/.ssh/authorized_keys on %s, or fix control.ssh.user",
			ssh.FingerprintSHA256(s.signer.PublicKey()), s.cfg.User, host))
	}
	return fail(Unreachable, err, fmt.Sprintf("check that an SSH server answers at control.ssh.hosts.%s", host))
}

func typeOf(k ssh.PublicKey) string {
	if k == nil {
		return "?"
	}
	return k.Type()
}

// knownAlgorithms are the host-key algorithms known_hosts holds for addr, so the server presents a
// key we can check (else a server offering ed25519 and rsa may present the one known_hosts lacks and
// the check fails as a mismatch). It asks the known_hosts callback about a key no host has: the
// KeyError lists the keys known for the address. Nil (the library's default order) when none is known.
func (s *SSH) knownAlgorithms(addr string, remote net.Addr) []string {
	probe, err := ssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if !errors.As(s.hostKeys(addr, remote, probe), &ke) {
		return nil
	}
	var algos []string
	for _, k := range ke.Want {
		switch t := k.Key.Type(); t {
		case ssh.KeyAlgoRSA:
			algos = append(algos, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			algos = append(algos, t)
		}
	}
	return algos
}
