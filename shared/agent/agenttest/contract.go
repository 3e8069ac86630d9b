package agenttest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/agent/commit"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/fakeclock"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

// TaskStore is the tasks store as the engine uses it (agent.TaskStore) and its tests read it.
type TaskStore interface {
	GetTask(ctx context.Context, tenantID, taskID string) (tasks.Task, error)
	Steps(ctx context.Context, tenantID, taskID string) ([]tasks.Step, error)
	FailTask(ctx context.Context, task tasks.Task, reason string) error
	AlignSteps(ctx context.Context, tenantID, taskID string) error
	GetIdempotency(ctx context.Context, tenantID, key string) (tasks.IdempotencyRecord, error)
	ClaimIdempotency(ctx context.Context, tenantID, key, requestHash, claimID string, until time.Time) error
	ReleaseIdempotency(ctx context.Context, tenantID, key, claimID string) error
	LeaseTask(ctx context.Context, task tasks.Task, leaseID string, until time.Time) error
	ReleaseTask(ctx context.Context, tenantID, taskID, leaseID string) error
	PutDebug(ctx context.Context, tenantID string, e tasks.DebugEntry) error
	ListDebug(ctx context.Context, tenantID string, f tasks.DebugFilter) ([]tasks.DebugEntry, error)
	Verifications(ctx context.Context, tenantID, taskID string) ([]tasks.Verification, error)
	Corrections(ctx context.Context, tenantID, taskID string) ([]tasks.Correction, error)
}

// ChatStore is the chat store as the engine uses it (agent.ChatStore) and its tests read it.
type ChatStore interface {
	GetSession(ctx context.Context, tenantID, sessionID string) (chat.Session, error)
	CaptureDOM(ctx context.Context, tenantID, sessionID, dom string) (chat.DOMCapture, error)
	SetStatus(ctx context.Context, tenantID, sessionID string, status chat.Status) (chat.Session, error)
	ListMessages(ctx context.Context, tenantID, sessionID string, limit int, since time.Time) (chat.MessagePage, error)
	GetSnapshot(ctx context.Context, tenantID, sessionID, snapshotID string) (string, error)
}

// StepWriter commits a step (agent.StepWriter).
type StepWriter interface {
	CommitStep(ctx context.Context, c commit.Step) error
}

// Stores are the three the engine is built on, sharing one clock.
type Stores struct {
	Tasks  TaskStore
	Chat   ChatStore
	Commit StepWriter
}

// TaskRetention is what the stores under contract keep tasks for: a running task's lifetime
// shorter than a finished one's, so that aligning an ended task's steps shows. Chats are kept
// for chat.DefaultRetention().
var TaskRetention = tasks.Retention{
	Finished: 90 * 24 * time.Hour, Interrupted: 30 * 24 * time.Hour, Active: 24 * time.Hour,
	Debug: 7 * 24 * time.Hour, Records: 90 * 24 * time.Hour, Idempotency: 24 * time.Hour,
}

// NewStores makes empty stores that read the time from now and keep what they write for
// TaskRetention and chat.DefaultRetention().
type NewStores func(t *testing.T, now func() time.Time) Stores

// Contract checks what the interact engine relies on of its stores: a step's commit that happens
// at most once and all or nothing across the task and its session, idempotency records and
// claims, leases, failing a task, aligning an ended task's steps, debug entries and records,
// a session's status and page snapshots, and expiry. agentdb's tests run it against DynamoDB
// Local and this package's against Tasks, Chat and Writer.
func Contract(t *testing.T, newStores NewStores) {
	for name, check := range map[string]func(*testing.T, *harness){
		"a first step creates the task and its session": firstStep,
		"a step reads back as written":                  stepReadsBack,
		"a page is kept once per session":               pagesKeptOnce,
		"a commit from a stale read writes nothing":     staleCommit,
		"a commit out of turn is refused":               commitOutOfTurn,
		"an idempotency key is claimed once":            idempotency,
		"claims and responses end":                      claimsEnd,
		"a lease is exclusive":                          leases,
		"a task fails only as it was read":              failTask,
		"an ended task's steps live as long as it":      alignSteps,
		"debug entries are listed newest first":         debugEntries,
		"records are stored with their step":            records,
		"a session follows its task":                    sessionFollowsTask,
		"a session's status is set with its expiry":     setStatus,
		"an expired task is gone and frozen":            expiry,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The clock only moves forward from the real time: DynamoDB Local deletes items past
			// their expiry by the real clock.
			clock := fakeclock.New(time.Now().UTC().Truncate(time.Second))
			check(t, &harness{t: t, Stores: newStores(t, clock.Now), clock: clock})
		})
	}
}

var ctx = context.Background()

const tenant = "ten-a"

