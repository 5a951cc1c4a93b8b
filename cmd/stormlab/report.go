package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/reports/page"
)

func newReportCmd() *cobra.Command {
	var out, title string
	cmd := &cobra.Command{
		Use:   "report DIR [--out FILE] [--title TEXT]",
		Short: "Write one self-contained HTML page (DIR/index.html) of a results or nightly folder",
		Long: "report reads DIR, an experiment's folder (DIR/NAME), a results folder holding one folder per\n" +
			"experiment, or a nightly folder (with compare.json from `stormlab compare --format json`), and\n" +
			"writes one HTML page: per experiment its setup, tables with their 95% CIs, figures, the papers'\n" +
			"claims with their verdicts, and the manifest; for a nightly folder the comparison with the\n" +
			"baseline, changes first. The page needs no network and no other file.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("report needs exactly one DIR (got %d arguments): the folder `stormlab experiment NAME --out DIR` wrote", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := page.Load(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join(args[0], "index.html")
			}
			if title == "" {
				abs, _ := filepath.Abs(args[0])
				title = "stormlab results: " + filepath.Base(abs)
			}
			if err := writeFileAtomic(out, func(w *os.File) error {
				return page.Write(w, f, page.Options{Title: title, Generated: time.Now()})
			}); err != nil {
				return failed(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "page to write (default DIR/index.html)")
	cmd.Flags().StringVar(&title, "title", "", "page title (default \"stormlab results: \" and DIR's name)")
	return cmd
}

// writeFileAtomic writes path through a temporary file and a rename, so a
// reader never sees half a page.
func writeFileAtomic(path string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
