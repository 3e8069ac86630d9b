package runs

import (
	"context"

	"github.com/screenagent/backend/shared/realtime"
)

// Events publishes a run's real-time events (realtime.Publisher): best-effort and bounded, it
// never fails a step.
type Events interface {
	Open(ctx context.Context, tenantID string, t realtime.Topic) realtime.Stream
}

// publish tells the run's subscribers of a committed transition: the step, what it does (the
// tool it calls) and the run's status.
func (s *Service) publish(ctx context.Context, run Run, entry *Entry, resp StepResponse) {
	if s.Events == nil {
		return
	}
	ev := realtime.RunStep{RunID: run.ID, Step: run.CurrentStep, Action: resp.Action, Status: string(run.Status)}
	if entry != nil && entry.Tool != nil {
		ev.Tool = entry.Tool.Name
	}
	s.Events.Open(ctx, run.TenantID, realtime.Run(run.ID)).Send(ctx, ev)
}