type harness struct {
	t *testing.T
	Stores
	clock *fakeclock.Clock
}

// bigPage is a page long enough to be kept as a snapshot.
var bigPage = "<div><h1>Shop</h1>" + strings.Repeat(`<p>Wool socks, warm and soft.</p>`, 60) + "</div>"

// start commits the first step of a new task with a new session and returns both as read back.
func (h *harness) start(taskID string) (tasks.Task, chat.Session) {
	h.t.Helper()
	now := h.clock.Now()
	task := tasks.Task{ID: taskID, TenantID: tenant, UserID: "u-1", URL: "https://shop.example/", Query: "find socks", Status: tasks.StatusActive}
	sess, err := chat.NewSession(tenant, "u-1", taskID, task.URL, task.Query, now)
	if err != nil {
		h.t.Fatal(err)
	}
	task.SessionID = sess.ID
	c := commit.Step{
		Task: task, IsNew: true, Step: tasks.Step{Index: 0, Thought: "Look.", Action: "click(2)"}, Status: tasks.StatusActive,
		Session: sess, NewSession: true, SessionStatus: chat.StatusActive, Now: now,
		Messages: []chat.Message{{Role: chat.RoleUser, Content: task.Query, Status: chat.MessageSuccess}, {Role: chat.RoleAssistant, Content: "Look.", ActionString: "click(2)", Status: chat.MessagePending}},
	}
	if err := h.Commit.CommitStep(ctx, c); err != nil {
		h.t.Fatalf("CommitStep(first step of %s) error = %v", taskID, err)
	}
	return h.read(taskID, sess.ID)
}

// read returns the task and its session as they are stored.
func (h *harness) read(taskID, sessionID string) (tasks.Task, chat.Session) {
	h.t.Helper()
	task, err := h.Tasks.GetTask(ctx, tenant, taskID)
	if err != nil {
		h.t.Fatalf("GetTask(%s) error = %v", taskID, err)
	}
	sess, err := h.Chat.GetSession(ctx, tenant, sessionID)
	if err != nil {
		h.t.Fatalf("GetSession(%s) error = %v", sessionID, err)
	}
	return task, sess
}

// next is the commit of the step after task and sess as read, leaving the task in status.
func (h *harness) next(task tasks.Task, sess chat.Session, status tasks.Status) commit.Step {
	action := fmt.Sprintf("click(%d)", task.StepCount+2)
	return commit.Step{
		Task: task, Step: tasks.Step{Index: task.StepCount, Thought: "Next.", Action: action}, Status: status,
		Session: sess, SessionStatus: chat.Status(status), Now: h.clock.Now(),
		Messages: []chat.Message{{Role: chat.RoleAssistant, Content: "Next.", ActionString: action, Status: chat.MessagePending}},
	}
}

func (h *harness) commit(c commit.Step) {
	h.t.Helper()
	if err := h.Commit.CommitStep(ctx, c); err != nil {
		h.t.Fatalf("CommitStep(step %d of %s) error = %v", c.Step.Index, c.Task.ID, err)
	}
}

func firstStep(t *testing.T, h *harness) {
	before := h.clock.Now()
	task, sess := h.start("task-1")
	if task.StepCount != 1 || task.Status != tasks.StatusActive || task.UserID != "u-1" || task.SessionID != sess.ID || task.CreatedAt.IsZero() || task.UpdatedAt.Before(before) {
		t.Errorf("new task = %+v; want it at step 1, active, of u-1 in its session, stamped with the commit", task)
	}
	if sess.Status != chat.StatusActive || sess.MessageCount != 2 || sess.TaskID != "task-1" || sess.ExpiresAt.IsZero() {
		t.Errorf("new session = %+v; want active with the 2 messages of the task", sess)
	}
	if _, err := h.Tasks.GetTask(ctx, "ten-b", "task-1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("GetTask from another tenant: error = %v, want tasks.ErrNotFound", err)
	}
	if _, err := h.Chat.GetSession(ctx, "ten-b", sess.ID); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("GetSession from another tenant: error = %v, want chat.ErrNotFound", err)
	}
	page, err := h.Chat.ListMessages(ctx, tenant, sess.ID, 0, time.Time{})
	if err != nil || page.Total != 2 || len(page.Messages) != 2 {
		t.Fatalf("ListMessages = %+v, %v; want 2 messages", page, err)
	}
	for i, msg := range page.Messages {
		if msg.SequenceNumber != i+1 || msg.ID == "" || msg.SessionID != sess.ID || msg.TaskID != "task-1" || msg.Timestamp.IsZero() || !msg.ExpiresAt.Equal(page.Session.ExpiresAt) {
			t.Errorf("message %d = %+v; want sequence %d in the session and task, expiring with the session", i, msg, i+1)
		}
	}
}

