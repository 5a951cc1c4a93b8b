package assets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stormlab/stormlab/topologies"
)

// Paths of the built parts inside a home, relative and slash-separated (as in the checkout).
const (
	BridgeJar     = "infra/docker/bridge/target/stormlab-bridge.jar"
	TopologiesJar = topologies.StormJar
	// FluxCoreJar is flux-core (Storm's Flux), copied there by the topologies' Maven build; user
	// topologies given as Flux files need it.
	FluxCoreJar = "topologies/storm/target/flux/flux-core.jar"
	// ServiceBinary is the Linux build of cmd/stormlab-service in a home made by setup; a checkout
	// builds it from ServiceCmd instead.
	ServiceBinary = "bin/stormlab-service"
	ServiceCmd    = "cmd/stormlab-service"
	// Marker names a home made by `stormlab setup` (JSON: the stormlab version that made it).
	Marker = "stormlab-home.json"
)

// Env is the environment variable that names the home explicitly.
const Env = "STORMLAB_HOME"

const module = "module github.com/stormlab/stormlab"

// Home finds the stormlab home (see the package doc for the order).
func Home() (string, error) {
	if h := os.Getenv(Env); h != "" {
		if isHome(h) {
			return h, nil
		}
		return "", fmt.Errorf("$%s=%s is not a stormlab home (no %s and no stormlab go.mod): run `stormlab setup --home %s` or unset it", Env, h, Marker, h)
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			starts = append(starts, filepath.Dir(exe))
		}
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, s := range starts {
		if h, ok := above(s); ok {
			return h, nil
		}
	}
	if c, err := CacheHome(); err == nil && isHome(c) {
		return c, nil
	}
	return "", errors.New("stormlab cannot find its built parts (bridge, topologies, scheduler service): run `stormlab setup` in a stormlab checkout once (it fills $XDG_CACHE_HOME/stormlab/home), or set $STORMLAB_HOME")
}

// Checkout finds the source checkout above the working directory or the executable: what `stormlab
// setup` builds from. A home made by setup is not a checkout.
func Checkout() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			starts = append(starts, filepath.Dir(exe))
		}
	}
	for _, s := range starts {
		for d := s; ; d = filepath.Dir(d) {
			if isCheckout(d) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", errors.New("no stormlab source checkout above the working directory or the executable: run `stormlab setup` inside a clone of the stormlab repository")
}

// CacheHome is where `stormlab setup` puts the home by default.
func CacheHome() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("user cache folder: %w (set $XDG_CACHE_HOME or $%s)", err, Env)
	}
	return filepath.Join(c, "stormlab", "home"), nil
}

// Path is rel (slash-separated) inside home.
func Path(home, rel string) string { return filepath.Join(home, filepath.FromSlash(rel)) }

// above walks up from dir to the first home or checkout.
func above(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if isHome(d) {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

func isHome(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, Marker)); err == nil {
		return true
	}
	return isCheckout(dir)
}

func isCheckout(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && strings.Contains(string(data), module)
}
