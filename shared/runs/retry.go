package runs

import (
	"context"
	"errors"

	"github.com/screenagent/backend/shared/trust/replay"
)

// lease holds the run for the step. When another request holds it and this one has an
// Idempotency-Key, it may be this request's own twin still in flight (a client retrying after a
// timeout): the request waits briefly and is answered with the twin's response once it is
// stored (found), as interact does (replay.Wait). A run still held when the wait ends, or held
// by a request without a key, is ErrConflict.
func (s *Service) lease(ctx context.Context, idem idemRequest, run Run, leaseID string) (StepResponse, bool, error) {
	var (
		resp  StepResponse
		found bool
	)
	wait := replay.Wait{Reserve: orDefault(s.WriteReserve, DefaultWriteReserve), Now: s.now}
	err := wait.Until(ctx, func(ctx context.Context) (bool, error) {
		err := s.Store.Lease(ctx, run, leaseID, s.now().Add(leaseDuration))
		if idem.key == "" || err != nil && !errors.Is(err, ErrConflict) {
			return true, err
		}
		// Held by another request, or taken just after the twin committed (the lease is an item
		// of its own, not the run as read): either way the twin's response may be stored now.
		var rerr error
		resp, found, rerr = s.replay(ctx, idem)
		if err == nil && (found || rerr != nil) {
			if err := s.Store.Release(context.WithoutCancel(ctx), run.TenantID, run.ID, leaseID); err != nil {
				s.logger().WarnContext(ctx, "release run lease", "runId", run.ID, "error", err.Error())
			}
		}
		return err == nil || found, rerr
	})
	if errors.Is(err, replay.ErrInFlight) {
		return StepResponse{}, false, ErrConflict
	}
	return resp, found, err
}