// memory is a task's memory with something in each kind of field.
var memory = tasks.Memory{
	Recent:    []tasks.Brief{{Index: 0, Action: "click(2)", Result: &tasks.Report{Status: "failure", Error: &tasks.ActionError{Code: "NOT_CLICKABLE"}}, Reported: true}},
	Plan:      &tasks.Plan{Steps: []tasks.PlanStep{{Description: "Open the cart", Status: "current"}}, Revision: 1},
	Variables: map[string]string{"size": "42"}, Page: []byte{1, 2, 3}, Cache: []byte("trail"),
	Secrets: trust.Secrets{Key: []byte("k"), Typed: []trust.Typed{{Sum: "h1", Len: 7}}}, SecretNames: []trust.NamedSecret{{Name: "pw", Origin: "shop.example"}},
}

func stepReadsBack(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	task.Memory = memory
	c := h.next(task, sess, tasks.StatusActive)
	c.Step.LLMLatency = 1234*time.Millisecond + 567*time.Microsecond
	c.Messages[0].Usage, c.Messages[0].Model, c.Messages[0].Latency = &chat.Usage{PromptTokens: 120, CompletionTokens: 20}, "m-1", c.Step.LLMLatency
	h.commit(c)
	got, _ := h.read("task-1", sess.ID)
	if m := got.Memory; len(m.Recent) != 1 || m.Recent[0].Result == nil || m.Recent[0].Result.Error.Code != "NOT_CLICKABLE" || m.Plan == nil || m.Plan.Steps[0].Description != "Open the cart" ||
		m.Variables["size"] != "42" || string(m.Page) != "\x01\x02\x03" || string(m.Cache) != "trail" || len(m.Secrets.Typed) != 1 || m.Secrets.Typed[0].Sum != "h1" || len(m.SecretNames) != 1 || m.SecretNames[0].Origin != "shop.example" {
		t.Errorf("memory read back = %+v; want the memory written", m)
	}
	steps, err := h.Tasks.Steps(ctx, tenant, "task-1")
	if err != nil || len(steps) != 2 || steps[0].Action != "click(2)" || steps[1].Action != "click(3)" || steps[1].LLMLatency != 1234*time.Millisecond || steps[1].CreatedAt.IsZero() {
		t.Errorf("Steps = %+v, %v; want click(2) then click(3) with its latency in whole milliseconds", steps, err)
	}
	page, err := h.Chat.ListMessages(ctx, tenant, sess.ID, 0, time.Time{})
	if err != nil || len(page.Messages) != 3 {
		t.Fatalf("ListMessages = %+v, %v; want 3 messages", page, err)
	}
	if last := page.Messages[2]; last.SequenceNumber != 3 || last.Usage == nil || last.Usage.PromptTokens != 120 || last.Model != "m-1" || last.Latency != 1234*time.Millisecond {
		t.Errorf("the step's message = %+v; want message 3 with its usage, model and latency in whole milliseconds", last)
	}
}

func pagesKeptOnce(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	capture, err := h.Chat.CaptureDOM(ctx, tenant, sess.ID, bigPage)
	if err != nil || capture.Snapshot == nil {
		t.Fatalf("CaptureDOM(a new page) = %+v, %v; want a snapshot to store", capture, err)
	}
	c := h.next(task, sess, tasks.StatusActive)
	c.Messages[0].AttachDOM(capture)
	c.Snapshot = capture.Snapshot
	h.commit(c)
	page, _ := h.Chat.ListMessages(ctx, tenant, sess.ID, 0, time.Time{})
	if last := page.Messages[len(page.Messages)-1]; last.SnapshotID != capture.SnapshotID || last.DOMSummary == "" || last.DOMLength != capture.Length {
		t.Errorf("the step's message = %+v; want its page's id, summary and length", last)
	}
	if dom, err := h.Chat.GetSnapshot(ctx, tenant, sess.ID, capture.SnapshotID); err != nil || dom != bigPage {
		t.Errorf("GetSnapshot = %d characters, %v; want the page", len(dom), err)
	}
	if again, err := h.Chat.CaptureDOM(ctx, tenant, sess.ID, bigPage); err != nil || again.Snapshot != nil || again.SnapshotID != capture.SnapshotID {
		t.Errorf("CaptureDOM(a stored page) = %+v, %v; want its id without a snapshot to write", again, err)
	}
	for _, tc := range []struct{ name, tenant, id string }{{"another tenant's", "ten-b", capture.SnapshotID}, {"an unknown", tenant, strings.Repeat("0", 64)}} {
		if _, err := h.Chat.GetSnapshot(ctx, tc.tenant, sess.ID, tc.id); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("GetSnapshot of %s page: error = %v, want chat.ErrNotFound", tc.name, err)
		}
	}
	if small, err := h.Chat.CaptureDOM(ctx, tenant, sess.ID, "<p>Hi</p>"); err != nil || small.Snapshot != nil || small.SnapshotID != "" || small.Summary != "Hi" {
		t.Errorf("CaptureDOM(a small page) = %+v, %v; want its summary only", small, err)
	}
}

