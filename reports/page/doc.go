// Package page turns a results folder into one self-contained HTML page
// (index.html): per experiment its setup, tables with their confidence
// intervals, figures (inline SVG), the paper's claims with their verdicts,
// and the manifest; for a nightly folder also the comparison with the
// baseline, changes first.
//
// Load reads a folder (an experiment's, a results base folder holding one
// folder per experiment, or a nightly folder with compare.json beside them);
// Write renders what Load read. The page loads nothing from the network: its
// Content-Security-Policy allows only inline styles and data: images, and it
// has no script, so a browser shows it offline exactly as written.
//
// Runs that do not count are named, never judged again here: an
// experiment's raw.csv records each run's validity (its tables, table.csv,
// were computed without the invalid runs), and compare.json lists the
// invalid runs compare left out and the suspect ones it kept. The page lists
// both with their reasons and marks a comparison row's suspect runs in its n.
//
// Verdicts judged on a simulated cluster (claims.json says so) are the model's: the page marks them
// with the cluster's standing (not validated, validated, extrapolated), counts them apart from the
// real clusters' in its headline, and where one experiment was judged on both (two results folders of
// it, gathered in one folder or one folder down), shows their verdicts side by side, a column each,
// never added up.
//
// A folder without claims.json (written before the verdicts had their own
// file) shows its notes.md instead.
package page
