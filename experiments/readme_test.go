package experiments

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/internal/golden"
)

// The README's experiment table is generated from the registry, so that a
// new experiment appears there as soon as it is registered and a changed
// description cannot leave the README behind. TestReadmeTable fails when the
// table is not current; -update rewrites it:
//
//	go test ./experiments -run TestReadmeTable -update
//
// (the -update flag is internal/golden's, shared by every golden test).

const (
	readmeTableBegin = "<!-- experiment table: generated from experiments.List(); regenerate with `go test ./experiments -run TestReadmeTable -update` -->"
	readmeTableEnd   = "<!-- end of experiment table -->"
)

var errNoTableMarkers = errors.New("experiment table markers missing")

// readmeTable renders the experiment table: one row per registered
// experiment with its description, what it reproduces (authors, title, year,
// figure), what it needs from a cluster, its expected wall time per scale
// (ci / quick / full) and the suites it belongs to, all from its Spec.
func readmeTable(specs []*lab.Spec, suites []Suite) string {
	var b strings.Builder
	b.WriteString("| experiment | what it runs | reproduces | needs | wall time ci / quick / full | suite |\n|---|---|---|---|---|---|\n")
	for _, s := range specs {
		src := s.Source
		if src == "" {
			src = OwnQuestion
		}
		cost := s.Cost.CI + " / " + s.Cost.Quick + " / " + s.Cost.Full
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", s.Name, mdCell(s.Description), mdCell(src), s.Needs.Need, mdCell(cost), suitesOf(s.Name, suites))
	}
	return b.String()
}

// suitesOf lists the suites that run the named experiment.
func suitesOf(name string, suites []Suite) string {
	var in []string
	for _, su := range suites {
		for _, e := range su.Experiments {
			if e == name {
				in = append(in, su.Name)
			}
		}
	}
	return strings.Join(in, ", ")
}

// mdCell escapes what would end a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// spliceTable puts table between the README's markers, which must each occur
// once and in order.
func spliceTable(readme, table string) (string, error) {
	i, j := strings.Index(readme, readmeTableBegin), strings.Index(readme, readmeTableEnd)
	if i < 0 || j < i || strings.Count(readme, readmeTableBegin) != 1 || strings.Count(readme, readmeTableEnd) != 1 {
		return "", fmt.Errorf("%w: README.md must hold each of\n%s\n%s\nonce, in this order", errNoTableMarkers, readmeTableBegin, readmeTableEnd)
	}
	start := i + len(readmeTableBegin)
	return readme[:start] + "\n" + table + readme[j:], nil
}