func staleCommit(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	h.commit(h.next(task, sess, tasks.StatusActive))
	fresh, freshSess := h.read("task-1", sess.ID)
	exists := h.next(task, sess, tasks.StatusActive)
	exists.IsNew, exists.Task.StepCount, exists.Step.Index, exists.NewSession = true, 0, 0, true
	exists.Session, _ = chat.NewSession(tenant, "u-1", "task-1", "https://shop.example/", "q", h.clock.Now())
	for _, tc := range []struct {
		name string
		c    commit.Step
	}{
		{"the task changed since", h.next(task, freshSess, tasks.StatusActive)},
		{"the session changed since", h.next(fresh, sess, tasks.StatusActive)},
		{"the task is new but exists", exists},
	} {
		c := tc.c
		c.Debug = []tasks.DebugEntry{{ID: "d-" + tc.name, TaskID: "task-1", LogType: tasks.LogStep, CreatedAt: h.clock.Now()}}
		c.Verification = &tasks.Verification{TaskID: "task-1", StepIndex: c.Step.Index, Verdict: tasks.Verified, Method: "deterministic"}
		c.Idempotency = &tasks.IdempotencyRecord{Key: "k-" + tc.name, RequestHash: "h", StatusCode: 200, Body: []byte(`{}`)}
		if err := h.Commit.CommitStep(ctx, c); !errors.Is(err, tasks.ErrConflict) {
			t.Errorf("CommitStep when %s: error = %v, want tasks.ErrConflict", tc.name, err)
		}
		if _, err := h.Tasks.GetIdempotency(ctx, tenant, c.Idempotency.Key); !errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("key of the failed commit when %s: error = %v, want tasks.ErrNotFound (nothing written)", tc.name, err)
		}
	}
	got, gotSess := h.read("task-1", sess.ID)
	steps, _ := h.Tasks.Steps(ctx, tenant, "task-1")
	debug, _ := h.Tasks.ListDebug(ctx, tenant, tasks.DebugFilter{TaskID: "task-1"})
	checks, _ := h.Tasks.Verifications(ctx, tenant, "task-1")
	if got.StepCount != 2 || len(steps) != 2 || gotSess.MessageCount != 3 || len(debug) != 0 || len(checks) != 0 {
		t.Errorf("after the failed commits: step count %d, %d steps, %d messages, %d debug entries, %d verifications; want 2, 2, 3 and none",
			got.StepCount, len(steps), gotSess.MessageCount, len(debug), len(checks))
	}
}

func commitOutOfTurn(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	wrongIndex := h.next(task, sess, tasks.StatusActive)
	wrongIndex.Step.Index = 5
	if err := h.Commit.CommitStep(ctx, wrongIndex); err == nil || errors.Is(err, tasks.ErrConflict) {
		t.Errorf("CommitStep of step 5 at step count 1: error = %v, want a plain error", err)
	}
	h.commit(h.next(task, sess, tasks.StatusCompleted))
	done, doneSess := h.read("task-1", sess.ID)
	if err := h.Commit.CommitStep(ctx, h.next(done, doneSess, tasks.StatusActive)); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("CommitStep on a completed task: error = %v, want tasks.ErrConflict", err)
	}
	if got, _ := h.read("task-1", sess.ID); got.StepCount != 2 || got.Status != tasks.StatusCompleted {
		t.Errorf("task after the refused commits = step count %d, %s; want 2, completed", got.StepCount, got.Status)
	}
}

