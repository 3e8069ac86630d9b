package agenttest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/screenagent/backend/shared/agent/commit"
	"github.com/screenagent/backend/shared/tasks"
)

// Writer commits a step's writes to Tasks and Chat all or nothing, as agentdb.Writer does in one
// transaction: a task or session changed since it was read is tasks.ErrConflict, a key recorded
// by another request tasks.ErrIdempotencyRace, and either leaves both stores as they were.
type Writer struct {
	Tasks *Tasks
	Chat  *Chat
}

// CommitStep writes the step: first what is wrong with the step itself, then the first failed
// condition in the transaction's order (task, step, session, idempotency record) is the error.
func (w *Writer) CommitStep(_ context.Context, c commit.Step) error {
	w.Tasks.mu.Lock()
	defer w.Tasks.mu.Unlock()
	w.Chat.mu.Lock()
	defer w.Chat.mu.Unlock()
	tw, err := w.Tasks.prepare(c)
	if err != nil {
		return err
	}
	cw, err := w.Chat.prepare(c.Session, c.NewSession, c.Messages, c.Snapshot, c.SessionStatus, c.Task.ID, c.Now)
	var stale error
	switch {
	case errors.Is(err, errStale):
		stale = tasks.ErrConflict
	case err != nil:
		return err
	}
	if err := cmp.Or(tw.conflict, stale, tw.race); err != nil {
		return err
	}
	w.Tasks.apply(tw)
	w.Chat.apply(cw, c.Now)
	return nil
}

// taskStep is what one commit writes to the tasks store, with the conditions it failed.
type taskStep struct {
	key            string
	header         header
	step           stored[tasks.Step]
	debug          []debugRecord
	tenant         string
	verification   *stored[tasks.Verification]
	correction     *stored[tasks.Correction]
	idem           *idemRecord
	idemKey        string
	conflict, race error
}

// prepare checks a step's writes against the store, as tasksdb's conditions do. The caller holds s.mu.
func (s *Tasks) prepare(c commit.Step) (taskStep, error) {
	if c.Step.Index != c.Task.StepCount {
		return taskStep{}, fmt.Errorf("step index %d does not follow step count %d", c.Step.Index, c.Task.StepCount)
	}
	w := taskStep{key: taskKey(c.Task.TenantID, c.Task.ID), tenant: c.Task.TenantID}
	if err := s.nextTask(&w, c); err != nil {
		return taskStep{}, err
	}
	for _, d := range c.Debug {
		rec, err := s.debugRecord(d)
		if err != nil {
			return taskStep{}, err
		}
		w.debug = append(w.debug, rec)
	}
	if err := s.records(&w, c); err != nil {
		return taskStep{}, err
	}
	if r := c.Idempotency; r != nil {
		w.idemKey = idemKey(c.Task.TenantID, r.Key)
		// An expired record may be replaced, and so may the pending claim of this request.
		if old, ok := s.idem[w.idemKey]; ok && s.live(old.expires) && !(old.rec.Pending && old.rec.RequestHash == r.RequestHash) {
			w.race = tasks.ErrIdempotencyRace
		}
		w.idem = &idemRecord{
			rec:     tasks.IdempotencyRecord{Key: r.Key, RequestHash: r.RequestHash, StatusCode: r.StatusCode, Body: slices.Clone(r.Body), CreatedAt: s.now()},
			expires: s.now().Add(s.Retention.Idempotency).Unix(),
		}
	}
	return w, nil
}

// nextTask is the task header and step after the commit, and whether the task changed since it
// was read (or exists already when new), or the step was written already.
func (s *Tasks) nextTask(w *taskStep, c commit.Step) error {
	cur, exists := s.headers[w.key]
	_, stepExists := s.steps[w.key][c.Step.Index]
	if c.IsNew && exists || !c.IsNew && (!exists || !s.unchanged(cur, c.Task)) || stepExists {
		w.conflict = tasks.ErrConflict
	}
	now := s.now()
	expires := now.Add(s.Retention.For(c.Status)).Unix()
	next, err := detach(c.Task)
	if err != nil {
		return err
	}
	next.Status, next.StepCount, next.UpdatedAt = c.Status, c.Task.StepCount+1, now
	if next.CreatedAt.IsZero() {
		next.CreatedAt = now
	}
	next.CreatedAt = next.CreatedAt.UTC()
	w.header = header{task: next, expires: expires}
	step, err := detach(c.Step)
	if err != nil {
		return err
	}
	// The table keeps durations in milliseconds and stamps the step with its write.
	step.LLMLatency, step.Duration, step.CreatedAt = step.LLMLatency.Truncate(time.Millisecond), step.Duration.Truncate(time.Millisecond), now
	w.step = stored[tasks.Step]{value: step, expires: expires}
	return nil
}

// records are the step's verification and correction records as stored.
func (s *Tasks) records(w *taskStep, c commit.Step) error {
	if v := c.Verification; v != nil {
		rec, err := detach(*v)
		if err == nil {
			rec.CreatedAt = s.madeAt(rec.CreatedAt)
			w.verification = &stored[tasks.Verification]{value: rec}
			w.verification.expires, err = s.recordExpiry("verification", rec.TaskID, rec.StepIndex)
		}
		if err != nil {
			return err
		}
	}
	if cr := c.Correction; cr != nil {
		rec, err := detach(*cr)
		if err == nil {
			rec.CreatedAt = s.madeAt(rec.CreatedAt)
			w.correction = &stored[tasks.Correction]{value: rec}
			w.correction.expires, err = s.recordExpiry("correction", rec.TaskID, rec.StepIndex)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// madeAt is a record's creation time: now when the caller did not say.
func (s *Tasks) madeAt(t time.Time) time.Time {
	if t.IsZero() {
		return s.now()
	}
	return t.UTC()
}

// recordExpiry is when a verification or correction record written now expires; a record needs
// its task and step.
func (s *Tasks) recordExpiry(kind, taskID string, stepIndex int) (int64, error) {
	if taskID == "" || stepIndex < 0 {
		return 0, fmt.Errorf("%s record needs a task and a step index, got %q step %d", kind, taskID, stepIndex)
	}
	return s.now().Add(s.Retention.Records).Unix(), nil
}

// apply writes a prepared step; the new header ends any lease. The caller holds s.mu.
func (s *Tasks) apply(w taskStep) {
	h := w.header
	s.headers[w.key] = &h
	if s.steps[w.key] == nil {
		s.steps[w.key] = map[int]stored[tasks.Step]{}
	}
	s.steps[w.key][w.step.value.Index] = w.step
	s.debug[w.tenant] = append(s.debug[w.tenant], w.debug...)
	if v := w.verification; v != nil {
		k := taskKey(w.tenant, v.value.TaskID)
		if s.checks[k] == nil {
			s.checks[k] = map[int]stored[tasks.Verification]{}
		}
		// A step's action is verified once: writing its record again replaces it.
		s.checks[k][v.value.StepIndex] = *v
	}
	if c := w.correction; c != nil {
		k := taskKey(w.tenant, c.value.TaskID)
		// A record is named by its step and creation time: the same name replaces it.
		i := slices.IndexFunc(s.fixes[k], func(o stored[tasks.Correction]) bool {
			return o.value.StepIndex == c.value.StepIndex && o.value.CreatedAt.Equal(c.value.CreatedAt)
		})
		if i < 0 {
			s.fixes[k] = append(s.fixes[k], *c)
		} else {
			s.fixes[k][i] = *c
		}
	}
	if w.idem != nil {
		s.idem[w.idemKey] = *w.idem
	}
}
