package usertopo

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/topologies"
)

// ErrBadTopology marks user-topology input that cannot be run (the CLI exits 2).
var ErrBadTopology = errors.New("bad topology")

// instrumentedMain is the wrapper main class that runs a user topology's main with the instrumentation on.
const instrumentedMain = "org.stormlab.instrument.Instrumented"

// fluxMain is Flux's main class; fluxResource is where the merged jar holds the Flux YAML.
const (
	fluxMain     = "org.apache.storm.flux.Flux"
	fluxResource = "/stormlab-flux/topology.yaml"
)

// Spec names a user topology: FluxFile (with an optional Jar of its classes), or Jar and Class.
type Spec struct {
	FluxFile string
	Jar      string
	Class    string
	Name     string   // required with Class; with FluxFile it must be empty or equal the YAML's name
	Args     []string // the main's arguments (Class only)
	// ReportIntervalS is the reporter's interval, s (0: the instrumentation's default, 5).
	ReportIntervalS float64
}

// fluxDoc is the part of a Flux YAML the harness reads.
type fluxDoc struct {
	Name    string         `yaml:"name"`
	Config  map[string]any `yaml:"config"`
	Spouts  []fluxComp     `yaml:"spouts"`
	Bolts   []fluxComp     `yaml:"bolts"`
	Streams []struct {
		From string `yaml:"from"`
		To   string `yaml:"to"`
	} `yaml:"streams"`
}

type fluxComp struct {
	ID string `yaml:"id"`
}

// checkStreams names a stream whose end is no spout or bolt of the file (Flux itself fails there
// with a NullPointerException).
func (d fluxDoc) checkStreams(file string) error {
	ids := map[string]bool{}
	for _, c := range append(append([]fluxComp(nil), d.Spouts...), d.Bolts...) {
		ids[c.ID] = true
	}
	for _, st := range d.Streams {
		for _, end := range []string{st.From, st.To} {
			if !ids[end] {
				return badTopology("%s: stream %s -> %s names %q, which is no spout or bolt of the file", file, st.From, st.To, end)
			}
		}
	}
	return nil
}

func badTopology(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadTopology, fmt.Sprintf(format, a...))
}

// Check checks u without Java or Docker: files exist, the YAML parses and names the
// topology, jars are jars, the main class is in the jar. It returns the topology name and, for Flux,
// the topology's own task hooks.
func Check(u Spec) (name string, hooks []string, err error) {
	switch {
	case u.FluxFile == "" && u.Jar == "":
		return "", nil, badTopology("give a Flux file (--topology-file) or a jar with its main class (--topology-jar, --class)")
	case u.FluxFile != "" && u.Class != "":
		return "", nil, badTopology("--class is for a compiled topology (--topology-jar); a Flux file names its classes itself: drop --class")
	case u.FluxFile != "" && len(u.Args) > 0:
		return "", nil, badTopology("arguments after `--` go to a compiled topology's main; a Flux topology takes none: drop them")
	case u.FluxFile == "" && u.Class == "":
		return "", nil, badTopology("--topology-jar needs --class, the main class that submits the topology")
	case u.FluxFile == "" && u.Name == "":
		return "", nil, badTopology("--topology-jar needs --name, the name its main submits the topology under (the harness finds, measures and kills it by that name)")
	}
	if u.Jar != "" {
		if err := checkJar(u.Jar, u.Class); err != nil {
			return "", nil, err
		}
	}
	if u.FluxFile == "" {
		return u.Name, nil, checkName(u.Name, "--name")
	}
	doc, err := readFlux(u.FluxFile)
	if err != nil {
		return "", nil, err
	}
	if u.Name != "" && u.Name != doc.Name {
		return "", nil, badTopology("--name %q differs from the name %q in %s: Flux submits under the file's name; drop --name or change the file", u.Name, doc.Name, u.FluxFile)
	}
	hooks, err = fluxHooks(doc, u.FluxFile)
	return doc.Name, hooks, err
}

// topologyName is what Storm accepts as a topology name (Utils.validateTopologyName: no / . : \).
var topologyName = regexp.MustCompile(`^[^/.:\\]+$`)

func checkName(name, what string) error {
	if !topologyName.MatchString(name) {
		return badTopology("%s %q is not a Storm topology name: no '/', '.', ':' or '\\'", what, name)
	}
	return nil
}

