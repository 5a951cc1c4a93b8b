package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// tableRows is the text rows of a terminal table in out (header first),
// each with its cells' box-drawing borders replaced by spaces and trimmed:
// "smoke   yes   cluster ...".
func tableRows(out string) []string {
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "│") {
			rows = append(rows, strings.TrimSpace(strings.ReplaceAll(l, "│", " ")))
		}
	}
	return rows
}

// footMark is a footnote mark the narrow layout adds ("[3]").
var footMark = regexp.MustCompile(`^\[\d+\]$`)

// words is the set of words of terminal output: box drawing and the
// punctuation that ends a word or a note's column name dropped, footnote
// marks left out.
func words(out string) map[string]bool {
	set := map[string]bool{}
	for _, f := range strings.FieldsFunc(out, func(r rune) bool { return r == ' ' || r == '\n' || (r >= 0x2500 && r <= 0x257F) }) {
		if f = strings.TrimRight(f, ",;:"); f != "" && !footMark.MatchString(f) {
			set[f] = true
		}
	}
	return set
}

// TestOutputFitsTerminal: every command that prints a table without Docker fits a terminal of 120 and
// of 80 columns ($COLUMNS), and cuts no word: each word printed at that width is a word of the same
// output printed unwrapped (a cut "2 worke" / "rs" would print "worke").
func TestOutputFitsTerminal(t *testing.T) {
	cmds := map[string][]string{
		"experiment list":  {"experiment", "list"},
		"schedulers":       {"schedulers"},
		"compare":          {"compare", "testdata/compare/base", "testdata/compare/new"},
		"compare verdicts": {"compare", "--verdicts", "testdata/verdicts/base", "testdata/verdicts/new"},
		"whatif":           {"whatif", "random:24:36", "--profile", "heterogeneous-4"},
		"spd":              {"spd", "--graph", "random:100", "--resources", "4", "--scheduler", "spd", "--edge-max", "5", "--format", "table"},
		"partition":        {"partition", "--graph", "random:40:80", "--k", "4", "--scheduler", "kpart", "--format", "table"},
		"partition narrow": {"partition", "--graph", "testdata/small.json", "--k", "4", "--scheduler", "even", "--format", "table"},
	}
	for name, args := range cmds {
		t.Run(name, func(t *testing.T) {
			t.Setenv("COLUMNS", "100000")
			code, full, errs := cli(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			whole := words(full)
			for _, width := range []int{120, 80} {
				t.Setenv("COLUMNS", strconv.Itoa(width))
				_, out, _ := cli(t, args...)
				for i, l := range strings.Split(out, "\n") {
					if n := utf8.RuneCountInString(l); n > width {
						t.Errorf("width %d: line %d is %d columns: %s", width, i+1, n, l)
					}
				}
				for w := range words(out) {
					if !whole[w] {
						t.Errorf("width %d: %q is not a word of the unwrapped output (a word cut?)\n%s", width, w, out)
					}
				}
			}
		})
	}
}
