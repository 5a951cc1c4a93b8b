package images

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"github.com/stormlab/stormlab/infra/assets"
)

//go:embed all:files
var files embed.FS

// Image names, in build order.
const (
	Base      = "base"
	Java      = "java"
	ZooKeeper = "zookeeper"
	Storm     = "storm"
	Service   = "service"
)

// Repo is the repository part of every image tag: stormlab/<name>:<hash>.
const Repo = "stormlab"

// LabelImage marks images built here (value: the image name).
const LabelImage = "stormlab.image"

// StormVersion is the Apache Storm release in the storm image.
const StormVersion = "2.8.3"

// ErrNoEngine reports that no Docker engine answers.
var ErrNoEngine = errors.New("no Docker engine reachable")

// ErrUnavailable reports an image whose sources are not in the repository (yet), e.g. the service image
// before cmd/stormlab-service exists.
var ErrUnavailable = errors.New("image sources not available")

// spec describes one image generically: a Dockerfile context embedded under files/<name>, the images it
// builds on (passed as build args), host inputs that are hashed cheaply, and an expensive staging step
// that runs only when the image must be built.
type spec struct {
	name string
	// deps maps a Dockerfile ARG to the image whose tag it receives.
	deps map[string]string
	// inputs returns host files to copy into the context (context path -> host path) and extra build
	// args; everything returned is part of the hash. It may return ErrUnavailable.
	inputs func(ctx context.Context, b *Builder) (map[string]string, map[string]string, error)
	// stage writes generated content (Maven jars) into the context directory.
	stage func(ctx context.Context, b *Builder, dir string) error
	// custom replaces the Dockerfile build (the base image comes from debootstrap).
	custom func(ctx context.Context, b *Builder, ref string) error
	// hashExtra is hashed in addition to the embedded files (the base's debootstrap parameters).
	hashExtra string
}

func specs() map[string]*spec {
	return map[string]*spec{
		Base: {name: Base, custom: buildBase, hashExtra: debootstrapKey},
		Java: {name: Java, deps: map[string]string{"BASE": Base}},
		ZooKeeper: {name: ZooKeeper, deps: map[string]string{"JAVA": Java},
			stage: mavenStage(mavenProject{dir: ".", deps: "lib"})},
		Storm: {name: Storm, deps: map[string]string{"JAVA": Java}, inputs: stormInputs,
			stage: mavenStage(mavenProject{dir: "maven/lib", deps: "storm/lib", jar: "storm/extlib"},
				mavenProject{dir: "maven/lib-worker", deps: "storm/lib-worker"})},
		Service: {name: Service, deps: map[string]string{"BASE": Base}, inputs: serviceInputs},
	}
}

// Names lists the images in build order.
func Names() []string { return []string{Base, Java, ZooKeeper, Storm, Service} }

// Set holds the tags of built images. Service is empty when the service sources do not exist yet.
type Set struct {
	Base, Java, ZooKeeper, Storm, Service string
}

// Builder builds images on one Docker engine. It is not safe for concurrent use.
type Builder struct {
	cli   *client.Client
	own   bool
	root  string
	logf  func(format string, args ...any)
	specs map[string]*spec
	refs  map[string]string
	// Built records the images this Builder actually built (not skipped), with durations.
	Built map[string]time.Duration
}

// Option configures a Builder.
type Option func(*Builder)

// WithRoot sets the repository root (default: the directory of the go.mod of
// github.com/stormlab/stormlab above the working directory).
func WithRoot(dir string) Option { return func(b *Builder) { b.root = dir } }

// WithLogf receives progress lines.
func WithLogf(f func(format string, args ...any)) Option { return func(b *Builder) { b.logf = f } }

// WithClient uses an existing Docker client (the Builder does not close it).
func WithClient(cli *client.Client) Option { return func(b *Builder) { b.cli = cli } }

// NewClient connects to the Docker engine from the environment (DOCKER_HOST or the default socket)
// and checks that it answers; otherwise the error wraps ErrNoEngine and says how to start one.
func NewClient(ctx context.Context) (*client.Client, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("%w (%v): start one with `sudo dockerd &` or run .ci/install-docker.sh", ErrNoEngine, err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w (%v): start one with `sudo dockerd &` or run .ci/install-docker.sh", ErrNoEngine, err)
	}
	return cli, nil
}