func readFlux(file string) (fluxDoc, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return fluxDoc{}, badTopology("cannot read the Flux file: %v", err)
	}
	var doc fluxDoc
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fluxDoc{}, badTopology("%s is not valid YAML: %v", file, oneLineErr(err))
	}
	if doc.Name == "" {
		return fluxDoc{}, badTopology("%s has no `name:`: a Flux topology needs one (it is the name Flux submits under)", file)
	}
	if err := doc.checkStreams(file); err != nil {
		return fluxDoc{}, err
	}
	return doc, checkName(doc.Name, "the name in "+file)
}

// fluxHooks returns the task hooks the Flux file's config sets, so they are kept beside stormlab's.
func fluxHooks(doc fluxDoc, file string) ([]string, error) {
	v, ok := doc.Config["topology.auto.task.hooks"]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, badTopology("%s: config topology.auto.task.hooks is %T, not a list of class names", file, v)
	}
	var hooks []string
	for _, h := range list {
		s, ok := h.(string)
		if !ok {
			return nil, badTopology("%s: config topology.auto.task.hooks holds %v, not a class name", file, h)
		}
		hooks = append(hooks, s)
	}
	return hooks, nil
}

// checkJar checks that file is a jar and, when class is given, that it holds that class.
func checkJar(file, class string) error {
	zr, err := zip.OpenReader(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return badTopology("jar %s not found", file)
		}
		return badTopology("%s is not a jar: %v", file, err)
	}
	defer zr.Close()
	if class == "" {
		return nil
	}
	entry := strings.ReplaceAll(class, ".", "/") + ".class"
	for _, f := range zr.File {
		if f.Name == entry {
			return nil
		}
	}
	return badTopology("class %s is not in %s (no %s): give the fully qualified name of the main class that submits the topology", class, file, entry)
}