func idempotency(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	until := h.clock.Now().Add(35 * time.Second)
	if err := h.Tasks.ClaimIdempotency(ctx, tenant, "u-1/k", "h", "claim-1", until); err != nil {
		t.Fatalf("ClaimIdempotency error = %v", err)
	}
	if rec, err := h.Tasks.GetIdempotency(ctx, tenant, "u-1/k"); err != nil || !rec.Pending || rec.RequestHash != "h" {
		t.Errorf("GetIdempotency of a claimed key = %+v, %v; want the pending claim with its hash", rec, err)
	}
	if err := h.Tasks.ClaimIdempotency(ctx, tenant, "u-1/k", "h", "claim-2", until); !errors.Is(err, tasks.ErrIdempotencyRace) {
		t.Errorf("ClaimIdempotency of a claimed key: error = %v, want tasks.ErrIdempotencyRace", err)
	}
	if err := h.Tasks.ReleaseIdempotency(ctx, tenant, "u-1/k", "claim-2"); err != nil {
		t.Errorf("ReleaseIdempotency by a non-claimer: error = %v, want none (a no-op)", err)
	}
	c := h.next(task, sess, tasks.StatusActive)
	c.Idempotency = &tasks.IdempotencyRecord{Key: "u-1/k", RequestHash: "h", StatusCode: 200, Body: []byte(`{"action":"click(3)"}`)}
	h.commit(c)
	rec, err := h.Tasks.GetIdempotency(ctx, tenant, "u-1/k")
	if err != nil || rec.Pending || rec.StatusCode != 200 || string(rec.Body) != `{"action":"click(3)"}` {
		t.Errorf("GetIdempotency after the commit = %+v, %v; want the response in place of the claim", rec, err)
	}
	if err := h.Tasks.ReleaseIdempotency(ctx, tenant, "u-1/k", "claim-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Tasks.GetIdempotency(ctx, tenant, "u-1/k"); err != nil {
		t.Errorf("a response after its claimer's release: error = %v, want it kept", err)
	}
	// A twin that read the task after the first commit still loses on the key.
	fresh, freshSess := h.read("task-1", sess.ID)
	twin := h.next(fresh, freshSess, tasks.StatusActive)
	twin.Idempotency = c.Idempotency
	if err := h.Commit.CommitStep(ctx, twin); !errors.Is(err, tasks.ErrIdempotencyRace) {
		t.Errorf("CommitStep with a recorded key: error = %v, want tasks.ErrIdempotencyRace", err)
	}
	if got, _ := h.read("task-1", sess.ID); got.StepCount != 2 {
		t.Errorf("step count after the twin's commit = %d, want 2 (nothing written)", got.StepCount)
	}
}

func claimsEnd(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	c := h.next(task, sess, tasks.StatusActive)
	c.Idempotency = &tasks.IdempotencyRecord{Key: "u-1/k", RequestHash: "h", StatusCode: 200, Body: []byte(`{}`)}
	h.commit(c)
	if _, err := h.Tasks.GetIdempotency(ctx, "ten-b", "u-1/k"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("GetIdempotency from another tenant: error = %v, want tasks.ErrNotFound", err)
	}
	until := h.clock.Now().Add(35 * time.Second)
	if err := h.Tasks.ClaimIdempotency(ctx, tenant, "u-1/released", "h", "claim-1", until); err != nil {
		t.Fatal(err)
	}
	if err := h.Tasks.ReleaseIdempotency(ctx, tenant, "u-1/released", "claim-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Tasks.GetIdempotency(ctx, tenant, "u-1/released"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("a released claim: error = %v, want tasks.ErrNotFound", err)
	}
	if err := h.Tasks.ClaimIdempotency(ctx, tenant, "u-1/lapsing", "h", "claim-2", until); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(36 * time.Second)
	if err := h.Tasks.ClaimIdempotency(ctx, tenant, "u-1/lapsing", "h", "claim-3", h.clock.Now().Add(35*time.Second)); err != nil {
		t.Errorf("ClaimIdempotency after the claim lapsed: error = %v, want none", err)
	}
	h.clock.Advance(TaskRetention.Idempotency)
	if _, err := h.Tasks.GetIdempotency(ctx, tenant, "u-1/k"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("a response past its retention: error = %v, want tasks.ErrNotFound", err)
	}
}

func leases(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	until := h.clock.Now().Add(35 * time.Second)
	if err := h.Tasks.LeaseTask(ctx, task, "first", until); err != nil {
		t.Fatalf("LeaseTask error = %v", err)
	}
	if err := h.Tasks.LeaseTask(ctx, task, "second", until); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("LeaseTask of a held task: error = %v, want tasks.ErrConflict", err)
	}
	if err := h.Tasks.ReleaseTask(ctx, tenant, "task-1", "second"); err != nil {
		t.Errorf("ReleaseTask by a non-holder: error = %v, want none (a no-op)", err)
	}
	if err := h.Tasks.LeaseTask(ctx, task, "second", until); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("LeaseTask after a non-holder's release: error = %v, want tasks.ErrConflict (still held)", err)
	}
	if err := h.Tasks.ReleaseTask(ctx, tenant, "task-1", "first"); err != nil {
		t.Fatal(err)
	}
	if err := h.Tasks.LeaseTask(ctx, task, "second", until); err != nil {
		t.Errorf("LeaseTask after the holder's release: error = %v, want none", err)
	}
	// The holder's commit ends its lease; a read from before the commit can lease no more.
	h.commit(h.next(task, sess, tasks.StatusActive))
	fresh, _ := h.read("task-1", sess.ID)
	if err := h.Tasks.LeaseTask(ctx, task, "stale", until); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("LeaseTask from a read before a commit: error = %v, want tasks.ErrConflict", err)
	}
	if err := h.Tasks.LeaseTask(ctx, fresh, "third", until); err != nil {
		t.Errorf("LeaseTask after a commit: error = %v, want none (the commit ended the lease)", err)
	}
	h.clock.Advance(36 * time.Second)
	if err := h.Tasks.LeaseTask(ctx, fresh, "fourth", h.clock.Now().Add(35*time.Second)); err != nil {
		t.Errorf("LeaseTask after the holder's lapsed: error = %v, want none", err)
	}
	if err := h.Tasks.LeaseTask(ctx, tasks.Task{ID: "task-unknown", TenantID: tenant}, "fifth", until); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("LeaseTask of an unknown task: error = %v, want tasks.ErrConflict", err)
	}
}

