// Package lab is the experiment framework, apart from the experiment
// definitions (package experiments): a declarative Spec, running it
// (Run), aggregating its rows (Summarise: mean, 95% CI and coefficient of
// variation per series, x and metric over the statistical units the claims
// use: graph instances, each the mean of its repetitions, or cluster runs;
// split by panel where the Spec says so), judging its claims (JudgeClaims:
// three-valued verdicts by the rules of reports/inference.go, Holm's
// correction over the experiment's difference checks, Jepsen-style merge
// per claim) and writing its files (Output). A Spec also declares what
// the experiment needs from a cluster (Needs), its expected wall time per
// scale (Cost) and its typed knobs per scale (Scales). A Spec's Run
// returns rows (and extra files as Results.Files) and writes nothing;
// judging happens only in Spec.Claims + JudgeClaims; writing only in
// Output, rendering only here and in package reports.
//
// Each Row carries its run's validity as the harness judged it
// (harness.Validity; graph rows are never judged and count as valid): an
// invalid run is in no table and no claim, a suspect one stays in the
// tables and feeds no claim on the metrics its reasons doubt
// (harness.Validity.Counts); tables, notes and ScreenRuns count them from
// the typed value (CountRuns), and raw.csv records each row's level and
// reasons for the readers of a results folder (stormlab compare, the page).
//
// Flow: Spec.Run -> Results (raw rows: series, x, instance, repetition,
// seeds, offered load, validity, metric values) -> Aggregate -> Claims -> Output:
// raw.csv, table.md, table.csv, table.tex, refs.bib, the figures (SVG,
// PDF, PNG; per metric and panel that varies, and the run's extra figures)
// each with its caption in a .txt and a .tex, the run's extra files,
// claims.json, notes.md and manifest.json in
// <out>/<experiment>/, then the paper's summary-<paper>.md next to the
// experiment folders. Each file is written atomically (temp file +
// rename) and manifest.json last, so a folder whose manifest is present
// holds one complete run.
//
// claims.json (stable; the HTML report reads it):
//
//	{"experiment": str, "profile": str, "claims": [{"statement": str,
//	 "source": str, "kind": "paper"|"sanity"|"project", "rule": str,
//	 "verdict": "holds"|"does not hold"|"inconclusive", "reason": str,
//	 "effect": num|null, "effect_label": str, "ci_low": num|null,
//	 "ci_high": num|null, "n": [int...], "p": num|null, "forced": str,
//	 "evidence": str}]}
//
// Papers are cited by authors, title and year from the Papers table
// (Cite), never by file names.
package lab
