package main

import (
	"context"
	"errors"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/runs"
)

type sessionReader interface {
	GetSession(ctx context.Context, tenantID, sessionID string) (chat.Session, error)
}

type runReader interface {
	Get(ctx context.Context, tenantID, runID string) (runs.Run, error)
}

// owners decides subscriptions as the HTTP routes decide reads: a session is watched by its user
// while it is not archived (GET /api/session/{id}/messages), a run by its user (GET
// /agent/run/{id}); another user's or tenant's is not found, exactly like one that does not exist.
type owners struct {
	sessions sessionReader
	runs     runReader
}

func (o owners) Watch(ctx context.Context, who realtime.Owner, t realtime.Topic) error {
	var user string
	switch t.Kind {
	case realtime.KindSession:
		s, err := o.sessions.GetSession(ctx, who.TenantID, t.ID)
		if errors.Is(err, chat.ErrNotFound) || (err == nil && s.Archived) {
			return realtime.ErrNoAccess
		} else if err != nil {
			return err
		}
		user = s.UserID
	case realtime.KindRun:
		r, err := o.runs.Get(ctx, who.TenantID, t.ID)
		if errors.Is(err, runs.ErrNotFound) {
			return realtime.ErrNoAccess
		} else if err != nil {
			return err
		}
		user = r.UserID
	default:
		return realtime.ErrNoAccess
	}
	if user != who.UserID {
		return realtime.ErrNoAccess
	}
	return nil
}
