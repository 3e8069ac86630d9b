package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/logging"
	"github.com/screenagent/backend/shared/retention"
	"github.com/screenagent/backend/shared/retention/cleanup"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// The handler runs a cleanup for any event and reports its statistics both as its result and on
// one log line, under the spec's names.
func TestHandlerReportsStatistics(t *testing.T) {
	db := dynamotest.New(t)
	// Real time: DynamoDB Local runs TTL. The cleanup's clock is two days ahead.
	now := time.Now().UTC().Truncate(time.Second)
	store := tasksdb.New(db.Client, db.Tables["TasksTable"], tasks.DefaultRetention)
	store.Now = func() time.Time { return now }
	items, err := store.StepItems(tasks.Task{ID: "t1", TenantID: "ten", UserID: "u"}, true, tasks.Step{Action: "click(1)"}, tasks.StatusActive)
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.Write(t.Context(), db.Client, items); err != nil {
		t.Fatal(err)
	}

	var logs bytes.Buffer
	logger := logging.New(&logs, slog.LevelInfo)
	tables := cleanup.Tables{Tasks: db.Tables["TasksTable"], Sessions: db.Tables["SessionsTable"], Messages: db.Tables["MessagesTable"]}
	c := cleanup.New(db.Client, tables, retention.DefaultConfig(), logger)
	c.Now = func() time.Time { return now.Add(48 * time.Hour) }

	stats, err := newHandler(c, logger)(t.Context(), json.RawMessage(`{"job":"retention-cleanup"}`))
	if err != nil {
		t.Fatal(err)
	}
	if stats.Interrupted["tasks"] != 1 || stats.Errors != 0 || !stats.Complete {
		t.Errorf("got %+v, want one task interrupted, no errors, complete", stats)
	}
	var line struct {
		Msg            string         `json:"msg"`
		RecordsDeleted map[string]int `json:"recordsDeleted"`
		Interrupted    map[string]int `json:"interrupted"`
		Errors         *int           `json:"errors"`
		DurationMs     *int64         `json:"durationMs"`
	}
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", logs.String(), err)
	}
	if line.Msg != "retention cleanup" || line.RecordsDeleted == nil || line.Interrupted["tasks"] != 1 || line.Errors == nil || line.DurationMs == nil {
		t.Errorf("log line %s: want msg, recordsDeleted, interrupted, errors and durationMs", logs.String())
	}
}
