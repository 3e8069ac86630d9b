package agent

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust/replay"
)

// TaskLeases is what the engine needs of the tasks store to hold a step's task and its
// Idempotency-Key while it decides (tasksdb.Store).
type TaskLeases interface {
	LeaseTask(ctx context.Context, task tasks.Task, leaseID string, until time.Time) error
	ReleaseTask(ctx context.Context, tenantID, taskID, leaseID string) error
	ClaimIdempotency(ctx context.Context, tenantID, key, requestHash, claimID string, until time.Time) error
	ReleaseIdempotency(ctx context.Context, tenantID, key, claimID string) error
}

// Holding a step. An LLM call is the costly part of a step, and only one of concurrent requests
// for the same step can store it: before the call the request leases the task (a second request
// gets 409 RESOURCE_CONFLICT at once instead of paying for a call that cannot be stored) and
// claims its Idempotency-Key (a retry of the request in flight waits for its response instead of
// deciding again). The commit ends both; any failure releases them, so the retry can go on.
const (
	// leaseDuration outlives any request (a function times out at 29 s), so a live holder never
	// loses its lease, and one that died blocks its task for at most this long.
	leaseDuration = 35 * time.Second
	// replayWait bounds how long a retry waits for the response of the request in flight with
	// its key (never past its own deadline, less the write reserve); replayPoll is how often it looks.
	replayWait = replay.DefaultMax
	replayPoll = replay.DefaultPoll
)

// ownKey scopes the request's Idempotency-Key to its user: keys are stored per tenant, and another
// member of the tenant sending the same key must neither get this user's response nor block it.
func ownKey(req Request) string {
	if req.IdempotencyKey == "" {
		return ""
	}
	return req.Identity.UserID + "/" + req.IdempotencyKey
}

// hold is what a step holds until it commits or fails.
type hold struct {
	e              *Engine
	tenant         string
	key, claimID   string // the claimed Idempotency-Key, "" when none
	taskID, leased string // the leased task and the lease's id, "" when none
}

// claim answers a request whose Idempotency-Key has a stored response with it (found), waits
// for a request in flight with the key to store its response, or claims the key for this request.
// A key used with another body is ErrIdempotencyMismatch; a twin still in flight when the wait
// ends is ErrConflict.
func (e *Engine) claim(ctx context.Context, req Request) (*hold, Response, bool, error) {
	h := &hold{e: e, tenant: req.Identity.TenantID}
	if req.IdempotencyKey == "" {
		return h, Response{}, false, nil
	}
	k := &keyLook{e: e, req: req, h: h}
	wait := replay.Wait{Max: replayWait, Poll: replayPoll, Reserve: e.writeReserve(), Now: e.now}
	err := wait.Until(ctx, k.look)
	switch {
	case errors.Is(err, replay.ErrInFlight):
		return nil, Response{}, false, ErrConflict
	case err != nil || !k.claimed:
		return nil, k.resp, k.found, err
	}
	return h, Response{}, false, nil
}

// keyLook is what claim's looks at the Idempotency-Key found: the stored response of an earlier
// request with the key, or the claim this request made on it.
type keyLook struct {
	e   *Engine
	req Request
	h   *hold
	// resp is the stored response (found); claimed: h now holds the key for this request.
	resp           Response
	found, claimed bool
}

// look reads the key's record once; done says whether waiting is over.
func (k *keyLook) look(ctx context.Context) (done bool, err error) {
	rec, err := k.e.Tasks.GetIdempotency(ctx, k.h.tenant, k.req.IdempotencyKey)
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return k.take(ctx)
	case err != nil:
		return true, err
	case rec.RequestHash != k.req.RequestHash:
		k.found = true
		return true, ErrIdempotencyMismatch
	case !rec.Pending:
		k.resp, k.found, err = k.e.replay(ctx, k.h.tenant, k.req)
		return true, err
	}
	return false, nil
}

// take claims the unused key for this request; a twin that claimed it first is waited for.
func (k *keyLook) take(ctx context.Context) (done bool, err error) {
	claimID := uuid.NewString()
	err = k.e.Tasks.ClaimIdempotency(ctx, k.h.tenant, k.req.IdempotencyKey, k.req.RequestHash, claimID, k.e.now().Add(leaseDuration))
	if err != nil {
		return false, ignore(err, tasks.ErrIdempotencyRace)
	}
	k.h.key, k.h.claimID, k.claimed = k.req.IdempotencyKey, claimID, true
	return true, nil
}

// ignore is err unless it is target.
func ignore(err, target error) error {
	if errors.Is(err, target) {
		return nil
	}
	return err
}

// leaseTask holds an existing task for the step; a new task is not shared yet.
func (h *hold) leaseTask(ctx context.Context, st state) error {
	if st.isNew {
		return nil
	}
	leaseID := uuid.NewString()
	err := h.e.Tasks.LeaseTask(ctx, st.task, leaseID, h.e.now().Add(leaseDuration))
	if errors.Is(err, tasks.ErrConflict) {
		return ErrConflict
	}
	if err != nil {
		return err
	}
	h.taskID, h.leased = st.task.ID, leaseID
	return nil
}

// release frees what the step holds when it failed (err set); a committed step has already
// ended both. It runs even when the client has gone, within its own deadline.
func (h *hold) release(ctx context.Context, err error) {
	if err == nil || h == nil {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.e.writeReserve())
	defer cancel()
	if h.leased != "" {
		if rerr := h.e.Tasks.ReleaseTask(wctx, h.tenant, h.taskID, h.leased); rerr != nil {
			h.e.logger().WarnContext(ctx, "release task lease", "taskId", h.taskID, "error", rerr.Error())
		}
	}
	if h.claimID != "" {
		if rerr := h.e.Tasks.ReleaseIdempotency(wctx, h.tenant, h.key, h.claimID); rerr != nil {
			h.e.logger().WarnContext(ctx, "release idempotency claim", "error", rerr.Error())
		}
	}
}
