package experiments

import (
	"context"

	"github.com/stormlab/stormlab/experiments/lab"
)

// Paper keys of the Papers table used by the experiments.
const (
	paperKPart    = "jian2018kpart"
	paperDeadline = "choi2021deadline"
	paperSPD      = "eidenbenz2016spd"
)

// Run runs spec with the registry's paper list (for the papers'
// summaries); see lab.Run.
func Run(ctx context.Context, spec *lab.Spec, o lab.Options) (*lab.Report, error) {
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
