package harness

import "time"

// Phases is where one run's wall time went, in seconds, phase by phase in the run loop's order: the
// overhead around the measurement window is what a faster harness can cut, the window is not.
type Phases struct {
	// ClusterS is the cluster's start-up (images, containers, supervisors registered), on the first
	// run of a session only.
	ClusterS float64 `json:"cluster_s,omitempty"`
	IdleS    float64 `json:"idle_s"`    // before the run: the previous run's topology and workers gone
	SubmitS  float64 `json:"submit_s"`  // jar copied, submitter JVM ran the main class
	StartS   float64 `json:"start_s"`   // scheduling round and worker JVMs: every executor has a heartbeat
	WorkersS float64 `json:"workers_s"` // every worker slot is ready by its reports to the service (see unready)
	WarmUpS  float64 `json:"warm_up_s"` // steady throughput (and a settled placement if asked)
	// StormReadS is the wait for Storm's first statistics after each end of the window (crosscheck).
	StormReadS float64 `json:"storm_read_s"`
	WindowS    float64 `json:"window_s"`  // the measurement window (a dataset run: the dataset)
	CollectS   float64 `json:"collect_s"` // reports covering the window, final placement, service state
	KillS      float64 `json:"kill_s"`    // the kill request (the topology's removal is the next idle wait)
	// GoneS is, on a target, the wait after the kill until Nimbus no longer lists the topology and its
	// workers have left their slots.
	GoneS  float64 `json:"gone_s,omitempty"`
	TotalS float64 `json:"total_s"` // all of the above
}

// pollEvery is how often the run loop's waits look again whether their condition holds: the
// conditions are cheap reads of the UI, the service or a container, and a coarser poll adds half its
// period to every wait on average.
const pollEvery = 250 * time.Millisecond

// stageStormRead is the phase of reading Storm's statistics at a window's end; on error the run's
// stage is reported as the window's.
const stageStormRead = "storm reading"

// slot is the field of phase stage.
func (p *Phases) slot(stage string) *float64 {
	switch stage {
	case stageSubmit:
		return &p.SubmitS
	case stageStart:
		return &p.StartS
	case stageWorkers:
		return &p.WorkersS
	case stageWarmUp:
		return &p.WarmUpS
	case stageStormRead:
		return &p.StormReadS
	case stageWindow:
		return &p.WindowS
	case stageCollect:
		return &p.CollectS
	case stageKill:
		return &p.KillS
	}
	return nil
}

// enter ends the current phase (adding its time to the result's Phases) and starts stage. An error
// is reported with the run's stage, which a Storm reading does not change.
func (r *running) enter(stage string) {
	now := time.Now()
	if f := r.res.Phases.slot(r.phase); f != nil && !r.phaseAt.IsZero() {
		*f += now.Sub(r.phaseAt).Seconds()
	}
	r.phase, r.phaseAt = stage, now
	r.livePhase.Store(stage) // read by the live line's goroutine
	if stage != stageStormRead {
		r.stage = stage
	}
}