func failTask(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	h.commit(h.next(task, sess, tasks.StatusActive))
	if err := h.Tasks.FailTask(ctx, task, "too long"); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("FailTask from a read before a step: error = %v, want tasks.ErrConflict", err)
	}
	fresh, _ := h.read("task-1", sess.ID)
	if err := h.Tasks.LeaseTask(ctx, fresh, "holder", h.clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := h.Tasks.FailTask(ctx, fresh, "the task exceeded 2 steps"); err != nil {
		t.Fatalf("FailTask error = %v", err)
	}
	got, _ := h.read("task-1", sess.ID)
	steps, _ := h.Tasks.Steps(ctx, tenant, "task-1")
	if got.Status != tasks.StatusFailed || got.FailureReason != "the task exceeded 2 steps" || got.StepCount != 2 || len(steps) != 2 {
		t.Errorf("task after FailTask = %s (%q) with %d steps (%d stored); want failed with the reason and its 2 steps", got.Status, got.FailureReason, got.StepCount, len(steps))
	}
	if err := h.Tasks.FailTask(ctx, fresh, "again"); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("FailTask of a failed task: error = %v, want tasks.ErrConflict", err)
	}
	if err := h.Tasks.FailTask(ctx, tasks.Task{ID: "task-unknown", TenantID: tenant}, "x"); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("FailTask of an unknown task: error = %v, want tasks.ErrConflict", err)
	}
}

func alignSteps(t *testing.T, h *harness) {
	for _, align := range []bool{true, false} {
		id := fmt.Sprintf("task-aligned-%v", align)
		task, sess := h.start(id)
		h.commit(h.next(task, sess, tasks.StatusActive))
		task, sess = h.read(id, sess.ID)
		h.commit(h.next(task, sess, tasks.StatusCompleted))
		if align {
			if err := h.Tasks.AlignSteps(ctx, tenant, id); err != nil {
				t.Fatalf("AlignSteps error = %v", err)
			}
		}
	}
	if err := h.Tasks.AlignSteps(ctx, tenant, "task-unknown"); err != nil {
		t.Errorf("AlignSteps of an unknown task: error = %v, want none", err)
	}
	// Past a running task's lifetime, within the ended task's.
	h.clock.Advance(TaskRetention.Active + time.Hour)
	for align, want := range map[bool]int{true: 3, false: 1} {
		id := fmt.Sprintf("task-aligned-%v", align)
		if steps, err := h.Tasks.Steps(ctx, tenant, id); err != nil || len(steps) != want {
			t.Errorf("steps of the completed task (aligned %v) a day later = %d, %v; want %d", align, len(steps), err, want)
		}
		if got, err := h.Tasks.GetTask(ctx, tenant, id); err != nil || got.Status != tasks.StatusCompleted {
			t.Errorf("completed task a day later = %+v, %v; want it kept", got, err)
		}
	}
}

