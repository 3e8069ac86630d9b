package functions_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/infra/emulator"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention"
	"github.com/screenagent/backend/shared/retention/cleanup"
	"github.com/screenagent/backend/shared/sam"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

// TestCleanupInvocation invokes the real cleanup binary once with the sample scheduled event,
// as `make invoke FN=cleanup` does: a task and its session idle past RETENTION_IDLE_MINUTES
// (set to an hour) are interrupted, and the result is the statistics.
func TestCleanupInvocation(t *testing.T) {
	db := dynamotest.New(t)
	root, err := ddblocal.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := sam.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// A task and its session whose last step was two hours ago (real time: the binary's clock).
	stepAt := time.Now().UTC().Add(-2 * time.Hour)
	clock := func() time.Time { return stepAt }
	taskStore := tasksdb.New(db.Client, db.Tables["TasksTable"], tasks.DefaultRetention)
	taskStore.Now = clock
	chatStore := chatdb.New(db.Client, db.Tables["SessionsTable"], db.Tables["MessagesTable"], chat.DefaultRetention())
	chatStore.Now = clock
	sess, err := chat.NewSession("ten", "u1", "t1", "https://shop.example/", "buy socks", stepAt)
	if err != nil {
		t.Fatal(err)
	}
	task := tasks.Task{ID: "t1", TenantID: "ten", UserID: "u1", SessionID: sess.ID}
	items, err := taskStore.StepItems(task, true, tasks.Step{Action: "click(1)"}, tasks.StatusActive)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := chatStore.CreateWrites(sess, chatdb.Step{Messages: []chat.Message{{Role: chat.RoleUser, Content: "buy socks"}}}, stepAt)
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.Write(t.Context(), db.Client, append(items, dynamo.Items(nil, batch.Items...)...)); err != nil {
		t.Fatal(err)
	}

	var logOut io.Writer = io.Discard
	if testing.Verbose() {
		logOut = os.Stderr
	}
	emu, err := emulator.New(emulator.Config{
		Template:  tmpl,
		Root:      root,
		Env:       sam.Env{Resources: db.Tables},
		Overrides: map[string]string{"DYNAMODB_ENDPOINT": db.Endpoint, retention.EnvIdleMinutes: "60"},
		BuildDir:  filepath.Join(root, ".local", "test-build", "functions_cleanup"),
		Logger:    slog.New(slog.NewJSONHandler(logOut, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emu.Close() })
	event, err := os.ReadFile(filepath.Join(root, "infra", "events", "cleanup.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := emu.Invoke(t.Context(), "cleanup", event)
	if err != nil {
		t.Fatal(err)
	}
	var stats cleanup.Stats
	if err := json.Unmarshal(out, &stats); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	if stats.Interrupted["tasks"] != 1 || stats.Interrupted["sessions"] != 1 || stats.Errors != 0 || !stats.Complete || stats.RecordsDeleted == nil {
		t.Errorf("got %s, want the task and the session interrupted, no errors, complete", out)
	}
	got, err := chatStore.GetSession(t.Context(), "ten", sess.ID)
	if err != nil || got.Status != chat.StatusInterrupted {
		t.Errorf("session after the cleanup: got %s, %v; want interrupted", got.Status, err)
	}
}
