package main

import (
	"strings"
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