func TestReadmeTable(t *testing.T) {
	path := filepath.Join("..", "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := spliceTable(string(raw), readmeTable(List(), Suites()))
	if err != nil {
		t.Fatal(err)
	}
	if golden.Update() {
		if want != string(raw) {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if want != string(raw) {
		t.Errorf("README.md's experiment table is not current with experiments.List(); regenerate it with\n\tgo test ./experiments -run TestReadmeTable -update\nand review the diff")
	}
}

func TestReadmeTableRendering(t *testing.T) {
	specs := []*lab.Spec{
		{Name: "a", Description: "x | y", Source: `Doe, "T", 2020, Fig. 1`, Needs: lab.Needs{Need: lab.NeedsContainers, Why: "w"}, Cost: lab.Cost{CI: "1 s", Quick: "2 s", Full: "3 s"}},
		{Name: "b", Description: "own", Needs: lab.Needs{Need: lab.NeedsNothing}, Cost: lab.Cost{CI: "4 s", Quick: "4 s", Full: "4 s"}},
	}
	suites := []Suite{{Name: "default", Experiments: []string{"b"}}, {Name: "all", Experiments: []string{"a", "b"}}}
	got := readmeTable(specs, suites)
	want := "| experiment | what it runs | reproduces | needs | wall time ci / quick / full | suite |\n|---|---|---|---|---|---|\n" +
		"| `a` | x \\| y | Doe, \"T\", 2020, Fig. 1 | containers | 1 s / 2 s / 3 s | all |\n" +
		"| `b` | own | this project's own question | none | 4 s / 4 s / 4 s | default, all |\n"
	if got != want {
		t.Errorf("readmeTable:\n%s\nwant:\n%s", got, want)
	}
}

func TestSpliceTable(t *testing.T) {
	good := "intro\n" + readmeTableBegin + "\nold\n" + readmeTableEnd + "\nrest\n"
	got, err := spliceTable(good, "new\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "intro\n" + readmeTableBegin + "\nnew\n" + readmeTableEnd + "\nrest\n"; got != want {
		t.Errorf("spliceTable = %q, want %q", got, want)
	}
	for name, bad := range map[string]string{
		"no markers":  "intro\n",
		"end first":   readmeTableEnd + "\n" + readmeTableBegin + "\n",
		"begin twice": readmeTableBegin + readmeTableBegin + readmeTableEnd,
		"only begin":  readmeTableBegin + "\n",
	} {
		if _, err := spliceTable(bad, "t\n"); !errors.Is(err, errNoTableMarkers) {
			t.Errorf("%s: err = %v, want errNoTableMarkers", name, err)
		}
	}
}

// readmeMaxLines keeps the README a guide: what stormlab is, the two
// commands, a tour, the experiment table and links; the rest lives in docs/.
const readmeMaxLines = 150

// mdLink matches a relative Markdown link target: file and optional anchor.
var mdLink = regexp.MustCompile(`\]\(([^)#:\s]*)(#[^)\s]*)?\)`)

// TestReadmeIsAGuide checks the README's length and that every relative link
// of the README and of docs/ names a file that exists and, with an anchor, a
// heading of that file.
func TestReadmeIsAGuide(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move reference material into docs/ and link it", n, readmeMaxLines)
	}
	docs, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	for _, f := range append([]string{filepath.Join("..", "README.md")}, docs...) {
		checkLinks(t, f)
	}
}

func checkLinks(t *testing.T, file string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mdLink.FindAllStringSubmatch(string(raw), -1) {
		target := file
		if m[1] != "" {
			target = filepath.Join(filepath.Dir(file), m[1])
		}
		body, err := os.ReadFile(target)
		if err != nil {
			t.Errorf("%s links to %s, which does not exist", file, m[0])
			continue
		}
		if m[2] != "" && !hasAnchor(string(body), m[2][1:]) {
			t.Errorf("%s links to %s: %s has no heading with anchor %q", file, m[0], target, m[2][1:])
		}
	}
}

// hasAnchor reports whether a Markdown text has a heading whose GitHub
// anchor (lower case, punctuation dropped, spaces to hyphens) is anchor.
func hasAnchor(text, anchor string) bool {
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		if b.String() == anchor {
			return true
		}
	}
	return false
}

func TestHasAnchor(t *testing.T) {
	text := "# Faults, recovery and the observer effect\n## A cluster run\n### `ci` profile (make test)\nnot a heading\n"
	for _, c := range []struct {
		anchor string
		want   bool
	}{
		{"faults-recovery-and-the-observer-effect", true},
		{"a-cluster-run", true},
		{"ci-profile-make-test", true},
		{"not-a-heading", false},
		{"a-cluster", false},
	} {
		if got := hasAnchor(text, c.anchor); got != c.want {
			t.Errorf("hasAnchor(%q) = %v, want %v", c.anchor, got, c.want)
		}
	}
}

// seedFileName matches the internal file names of the papers' full texts
// (three digits, underscore, 16 hex digits, .txt) and their folder. What a
// user reads cites papers by authors, title and year instead.
var seedFileName = regexp.MustCompile(`[0-9]{3}_[0-9a-f]{16}\.txt|shared/see[d]s`)

// TestNoInternalCitations scans the repository's Go and Markdown files (doc
// comments, help, scheduler sources, docs) for the papers' file names.
func TestNoInternalCitations(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "target" || d.Name() == "results") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := seedFileName.FindString(line); m != "" {
				t.Errorf("%s:%d cites a paper by its file name %q: cite authors, \"title\", year (see experiments/lab/papers.go)", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