func debugEntries(t *testing.T, h *harness) {
	start := h.clock.Now()
	for i, e := range []tasks.DebugEntry{
		{ID: "d-0", TaskID: "task-1", LogType: tasks.LogStep},
		{ID: "d-1", TaskID: "task-2", LogType: tasks.LogStep},
		{ID: "d-2", TaskID: "task-1", LogType: tasks.LogLLMError},
		{ID: "d-3", TaskID: "task-1", LogType: tasks.LogStep},
	} {
		e.CreatedAt = start.Add(time.Duration(i) * time.Second)
		e.Data = map[string]any{"step": i, "error": "timeout"}
		if err := h.Tasks.PutDebug(ctx, tenant, e); err != nil {
			t.Fatalf("PutDebug(%s) error = %v", e.ID, err)
		}
	}
	for _, tc := range []struct {
		name   string
		tenant string
		f      tasks.DebugFilter
		want   string
	}{
		{"one task's", tenant, tasks.DebugFilter{TaskID: "task-1"}, "d-3,d-2,d-0"},
		{"one log type's", tenant, tasks.DebugFilter{TaskID: "task-1", LogType: tasks.LogStep}, "d-3,d-0"},
		{"since a time", tenant, tasks.DebugFilter{TaskID: "task-1", Since: start.Add(time.Second)}, "d-3,d-2"},
		{"at most a limit", tenant, tasks.DebugFilter{TaskID: "task-1", Limit: 2}, "d-3,d-2"},
		{"the tenant's", tenant, tasks.DebugFilter{}, "d-3,d-2,d-1,d-0"},
		{"another tenant's", "ten-b", tasks.DebugFilter{}, ""},
	} {
		if got, err := h.Tasks.ListDebug(ctx, tc.tenant, tc.f); err != nil || debugIDs(got) != tc.want {
			t.Errorf("ListDebug(%s) = %s, %v; want %s", tc.name, debugIDs(got), err, tc.want)
		}
	}
	got, _ := h.Tasks.ListDebug(ctx, tenant, tasks.DebugFilter{TaskID: "task-1", LogType: tasks.LogLLMError})
	if len(got) != 1 || got[0].Data["step"] != float64(2) || got[0].Data["error"] != "timeout" || !got[0].CreatedAt.Equal(start.Add(2*time.Second)) {
		t.Errorf("the llm_error entry = %+v; want its data (numbers as float64) and time", got)
	}
	h.clock.Advance(TaskRetention.Debug + time.Hour)
	if got, err := h.Tasks.ListDebug(ctx, tenant, tasks.DebugFilter{TaskID: "task-1"}); err != nil || len(got) != 0 {
		t.Errorf("ListDebug past the debug retention = %s, %v; want none", debugIDs(got), err)
	}
}

func debugIDs(es []tasks.DebugEntry) string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return strings.Join(out, ",")
}

func records(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	c := h.next(task, sess, tasks.StatusActive)
	c.Verification = &tasks.Verification{TaskID: "task-1", StepIndex: 0, Action: "click(2)", Verdict: tasks.Unverified, Method: "deterministic",
		Expected: &tasks.Expectation{Description: "the cart opens", URLContains: "/cart"}, Evidence: []string{"the URL did not change"}}
	c.Correction = &tasks.Correction{TaskID: "task-1", StepIndex: 0, Strategy: "retry", Reason: "the cart did not open", FailedAction: "click(2)", Action: "click(3)"}
	c.Debug = []tasks.DebugEntry{{ID: "d-step", TaskID: "task-1", LogType: tasks.LogStep, CreatedAt: h.clock.Now(), Data: map[string]any{"planChange": "made"}},
		{ID: "d-plan", TaskID: "task-1", LogType: tasks.LogPlan, CreatedAt: h.clock.Now(), Data: map[string]any{"change": "made"}}}
	h.commit(c)
	vs, err := h.Tasks.Verifications(ctx, tenant, "task-1")
	if err != nil || len(vs) != 1 || vs[0].Verdict != tasks.Unverified || vs[0].Expected == nil || vs[0].Expected.URLContains != "/cart" || len(vs[0].Evidence) != 1 || vs[0].CreatedAt.IsZero() {
		t.Errorf("Verifications = %+v, %v; want the record with its expectation, evidence and time", vs, err)
	}
	cs, err := h.Tasks.Corrections(ctx, tenant, "task-1")
	if err != nil || len(cs) != 1 || cs[0].Strategy != "retry" || cs[0].Action != "click(3)" || cs[0].FailedAction != "click(2)" || cs[0].CreatedAt.IsZero() {
		t.Errorf("Corrections = %+v, %v; want the record with its strategy, actions and time", cs, err)
	}
	if plans, err := h.Tasks.ListDebug(ctx, tenant, tasks.DebugFilter{TaskID: "task-1", LogType: tasks.LogPlan}); err != nil || len(plans) != 1 {
		t.Errorf("plan entries = %d, %v; want the step's one", len(plans), err)
	}
	fresh, freshSess := h.read("task-1", sess.ID)
	again := h.next(fresh, freshSess, tasks.StatusActive)
	again.Verification = &tasks.Verification{TaskID: "task-1", StepIndex: 0, Action: "click(2)", Verdict: tasks.Verified, Method: "model"}
	bad := again
	bad.Correction = &tasks.Correction{StepIndex: 1, Strategy: "retry"}
	if err := h.Commit.CommitStep(ctx, bad); err == nil {
		t.Errorf("CommitStep with a correction of no task: error = nil, want one")
	}
	h.commit(again)
	if vs, _ := h.Tasks.Verifications(ctx, tenant, "task-1"); len(vs) != 1 || vs[0].Verdict != tasks.Verified {
		t.Errorf("Verifications after a step's record is written again = %+v; want the new one in its place", vs)
	}
}

