package page

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFigureCaptionFromTxt: a figure's caption is the .txt written beside it, and the .txt and .tex
// companions are not listed as other files.
func TestFigureCaptionFromTxt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "exp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"manifest.json": `{"experiment":"exp"}`,
		"cut.svg":       `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"></svg>`,
		"cut.txt":       "exp: cut rate over k. Error bars: 95% CI; n = 10 graphs.\n",
		"cut.tex":       `\caption{cut rate}`,
		"other.txt":     "not a caption",
	}
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := loadExperiment(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Figures) != 1 || e.Figures[0].Caption != "exp: cut rate over k. Error bars: 95% CI; n = 10 graphs." {
		t.Fatalf("figures %+v; want one captioned from cut.txt", e.Figures)
	}
	if slices.Contains(e.OtherFiles, "cut.txt") || slices.Contains(e.OtherFiles, "cut.tex") || !slices.Contains(e.OtherFiles, "other.txt") {
		t.Errorf("other files %v: want other.txt only, not the figure's companions", e.OtherFiles)
	}
}
