package page

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
)

// loadRuns lists the runs of raw.csv that are not valid, by its validity and
// reasons columns (written by the experiments since they judge each run; a
// raw.csv without them lists none). The tables the page shows (table.csv)
// were computed without the invalid runs; the page only names them, and
// marks the suspect ones, which the tables keep.
func (e *Experiment) loadRuns(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	hdr, err := cr.Read()
	if err != nil {
		return nil // an empty raw.csv holds no run to list
	}
	col := func(name string) int { return slices.Index(hdr, name) }
	level, reasons, series, x, rep := col("validity"), col("reasons"), col("series"), col("x"), col("rep")
	if level < 0 || reasons < 0 || series < 0 || x < 0 || rep < 0 {
		return nil
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) != len(hdr) {
			return fmt.Errorf("%s line %d: %d fields, the header has %d", path, line, len(rec), len(hdr))
		}
		n := RunNote{Where: fmt.Sprintf("%s x=%s rep %s", rec[series], rec[x], rec[rep]), Level: rec[level], Reasons: rec[reasons]}
		switch n.Level {
		case "invalid":
			e.Invalid = append(e.Invalid, n)
		case "suspect":
			e.Suspect = append(e.Suspect, n)
		}
	}
}