func sessionFollowsTask(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	h.clock.Advance(time.Minute)
	mid := h.clock.Now()
	h.clock.Advance(time.Minute)
	h.commit(h.next(task, sess, tasks.StatusCompleted))
	page, err := h.Chat.ListMessages(ctx, tenant, sess.ID, 0, time.Time{})
	want := chat.DefaultRetention().SessionExpiry(chat.StatusCompleted, h.clock.Now())
	if err != nil || page.Session.Status != chat.StatusCompleted || !page.Session.ExpiresAt.Equal(want) {
		t.Fatalf("session after the last step = %+v, %v; want completed, expiring at %v", page.Session, err, want)
	}
	for _, m := range page.Messages {
		if !m.ExpiresAt.Equal(want) {
			t.Errorf("message %d expires at %v, want %v (with its ended session)", m.SequenceNumber, m.ExpiresAt, want)
		}
	}
	if since, err := h.Chat.ListMessages(ctx, tenant, sess.ID, 0, mid); err != nil || len(since.Messages) != 1 || since.Messages[0].SequenceNumber != 3 || since.Total != 3 {
		t.Errorf("ListMessages since the first step = %+v, %v; want message 3 of 3", since.Messages, err)
	}
	if first, err := h.Chat.ListMessages(ctx, tenant, sess.ID, 2, time.Time{}); err != nil || len(first.Messages) != 2 || first.Messages[1].SequenceNumber != 2 {
		t.Errorf("ListMessages(limit 2) = %+v, %v; want messages 1 and 2", first.Messages, err)
	}
}

func setStatus(t *testing.T, h *harness) {
	_, sess := h.start("task-1")
	failed, err := h.Chat.SetStatus(ctx, tenant, sess.ID, chat.StatusFailed)
	want := chat.DefaultRetention().SessionExpiry(chat.StatusFailed, h.clock.Now())
	if err != nil || failed.Status != chat.StatusFailed || !failed.ExpiresAt.Equal(want) {
		t.Errorf("SetStatus(failed) = %+v, %v; want failed, expiring at %v", failed, err, want)
	}
	if got, _ := h.Chat.GetSession(ctx, tenant, sess.ID); got.Status != chat.StatusFailed || got.MessageCount != 2 || !got.ExpiresAt.Equal(want) {
		t.Errorf("session after SetStatus = %s with %d messages, expiring at %v; want failed with its 2, at %v", got.Status, got.MessageCount, got.ExpiresAt, want)
	}
	if page, _ := h.Chat.ListMessages(ctx, tenant, sess.ID, 0, time.Time{}); len(page.Messages) != 2 || !page.Messages[0].ExpiresAt.Equal(want) {
		t.Errorf("messages after SetStatus = %+v; want both, expiring with the session", page.Messages)
	}
	if _, err := h.Chat.SetStatus(ctx, tenant, "session-unknown", chat.StatusFailed); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("SetStatus of an unknown session: error = %v, want chat.ErrNotFound", err)
	}
}

func expiry(t *testing.T, h *harness) {
	task, sess := h.start("task-1")
	h.clock.Advance(TaskRetention.Active + time.Second)
	if _, err := h.Tasks.GetTask(ctx, tenant, "task-1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("GetTask past a running task's lifetime: error = %v, want tasks.ErrNotFound", err)
	}
	if steps, err := h.Tasks.Steps(ctx, tenant, "task-1"); err != nil || len(steps) != 0 {
		t.Errorf("Steps of an expired task = %d, %v; want none", len(steps), err)
	}
	if err := h.Commit.CommitStep(ctx, h.next(task, sess, tasks.StatusActive)); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("CommitStep on an expired task: error = %v, want tasks.ErrConflict", err)
	}
	if err := h.Tasks.LeaseTask(ctx, task, "late", h.clock.Now().Add(time.Minute)); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("LeaseTask of an expired task: error = %v, want tasks.ErrConflict", err)
	}
	if err := h.Tasks.FailTask(ctx, task, "late"); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("FailTask of an expired task: error = %v, want tasks.ErrConflict", err)
	}
	h.clock.Advance(chat.DefaultRetention().Active)
	if _, err := h.Chat.GetSession(ctx, tenant, sess.ID); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("GetSession past an active session's lifetime: error = %v, want chat.ErrNotFound", err)
	}
	if _, err := h.Chat.ListMessages(ctx, tenant, sess.ID, 0, time.Time{}); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("ListMessages of an expired session: error = %v, want chat.ErrNotFound", err)
	}
}
