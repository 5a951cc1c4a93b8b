package simcluster

import (
	"context"
	"fmt"

	"github.com/stormlab/stormlab/infra/protocol"
)

// nativeScheduler decides as Storm's own scheduler name would.
func nativeScheduler(name string) (func(context.Context, *protocol.Snapshot) (*protocol.Decision, error), error) {
	return nil, fmt.Errorf("scheduler %s: Storm's own schedulers are not modelled on a simulated cluster yet; run a Go scheduler (even is EvenScheduler's model)", name)
}
