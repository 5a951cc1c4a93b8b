package images

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/docker/docker/api/types/image"

	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/tail"
)

// Debian base: the suite, variant and mirror are the whole input of the base image.
const (
	debianSuite  = "bookworm"
	debianMirror = "http://deb.debian.org/debian"
	// debootstrapKey is hashed into the base tag; bump the trailing version to force a rebuild.
	debootstrapKey = "debootstrap --variant=minbase " + debianSuite + " " + debianMirror + " v1"
)

// buildBase makes the Debian root file system with debootstrap (needs root) and imports it.
func buildBase(ctx context.Context, b *Builder, ref string) error {
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return errors.New("debootstrap not found: install it with `apt-get install -y debootstrap` (or run .ci/install-docker.sh)")
	}
	rootfs, err := os.MkdirTemp("", "stormlab-rootfs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(rootfs)
	b.logf("images:   debootstrap %s into %s", debianSuite, rootfs)
	if out, err := exec.CommandContext(ctx, "debootstrap", "--variant=minbase", debianSuite, rootfs, debianMirror).CombinedOutput(); err != nil {
		return fmt.Errorf("debootstrap: %w\n%s", err, tail.Lines(string(out), 30))
	}
	// Package caches only add size; apt-get update runs in every image that installs packages.
	for _, dir := range []string{"var/cache/apt/archives", "var/lib/apt/lists"} {
		entries, _ := os.ReadDir(filepath.Join(rootfs, dir))
		for _, e := range entries {
			if !e.IsDir() {
				os.Remove(filepath.Join(rootfs, dir, e.Name()))
			}
		}
	}
	tarCmd := exec.CommandContext(ctx, "tar", "--numeric-owner", "-C", rootfs, "-c", ".")
	stdout, err := tarCmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	tarCmd.Stderr = &stderr
	if err := tarCmd.Start(); err != nil {
		return fmt.Errorf("tar rootfs: %w", err)
	}
	rc, err := b.cli.ImageImport(ctx, image.ImportSource{Source: stdout, SourceName: "-"}, ref, image.ImportOptions{
		Changes: []string{`CMD ["/bin/bash"]`, "ENV LANG=C.UTF-8", "LABEL " + LabelImage + "=" + Base},
	})
	if err != nil {
		tarCmd.Process.Kill()
		tarCmd.Wait()
		return fmt.Errorf("docker import: %w", err)
	}
	err = readBuildStream(rc, b.logf)
	rc.Close()
	if werr := tarCmd.Wait(); werr != nil && err == nil {
		err = fmt.Errorf("tar rootfs: %w: %s", werr, stderr.String())
	}
	if err != nil {
		return fmt.Errorf("docker import: %w", err)
	}
	return nil
}

// mavenProject is an embedded Maven project (dir, relative to the image's context) whose runtime
// dependencies go to deps and whose own jar, if it builds one, goes to jar (both context paths).
type mavenProject struct{ dir, deps, jar string }

// mavenStage resolves jars with the host's Maven: for each project it runs
// `mvn package dependency:copy-dependencies`.
func mavenStage(projects ...mavenProject) func(ctx context.Context, b *Builder, dir string) error {
	return func(ctx context.Context, b *Builder, dir string) error {
		mvn, err := exec.LookPath("mvn")
		if err != nil {
			return errors.New("mvn not found: install Maven with `apt-get install -y maven`")
		}
		for _, p := range projects {
			proj := p.dir
			out := filepath.Join(dir, filepath.FromSlash(p.deps))
			pom := filepath.Join(dir, filepath.FromSlash(proj), "pom.xml")
			b.logf("images:   mvn %s -> %s", proj, p.deps)
			cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "-f", pom, "package", "dependency:copy-dependencies",
				"-DincludeScope=runtime", "-DoutputDirectory="+out)
			if res, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("maven %s: %w\n%s", proj, err, tail.Lines(string(res), 30))
			}
			jars, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(proj), "target", "*.jar"))
			for _, j := range jars {
				if err := assets.CopyFile(j, filepath.Join(dir, filepath.FromSlash(p.jar), filepath.Base(j))); err != nil {
					return err
				}
			}
			// The Maven project itself need not travel to the engine.
			if proj != "." {
				os.RemoveAll(filepath.Join(dir, filepath.FromSlash(proj)))
			} else {
				os.RemoveAll(filepath.Join(dir, "target"))
			}
		}
		return nil
	}
}

// BridgeJar is where the bridge scheduler's Maven build leaves its jar, relative to the stormlab home.
const BridgeJar = assets.BridgeJar

// BridgeClass is the IScheduler the bridge jar provides.
const BridgeClass = "org.stormlab.bridge.BridgeScheduler"

func stormInputs(_ context.Context, b *Builder) (map[string]string, map[string]string, error) {
	jar := filepath.Join(b.root, filepath.FromSlash(BridgeJar))
	if _, err := os.Stat(jar); err != nil {
		b.logf("images: %s not found: the storm image has no bridge scheduler (build it with mvn -f infra/docker/bridge package)", BridgeJar)
		return nil, nil, nil
	}
	return map[string]string{"storm/extlib-daemon/stormlab-bridge.jar": jar}, nil, nil
}

// ServiceCmd is the package of the Go scheduler service, relative to the repository root.
const ServiceCmd = assets.ServiceCmd

// serviceInputs builds the service binary for Linux. The binary itself is hashed, so the image changes
// exactly when the program does. If it links libmetis (cgo), the image installs Debian's libmetis5.
func serviceInputs(ctx context.Context, b *Builder) (map[string]string, map[string]string, error) {
	src := filepath.Join(b.root, filepath.FromSlash(ServiceCmd))
	if m, _ := filepath.Glob(filepath.Join(src, "*.go")); len(m) == 0 {
		// A home made by `stormlab setup` has the binary, not the source.
		if bin := assets.Path(b.root, assets.ServiceBinary); fileExists(bin) {
			return map[string]string{"stormlab-service": bin}, serviceArgs(bin), nil
		}
		return nil, nil, fmt.Errorf("%w: no Go files in %s and no %s", ErrUnavailable, ServiceCmd, assets.ServiceBinary)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "stormlab", "stormlab-service")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, "./"+ServiceCmd)
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if res, err := cmd.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("go build %s: %w\n%s", ServiceCmd, err, tail.Lines(string(res), 30))
	}
	return map[string]string{"stormlab-service": out}, serviceArgs(out), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// serviceArgs are the service image's build arguments for the binary bin: Debian's libmetis5 when it
// links libmetis (cgo).
func serviceArgs(bin string) map[string]string {
	args := map[string]string{"PACKAGES": ""}
	if f, err := elf.Open(bin); err == nil {
		libs, _ := f.ImportedLibraries()
		f.Close()
		for _, l := range libs {
			if strings.HasPrefix(l, "libmetis") {
				args["PACKAGES"] = "libmetis5"
			}
		}
	}
	return args
}

// lastLines returns the last n lines of s.