// New returns a Builder connected to the Docker engine.
func New(ctx context.Context, opts ...Option) (*Builder, error) {
	b := &Builder{logf: func(string, ...any) {}, specs: specs(), refs: map[string]string{}, Built: map[string]time.Duration{}}
	for _, o := range opts {
		o(b)
	}
	if b.root == "" {
		root, err := FindRoot()
		if err != nil {
			return nil, err
		}
		b.root = root
	}
	if b.cli == nil {
		cli, err := NewClient(ctx)
		if err != nil {
			return nil, err
		}
		b.cli, b.own = cli, true
	}
	return b, nil
}

// Close releases the Docker client if the Builder made it.
func (b *Builder) Close() error {
	if b.own {
		return b.cli.Close()
	}
	return nil
}

// Root is the repository root the Builder reads host inputs from.
func (b *Builder) Root() string { return b.root }

// FindRoot is the stormlab home the Builder reads host inputs from (assets.Home): a checkout, or a
// home made by `stormlab setup`.
func FindRoot() (string, error) {
	h, err := assets.Home()
	if err != nil {
		return "", fmt.Errorf("find stormlab home: %w", err)
	}
	return h, nil
}

// BuildAll builds every image, skipping those whose tag exists. The service image is left out (Set.Service
// empty) while cmd/stormlab-service does not exist.
func (b *Builder) BuildAll(ctx context.Context) (Set, error) {
	var s Set
	for _, n := range Names() {
		ref, err := b.Build(ctx, n)
		if errors.Is(err, ErrUnavailable) {
			b.logf("images: %s skipped: %v", n, err)
			continue
		}
		if err != nil {
			return s, err
		}
		switch n {
		case Base:
			s.Base = ref
		case Java:
			s.Java = ref
		case ZooKeeper:
			s.ZooKeeper = ref
		case Storm:
			s.Storm = ref
		case Service:
			s.Service = ref
		}
	}
	return s, nil
}

// Build makes sure image name exists (building the images it depends on first) and returns its tag.
func (b *Builder) Build(ctx context.Context, name string) (string, error) {
	if ref, ok := b.refs[name]; ok {
		return ref, nil
	}
	sp, ok := b.specs[name]
	if !ok {
		return "", fmt.Errorf("build image %q: unknown image; known: %s", name, strings.Join(Names(), ", "))
	}
	args := map[string]string{}
	for arg, dep := range sp.deps {
		ref, err := b.Build(ctx, dep)
		if err != nil {
			return "", err
		}
		args[arg] = ref
	}
	var hostFiles map[string]string
	if sp.inputs != nil {
		hf, extra, err := sp.inputs(ctx, b)
		if err != nil {
			return "", fmt.Errorf("build %s image: %w", name, err)
		}
		hostFiles = hf
		for k, v := range extra {
			args[k] = v
		}
	}
	hash, err := b.hash(sp, args, hostFiles)
	if err != nil {
		return "", fmt.Errorf("build %s image: hash inputs: %w", name, err)
	}
	ref := fmt.Sprintf("%s/%s:%s", Repo, name, hash)
	if _, err := b.cli.ImageInspect(ctx, ref); err == nil {
		b.refs[name] = ref
		return ref, nil
	} else if !client.IsErrNotFound(err) {
		return "", fmt.Errorf("build %s image: inspect %s: %w", name, ref, err)
	}
	b.logf("images: building %s", ref)
	start := time.Now()
	if sp.custom != nil {
		err = sp.custom(ctx, b, ref)
	} else {
		err = b.dockerBuild(ctx, sp, ref, args, hostFiles)
	}
	if err != nil {
		return "", fmt.Errorf("build %s image: %w", name, err)
	}
	b.Built[name] = time.Since(start)
	b.logf("images: built %s in %s", ref, time.Since(start).Round(time.Millisecond))
	b.refs[name] = ref
	return ref, nil
}

