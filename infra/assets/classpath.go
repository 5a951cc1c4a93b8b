package assets

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stormlab/stormlab/topologies"
)

// SubmitClasspathFile, next to the topology jar, caches the classpath of storm-client and its
// dependencies (Maven's dependency:build-classpath, provided scope: the cluster provides them to
// workers, the local submitter needs them too).
const SubmitClasspathFile = "submit-classpath.txt"

// SubmitClasspath is the classpath a local submitter of jar needs (storm-client and its dependencies),
// cached beside jar.
func SubmitClasspath(ctx context.Context, jar string) (string, error) {
	f := filepath.Join(filepath.Dir(jar), SubmitClasspathFile)
	if data, err := os.ReadFile(f); err == nil && len(bytes.TrimSpace(data)) > 0 {
		return resolveClasspath(filepath.Dir(f), string(data)), nil
	}
	root, err := Home()
	if err != nil {
		return "", err
	}
	pom := filepath.Join(root, filepath.Dir(filepath.Dir(topologies.StormJar)), "pom.xml")
	cmd := exec.CommandContext(ctx, "mvn", "-q", "-o", "-B", "-f", pom, "dependency:build-classpath",
		"-Dmdep.includeScope=provided", "-Dmdep.outputFile="+f)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("storm-client classpath for the local submitter: mvn dependency:build-classpath: %w: %s (run make setup first)", err, tail(string(out), 5))
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return "", fmt.Errorf("storm-client classpath: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// resolveClasspath makes the relative entries of a classpath file (a home made by `stormlab setup`
// writes "submit-lib/*") relative to the file's folder, so a home works wherever it is.
func resolveClasspath(dir, cp string) string {
	parts := filepath.SplitList(strings.TrimSpace(cp))
	for i, p := range parts {
		if p != "" && !filepath.IsAbs(p) {
			parts[i] = filepath.Join(dir, p)
		}
	}
	return strings.Join(parts, string(os.PathListSeparator))
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
