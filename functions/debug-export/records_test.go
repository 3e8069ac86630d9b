package main

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// The export reads the records from the Tasks table as the step transactions left them, oldest
// first, in the JSON of the domain types.
func TestExportOfStoredRecords(t *testing.T) {
	db := dynamotest.New(t)
	// Real time: DynamoDB Local runs TTL.
	now := time.Now().UTC().Truncate(time.Second)
	store := tasksdb.New(db.Client, db.Tables["TasksTable"], tasks.DefaultRetention)
	store.Now = func() time.Time { return now }
	verifications := []tasks.Verification{
		{TaskID: taskID, StepIndex: 0, Action: "click(3)", Verdict: tasks.Unverified, Method: "deterministic",
			Expected: &tasks.Expectation{Description: "the cart opens", URLContains: "/cart"}, Evidence: []string{"the URL did not change"}, CreatedAt: now.Add(time.Second)},
		{TaskID: taskID, StepIndex: 1, Action: "click(4)", Verdict: tasks.Verified, Method: "deterministic",
			Evidence: []string{"URL changed to https://shop.example/cart"}, CreatedAt: now.Add(2 * time.Second)},
	}
	corrections := []tasks.Correction{{TaskID: taskID, StepIndex: 0, Strategy: tasks.AlternativeSelector, Reason: "the URL did not change",
		FailedAction: "click(3)", Action: "click(4)", CreatedAt: now.Add(time.Second)}}
	// Step 1 verifies step 0 and corrects it; step 2 verifies step 1.
	perStep := [][]func() (dynamo.Item, error){
		nil,
		{func() (dynamo.Item, error) { return store.VerificationItem("ten", verifications[0]) },
			func() (dynamo.Item, error) { return store.CorrectionItem("ten", corrections[0]) }},
		{func() (dynamo.Item, error) { return store.VerificationItem("ten", verifications[1]) }},
	}
	task := tasks.Task{ID: taskID, TenantID: "ten", UserID: "u", URL: "https://shop.example/", Query: "open the cart"}
	for i, records := range perStep {
		items, err := store.StepItems(task, i == 0, tasks.Step{Index: i, Action: "click(3)"}, tasks.StatusActive)
		if err != nil {
			t.Fatal(err)
		}
		for _, record := range records {
			it, err := record()
			if err != nil {
				t.Fatal(err)
			}
			items = append(items, it)
		}
		if err := dynamo.Write(t.Context(), db.Client, items); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if task, err = store.GetTask(t.Context(), "ten", taskID); err != nil {
			t.Fatal(err)
		}
	}

	r := httptest.NewRequest("GET", "/api/debug/session/"+taskID+"/export", nil)
	r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: "u", TenantID: "ten"}, "h"))
	w := httptest.NewRecorder()
	msgs := chatdb.New(db.Client, db.Tables["SessionsTable"], db.Tables["MessagesTable"], chat.DefaultRetention())
	app.Mount(route, newHandler(store, msgs, func() time.Time { return now })).ServeHTTP(w, r)
	var body struct {
		Data struct {
			Steps               []json.RawMessage
			VerificationRecords []tasks.Verification
			CorrectionRecords   []tasks.Correction
			Metrics             map[string]int
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != 200 {
		t.Fatalf("got %d %s (%v), want 200", w.Code, w.Body, err)
	}
	d := body.Data
	if len(d.Steps) != 3 {
		t.Errorf("got %d steps, want 3 (records are not steps)", len(d.Steps))
	}
	if !reflect.DeepEqual(d.VerificationRecords, verifications) {
		t.Errorf("verification records:\n got %+v\nwant %+v", d.VerificationRecords, verifications)
	}
	if !reflect.DeepEqual(d.CorrectionRecords, corrections) {
		t.Errorf("correction records:\n got %+v\nwant %+v", d.CorrectionRecords, corrections)
	}
	if d.Metrics["verificationFailures"] != 1 || d.Metrics["corrections"] != 1 {
		t.Errorf("metrics = %v, want 1 verification failure and 1 correction", d.Metrics)
	}
}
