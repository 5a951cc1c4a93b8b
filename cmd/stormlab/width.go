package main

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/reports"
)

// termWidth is the width terminal output fits: $COLUMNS when it is a
// positive number (shells set it), else reports.TextWidth.
func termWidth() int {
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return reports.TextWidth
}

// writeTable prints t for the terminal: every line fits termWidth, no
// word cut (long columns move under the table as notes).
func writeTable(w io.Writer, t *reports.Table) error {
	return t.WriteTextWidth(w, termWidth())
}

// wrapLines wraps each line of s to termWidth at spaces, continuation
// lines indented two more than the line's own indent.
func wrapLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
		lines[i] = reports.WrapWords(l, termWidth(), lead+"    ")
	}
	return strings.Join(lines, "\n")
}