func oneLineErr(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

// Topology checks u, writes the merged jar into dir and, for Flux, validates the file with Flux's
// own --dry-run (a local JVM with storm-client's classpath). It returns the harness.TopologyRun the harness
// submits.
func Topology(ctx context.Context, u Spec, dir string) (harness.TopologyRun, error) {
	name, hooks, err := Check(u)
	if err != nil {
		return harness.TopologyRun{}, err
	}
	root, err := assets.Home()
	if err != nil {
		return harness.TopologyRun{}, err
	}
	topoJar := filepath.Join(root, topologies.StormJar)
	jar := filepath.Join(dir, "stormlab-user-"+name+".jar")
	parts := []jarPart{{file: u.Jar}, {file: topoJar, keep: instrumentEntry}}
	if u.FluxFile != "" {
		data, err := os.ReadFile(u.FluxFile)
		if err != nil {
			return harness.TopologyRun{}, badTopology("cannot read the Flux file: %v", err)
		}
		parts = append(parts, jarPart{file: assets.Path(root, assets.FluxCoreJar)}, jarPart{name: strings.TrimPrefix(fluxResource, "/"), data: data})
	}
	if err := mergeJars(jar, parts); err != nil {
		return harness.TopologyRun{}, err
	}
	// The local submitter of a target run reads storm-client's classpath next to the jar it submits:
	// the one cached next to the topologies jar, so Maven does not run again for every merged jar.
	cp, err := assets.SubmitClasspath(ctx, topoJar)
	if err != nil {
		return harness.TopologyRun{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, assets.SubmitClasspathFile), []byte(cp), 0o644); err != nil {
		return harness.TopologyRun{}, fmt.Errorf("write the submitter's classpath: %w", err)
	}
	main, args := u.Class, u.Args
	if u.FluxFile != "" {
		main, args = fluxMain, []string{"--resource", fluxResource, "--no-splash"}
		if err := fluxDryRun(ctx, cp, jar, u.FluxFile); err != nil {
			return harness.TopologyRun{}, err
		}
	}
	a := []string{"--main", main}
	for _, x := range args {
		a = append(a, "--arg", x)
	}
	for _, h := range hooks {
		a = append(a, "--keep-hook", h)
	}
	if u.FluxFile == "" {
		a = append(a, "--expect-name", name) // a main submitting under another name is killed (NameCheck)
	}
	if u.ReportIntervalS > 0 {
		a = append(a, "--report-interval-secs", strconv.FormatFloat(u.ReportIntervalS, 'g', -1, 64))
	}
	return harness.TopologyRun{Name: name, Jar: jar, MainClass: instrumentedMain, Args: a}, nil
}

// instrumentEntry keeps the topologies jar's instrumentation classes (and the HdrHistogram shaded for
// them) and the delaying transport (org/stormlab/net: delay faults and emulated delay) and nothing else
// of it.
func instrumentEntry(name string) bool {
	return strings.HasPrefix(name, "org/stormlab/instrument/") || strings.HasPrefix(name, "org/stormlab/shaded/") ||
		strings.HasPrefix(name, "org/stormlab/net/")
}

// jarPart is one source of the merged jar: a jar file (entries filtered by keep, all when nil) or one
// entry given as data.
type jarPart struct {
	file string
	keep func(string) bool
	name string
	data []byte
}

// mergeJars writes dst from parts in order; the first part holding an entry wins. Signatures and
// manifests are left out (the main class is named on the command line; a signature would not match
// the merged jar).
func mergeJars(dst string, parts []jarPart) (err error) {
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("write the topology jar: %w", err)
	}
	zw := zip.NewWriter(out)
	defer func() {
		if cerr := errors.Join(zw.Close(), out.Close()); err == nil && cerr != nil {
			err = fmt.Errorf("write the topology jar: %w", cerr)
		}
	}()
	seen := map[string]bool{}
	for _, p := range parts {
		switch {
		case p.name != "":
			w, err := zw.Create(p.name)
			if err == nil {
				_, err = w.Write(p.data)
			}
			if err != nil {
				return fmt.Errorf("write the topology jar: %w", err)
			}
			seen[p.name] = true
		case p.file != "":
			if err := copyJar(zw, p, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyJar copies p's entries that are not yet in the merged jar.
func copyJar(zw *zip.Writer, p jarPart, seen map[string]bool) error {
	zr, err := zip.OpenReader(p.file)
	if err != nil {
		return fmt.Errorf("read %s: %w (the topologies jar and flux-core come from `mvn -q -f topologies/storm/pom.xml package`, make setup does it)", p.file, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		n := f.Name
		if seen[n] || strings.HasSuffix(n, "/") || (p.keep != nil && !p.keep(n)) || skipMeta(n) {
			continue
		}
		seen[n] = true
		if err := copyEntry(zw, f); err != nil {
			return fmt.Errorf("copy %s from %s: %w", n, p.file, err)
		}
	}
	return nil
}

func skipMeta(n string) bool {
	if !strings.HasPrefix(n, "META-INF/") {
		return false
	}
	ext := strings.ToUpper(path.Ext(n))
	return n == "META-INF/MANIFEST.MF" || ext == ".SF" || ext == ".RSA" || ext == ".DSA" || ext == ".EC"
}

func copyEntry(zw *zip.Writer, f *zip.File) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: f.Modified})
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

// fluxDryRun runs Flux with --dry-run on the merged jar in a local JVM: Flux parses the file and
// builds every component, so a file Flux rejects or a class not on the classpath fails here, before
// anything is submitted.
func fluxDryRun(ctx context.Context, cp, jar, file string) error {
	cmd := exec.CommandContext(ctx, "java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-cp", cp+string(os.PathListSeparator)+jar, fluxMain, "--resource", fluxResource, "--dry-run", "--no-splash", "--no-detail")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return badTopology("Flux rejects %s: %s", file, fluxReason(out.String()))
	}
	if err != nil {
		return fmt.Errorf("check the Flux file with a local java: %w", err)
	}
	return nil
}

// fluxReason picks the most telling line of Flux's failed output: the last "Caused by:" or, failing
// that, the first exception line.
func fluxReason(out string) string {
	var first, cause string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "Caused by:"):
			cause = strings.TrimSpace(strings.TrimPrefix(l, "Caused by:"))
		case first == "" && strings.HasPrefix(l, "Exception in thread"):
			first = l
		}
	}
	switch {
	case cause != "":
		return cause
	case first != "":
		return first
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.Join(lines[max(0, len(lines)-3):], "\n")
}
