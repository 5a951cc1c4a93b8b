package experiments

import (
	"context"

	"github.com/stormlab/stormlab/experiments/lab"
)

// The framework lives in package lab; these aliases keep the experiment
// definitions short (Spec, Row, Claim, ... without a package prefix) and
// the package's public API (experiments.Run, experiments.Report, ...)
// stable for cmd/stormlab.

type (
	Spec       = lab.Spec
	Metric     = lab.Metric
	Env        = lab.Env
	Row        = lab.Row
	Results    = lab.Results
	Aggregate  = lab.Aggregate
	Point      = lab.Point
	SeriesAgg  = lab.SeriesAgg
	Claim      = lab.Claim
	ClaimKind  = lab.ClaimKind
	ClaimsFile = lab.ClaimsFile
	ClaimJSON  = lab.ClaimJSON
	Report     = lab.Report
	Options    = lab.Options
	Manifest   = lab.Manifest
	HostInfo   = lab.HostInfo
	Paper      = lab.Paper
)

// Claim kinds.
const (
	PaperClaim   = lab.PaperClaim
	SanityCheck  = lab.SanityCheck
	ProjectClaim = lab.ProjectClaim
)

// Scales.
const (
	DefaultScale   = lab.DefaultScale
	MinVerdictReps = lab.MinVerdictReps
)

// Framework functions used by the definitions and by cmd/stormlab.
var (
	Summarise   = lab.Summarise
	JudgeClaims = lab.JudgeClaims
	Cite        = lab.Cite
	FormatX     = lab.FormatX
	WriteBib    = lab.WriteBib
	PaperByKey  = lab.PaperByKey
	// CheckScale reports whether a name is a scale (ci, quick, full).
	CheckScale = lab.CheckScale
	// SummaryTable is the suite's one-line-per-experiment table.
	SummaryTable = lab.SummaryTable
	// WriteSuiteSummary is the suite's terminal summary (120 columns).
	WriteSuiteSummary = lab.WriteSuiteSummary

	graphUnits = lab.GraphUnits
	runUnits   = lab.RunUnits
	xMeans     = lab.XMeans
	atX        = lab.AtX
	orStr      = lab.OrStr
)

// Paper keys of the Papers table used by the experiments.
const (
	paperKPart    = "jian2018kpart"
	paperDeadline = "choi2021deadline"
	paperSPD      = "eidenbenz2016spd"
)

// Run runs spec with the registry's paper list (for the papers'
// summaries); see lab.Run.
func Run(ctx context.Context, spec *Spec, o Options) (*Report, error) {
	if o.PaperExperiments == nil {
		o.PaperExperiments = paperExperiments
	}
	return lab.Run(ctx, spec, o)
}

// WritePaperSummary rebuilds <out>/summary-<paper>.md from the claims.json
// of the paper's registered experiments found under out.
func WritePaperSummary(out, paper string) (string, error) {
	return lab.WritePaperSummary(out, paper, paperExperiments(paper))
}

// paperExperiments lists the registered experiments of a paper.
func paperExperiments(key string) []string {
	var out []string
	for _, s := range List() {
		if s.Paper == key {
			out = append(out, s.Name)
		}
	}
	return out
}