// hash covers the embedded context, build args (which carry the parent images' tags), host inputs and
// the spec's extra key. 12 hex digits are plenty for a handful of local images.
func (b *Builder) hash(sp *spec, args, hostFiles map[string]string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "stormlab image v1\nname %s\nextra %s\n", sp.name, sp.hashExtra)
	for _, k := range sortedKeys(args) {
		fmt.Fprintf(h, "arg %s=%s\n", k, args[k])
	}
	root := path.Join("files", sp.name)
	err := fs.WalkDir(files, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "file %s %d\n", p, len(data))
		h.Write(data)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, k := range sortedKeys(hostFiles) {
		f, err := os.Open(hostFiles[k])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "host %s\n", k)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// dockerBuild stages the context in a temporary directory and runs a classic Dockerfile build.
func (b *Builder) dockerBuild(ctx context.Context, sp *spec, ref string, args, hostFiles map[string]string) error {
	dir, err := os.MkdirTemp("", "stormlab-"+sp.name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sub, err := fs.Sub(files, path.Join("files", sp.name))
	if err != nil {
		return err
	}
	if err := os.CopyFS(dir, sub); err != nil {
		return fmt.Errorf("stage context: %w", err)
	}
	for dst, src := range hostFiles {
		if err := assets.CopyFile(src, filepath.Join(dir, filepath.FromSlash(dst))); err != nil {
			return fmt.Errorf("stage context: %w", err)
		}
	}
	if sp.stage != nil {
		if err := sp.stage(ctx, b, dir); err != nil {
			return err
		}
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(tarDir(dir, pw)) }()
	buildArgs := map[string]*string{}
	for k, v := range args {
		buildArgs[k] = &v
	}
	resp, err := b.cli.ImageBuild(ctx, pr, build.ImageBuildOptions{
		Tags:        []string{ref},
		BuildArgs:   buildArgs,
		Remove:      true,
		ForceRemove: true,
		Labels:      map[string]string{LabelImage: sp.name},
		Version:     build.BuilderV1,
	})
	if err != nil {
		pr.CloseWithError(err)
		return fmt.Errorf("docker build: %w", err)
	}
	defer resp.Body.Close()
	return readBuildStream(resp.Body, b.logf)
}

// readBuildStream follows the engine's JSON progress stream; an error message in it fails the build and
// is returned with the last lines of output before it.
func readBuildStream(r io.Reader, logf func(string, ...any)) error {
	dec := json.NewDecoder(bufio.NewReader(r))
	var tail []string
	for {
		var msg struct {
			Stream      string `json:"stream"`
			Status      string `json:"status"`
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&msg); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("read build output: %w", err)
		}
		if msg.Error != "" {
			return fmt.Errorf("%s\n--- last build output ---\n%s", msg.Error, strings.Join(tail, "\n"))
		}
		for _, line := range strings.Split(strings.TrimRight(msg.Stream+msg.Status, "\n"), "\n") {
			if line == "" {
				continue
			}
			if strings.HasPrefix(line, "Step ") {
				logf("images:   %s", line)
			}
			tail = append(tail, line)
			if len(tail) > 30 {
				tail = tail[1:]
			}
		}
	}
}

// tarDir writes dir as an uncompressed tar stream (a Docker build context).
func tarDir(dir string, w io.Writer) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			hdr.Name += "/"
		}
		hdr.ModTime = time.Unix(0, 0)
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// Prune removes stormlab images (label LabelImage) whose tag is not in keep, children before parents.
// Images in use by a container are kept (the engine refuses, and the error is ignored).
func (b *Builder) Prune(ctx context.Context, keep Set) (removed []string, err error) {
	current := map[string]bool{keep.Base: true, keep.Java: true, keep.ZooKeeper: true, keep.Storm: true, keep.Service: true}
	names := Names()
	for i := len(names) - 1; i >= 0; i-- {
		list, err := b.cli.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("label", LabelImage+"="+names[i]))})
		if err != nil {
			return removed, fmt.Errorf("prune images: %w", err)
		}
		for _, im := range list {
			for _, tag := range im.RepoTags {
				if current[tag] || !strings.HasPrefix(tag, Repo+"/") {
					continue
				}
				if _, err := b.cli.ImageRemove(ctx, tag, image.RemoveOptions{PruneChildren: true}); err == nil {
					removed = append(removed, tag)
				}
			}
		}
	}
	return removed, nil
}
