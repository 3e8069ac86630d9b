package agent

import (
	"context"
	"strings"

	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

// Events publishes a session's real-time events (realtime.Publisher): best-effort and bounded, it
// never fails a step.
type Events interface {
	Open(ctx context.Context, tenantID string, t realtime.Topic) realtime.Stream
}

// events opens the session's stream once per step. A session this step creates has no
// subscribers yet: the client learns its id from this step's answer.
func (e *Engine) events(ctx context.Context, tenantID string, st state) realtime.Stream {
	if e.Events == nil || st.newSession {
		return realtime.Discard
	}
	return e.Events.Open(ctx, tenantID, realtime.Session(st.session.ID))
}

// planStatuses is a plan's state before the step, to tell which steps the step moved.
type planStatuses struct {
	revision int
	statuses []string
}

func snapshotPlan(p *tasks.Plan) *planStatuses {
	if p == nil {
		return nil
	}
	s := &planStatuses{revision: p.Revision}
	for _, st := range p.Steps {
		s.statuses = append(s.statuses, st.Status)
	}
	return s
}

// executing announces, before the model is asked, the step being worked on: the plan's current
// step, or without a plan the task's next step (totalSteps 0).
func executing(st state, mem *tasks.Memory) realtime.StepProgress {
	ev := realtime.StepProgress{SessionID: st.session.ID, TaskID: st.task.ID, CurrentStep: st.task.StepCount + 1, StepStatus: realtime.StepExecuting}
	if p := mem.Plan; p != nil && len(p.Steps) > 0 {
		i := min(p.Current, len(p.Steps)-1)
		ev.CurrentStep, ev.TotalSteps, ev.StepDescription = i+1, len(p.Steps), p.Steps[i].Description
	}
	return ev
}

// stepEvents are what a committed step tells subscribers: the plan steps it created or moved
// (every step of a new or revised plan), or without a plan the task's step; the values it
// extracted; and the task's status when it finished or waits for the user.
func stepEvents(st state, before *planStatuses, mem *tasks.Memory, resp Response, extracted []string) []realtime.Event {
	var out []realtime.Event
	base := realtime.StepProgress{SessionID: st.session.ID, TaskID: st.task.ID}
	finished := resp.Status == string(tasks.StatusCompleted) || resp.Status == string(tasks.StatusFailed)
	if p := mem.Plan; p != nil && len(p.Steps) > 0 {
		whole := before == nil || before.revision != p.Revision || len(before.statuses) != len(p.Steps)
		for i, s := range p.Steps {
			status := stepStatus(s.Status)
			if resp.Status == string(tasks.StatusFailed) && i == min(p.Current, len(p.Steps)-1) {
				status = realtime.StepFailed
			}
			if !whole && before.statuses[i] == s.Status && status != realtime.StepFailed {
				continue
			}
			ev := base
			ev.CurrentStep, ev.TotalSteps, ev.StepDescription, ev.StepStatus = i+1, len(p.Steps), s.Description, status
			out = append(out, ev)
		}
	} else {
		ev := base
		ev.CurrentStep, ev.StepStatus = resp.CurrentStep, realtime.StepCompleted
		if resp.Status == string(tasks.StatusFailed) {
			ev.StepStatus = realtime.StepFailed
		}
		out = append(out, ev)
	}
	for _, k := range extracted {
		if v, ok := mem.Variables[k]; ok && publishable(k, v) {
			out = append(out, realtime.VariableExtracted{SessionID: st.session.ID, TaskID: st.task.ID, Key: k, Value: v})
		}
	}
	if finished || resp.Status == StatusNeedsUserInput {
		out = append(out, realtime.TaskStatus{SessionID: st.session.ID, TaskID: st.task.ID, Status: resp.Status, UserQuestion: resp.UserQuestion})
	}
	return out
}

// stepStatus maps a plan step's status to step_progress's.
func stepStatus(s string) string {
	switch s {
	case tasks.PlanDone, tasks.PlanSkipped:
		return realtime.StepCompleted
	case tasks.PlanInProgress:
		return realtime.StepExecuting
	case tasks.PlanFailed:
		return realtime.StepFailed
	}
	return realtime.StepPending
}

// publishable reports an extracted value that may leave the server, by the trust policy: never
// one whose key names a secret, a masked value, or a reference to a secret the browser keeps
// (secret("name")). What is published is what is stored, and storage holds no secret.
func publishable(key, value string) bool {
	return !trust.SecretText(key) && !strings.Contains(value, trust.Mask) && !strings.Contains(value, "secret(")
}
