package tasksdb

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

func intPtr(n int) *int { return &n }

// fullExpectation sets every field of an expectation, alternatives included.
func fullExpectation() *tasks.Expectation {
	return &tasks.Expectation{
		Description: "the cart opens", URLChanges: true, URLContains: "/cart", TextAppears: []string{"Your cart"},
		TextDisappears: []string{"Add to cart"}, PageChanges: true,
		Or: []tasks.Expectation{{Description: "a dialog opens", TextAppears: []string{"Added"}}},
	}
}

// fullReport sets every field of a client's report, a batch's results included.
func fullReport() *tasks.Report {
	e := &tasks.ActionError{Message: "not found", Code: "ELEMENT_NOT_FOUND", Action: "click(3)", ElementID: intPtr(3)}
	return &tasks.Report{Status: "failure", Error: e, Results: []tasks.ActionResult{
		{Action: "click(3)", Status: "failure", Error: e}, {Action: "setValue(2, \"x\")", Status: "success"},
	}}
}

// fullMemory sets every field of a task's memory.
func fullMemory() tasks.Memory {
	return tasks.Memory{
		Recent: []tasks.Brief{{
			Index: 4, Thought: "open the cart", Action: "click(3)", Actions: []string{"click(3)", "scroll(down)"}, Result: fullReport(),
			Reported: true, URL: "https://shop.example/", Fingerprint: "fp", Verdict: tasks.Verified, Checked: "URL changed", Note: "retried",
			PlanStep: 1, Server: tasks.ServerInstead,
		}},
		Earlier:  3,
		Messages: []tasks.UserMessage{{Text: "the blue one", Question: "Which colour?", ServerAsked: true, Step: 2}},
		Pending:  "Which size?", PendingByServer: true, Page: []byte{1, 2}, LoginPage: []byte{3},
		Searches: []tasks.SearchNote{{Query: "socks", Summary: "three shops"}},
		Plan: &tasks.Plan{Steps: []tasks.PlanStep{{
			Description: "find socks", Status: tasks.PlanDone, Condition: "in stock", OnTrue: tasks.BranchContinue, OnFalse: tasks.BranchStop, Taken: "true",
		}, {Description: "pay", Status: tasks.PlanInProgress}}, Current: 1, Revision: 2},
		Variables: map[string]string{"price": "12 EUR"}, Expected: fullExpectation(), Corrections: 1, Held: "click(5)",
		Secrets:     trust.Secrets{Key: []byte("key"), Typed: []trust.Typed{{Sum: "abc", Len: 8}}},
		SecretNames: []trust.NamedSecret{{Name: "crm_password", Origin: "crm.example.com"}}, Cache: []byte{9},
	}
}

func fullTask() tasks.Task {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return tasks.Task{
		ID: "t1", TenantID: "ten-a", UserID: "u1", SessionID: "s1", URL: "https://shop.example/", Query: "buy socks",
		Status: tasks.StatusActive, StepCount: 2, FailureReason: "too many steps", Result: "done", Memory: fullMemory(),
		CreatedAt: t0, UpdatedAt: t0.Add(time.Minute),
	}
}

func fullStep() tasks.Step {
	return tasks.Step{
		Index: 2, Thought: "open the cart", Action: "click(3)", Actions: []string{"click(3)", "scroll(down)"}, ModelAction: "finish(\"ok\")",
		PreviousReport: fullReport(), UserMessage: "hurry", URL: "https://shop.example/", Usage: tasks.Usage{PromptTokens: 100, CompletionTokens: 20},
		Model: "gpt", LLMAttempts: 2, LLMLatency: 1500 * time.Millisecond, Duration: 2 * time.Second,
		CreatedAt: time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC),
	}
}

// TestStoredAttributeNames pins what the items are stored as: items already in the table must
// still read, so a record's attribute names change only with a migration.
func TestStoredAttributeNames(t *testing.T) {
	for _, v := range []any{fullTask(), fullStep()} {
		if unset := dynamotest.Unset(v); len(unset) > 0 {
			t.Fatalf("the full values leave %v unset: set them here, and store them in the records", unset)
		}
	}
	s := &Store{table: "Tasks", Now: func() time.Time { return time.Date(2026, 3, 1, 10, 2, 0, 0, time.UTC) }, Retention: tasks.DefaultRetention}
	steps, err := s.StepItems(fullTask(), false, fullStep(), tasks.StatusCompleted)
	if err != nil {
		t.Fatal(err)
	}
	verification, err := s.VerificationItem("ten-a", tasks.Verification{
		TaskID: "t1", StepIndex: 1, Action: "click(3)", Verdict: tasks.Verified, Method: "deterministic", Expected: fullExpectation(),
		Evidence: []string{"URL changed"}, CreatedAt: time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		item string
		got  []string
		want string
	}{
		{"task header", dynamotest.AttributeNames(steps[0].Write.Put.Item), `PK RetentionPK RetentionSK SK createdAt expiresAt failureReason memory memory.cache memory.corrections
			memory.earlier memory.expected memory.expected.description memory.expected.or memory.expected.or[]
			memory.expected.or[].description memory.expected.or[].textAppears memory.expected.or[].textAppears[]
			memory.expected.pageChanges memory.expected.textAppears memory.expected.textAppears[]
			memory.expected.textDisappears memory.expected.textDisappears[] memory.expected.urlChanges
			memory.expected.urlContains memory.held memory.loginPage memory.messages memory.messages[]
			memory.messages[].question memory.messages[].serverAsked memory.messages[].step memory.messages[].text memory.page memory.pending memory.pendingByServer
			memory.plan memory.plan.current memory.plan.revision memory.plan.steps memory.plan.steps[]
			memory.plan.steps[].condition memory.plan.steps[].description memory.plan.steps[].onFalse
			memory.plan.steps[].onTrue memory.plan.steps[].status memory.plan.steps[].taken memory.recent memory.recent[]
			memory.recent[].action memory.recent[].actions memory.recent[].actions[] memory.recent[].checked
			memory.recent[].fingerprint memory.recent[].index memory.recent[].note memory.recent[].planStep memory.recent[].reported
			memory.recent[].result memory.recent[].result.error memory.recent[].result.error.action
			memory.recent[].result.error.code memory.recent[].result.error.elementId memory.recent[].result.error.message
			memory.recent[].result.results memory.recent[].result.results[] memory.recent[].result.results[].action
			memory.recent[].result.results[].error memory.recent[].result.results[].error.action
			memory.recent[].result.results[].error.code memory.recent[].result.results[].error.elementId
			memory.recent[].result.results[].error.message memory.recent[].result.results[].status
			memory.recent[].result.status memory.recent[].server memory.recent[].thought memory.recent[].url memory.recent[].verdict
			memory.searches memory.searches[] memory.searches[].query memory.searches[].summary memory.secretNames
			memory.secretNames[] memory.secretNames[].name memory.secretNames[].origin memory.secrets memory.secrets.key
			memory.secrets.typed memory.secrets.typed[] memory.secrets.typed[].len memory.secrets.typed[].sum
			memory.variables memory.variables.price query result sessionId status stepCount taskId tenantId updatedAt url
			userId`},
		{"step", dynamotest.AttributeNames(steps[1].Write.Put.Item), `PK SK action actions actions[] createdAt durationMs expiresAt llmAttempts llmLatencyMs model modelAction
			previousReport previousReport.error previousReport.error.action previousReport.error.code
			previousReport.error.elementId previousReport.error.message previousReport.results previousReport.results[]
			previousReport.results[].action previousReport.results[].error previousReport.results[].error.action
			previousReport.results[].error.code previousReport.results[].error.elementId
			previousReport.results[].error.message previousReport.results[].status previousReport.status stepIndex thought
			url usage usage.completionTokens usage.promptTokens userMessage`},
		{"verification", dynamotest.AttributeNames(verification.Write.Put.Item), `PK RetentionPK RetentionSK SK action createdAt evidence evidence[] expectedOutcome expectedOutcome.description
			expectedOutcome.or expectedOutcome.or[] expectedOutcome.or[].description expectedOutcome.or[].textAppears
			expectedOutcome.or[].textAppears[] expectedOutcome.pageChanges expectedOutcome.textAppears
			expectedOutcome.textAppears[] expectedOutcome.textDisappears expectedOutcome.textDisappears[]
			expectedOutcome.urlChanges expectedOutcome.urlContains expiresAt method stepIndex taskId verdict`},
	} {
		if want := strings.Fields(tc.want); !slices.Equal(tc.got, want) {
			t.Errorf("%s is stored as\n%s\nwant\n%s", tc.item, strings.Join(tc.got, " "), strings.Join(want, " "))
		}
	}
}

// TestRecordsRoundTripTheDomainValues checks that each record gives back the domain value it was
// made from, through DynamoDB's encoding, optional and empty parts included.
func TestRecordsRoundTripTheDomainValues(t *testing.T) {
	full := fullMemory()
	onlyPlan := tasks.Memory{Plan: &tasks.Plan{Steps: []tasks.PlanStep{{Description: "look", Status: tasks.PlanPending}}}}
	unreported := tasks.Memory{Recent: []tasks.Brief{{Index: 0, Action: "click(1)"}}, Secrets: trust.Secrets{Key: []byte("k")}}
	for _, tc := range []struct {
		name string
		in   tasks.Memory
	}{{"every field", full}, {"empty", tasks.Memory{}}, {"a plan only", onlyPlan}, {"a step without a report", unreported}} {
		if got := dynamotest.RoundTrip(t, memoryOf(tc.in)).memory(); !reflect.DeepEqual(got, tc.in) {
			t.Errorf("memory %s: got %+v, want %+v", tc.name, got, tc.in)
		}
	}
	for _, tc := range []struct {
		name string
		in   *tasks.Report
	}{{"every field", fullReport()}, {"success", &tasks.Report{Status: "success"}}, {"none", nil}} {
		got := dynamo.Optional(dynamotest.RoundTrip(t, dynamo.Optional(tc.in, reportOf)), reportRecord.report)
		if !reflect.DeepEqual(got, tc.in) {
			t.Errorf("report %s: got %+v, want %+v", tc.name, got, tc.in)
		}
	}
	for _, tc := range []struct {
		name string
		in   *tasks.Expectation
	}{{"every field", fullExpectation()}, {"a description only", &tasks.Expectation{Description: "x"}}, {"none", nil}} {
		got := dynamo.Optional(dynamotest.RoundTrip(t, dynamo.Optional(tc.in, expectationOf)), expectationRecord.expectation)
		if !reflect.DeepEqual(got, tc.in) {
			t.Errorf("expectation %s: got %+v, want %+v", tc.name, got, tc.in)
		}
	}
}

// TestItemsRoundTripTaskAndStep reads back the task header and step items a step writes.
func TestItemsRoundTripTaskAndStep(t *testing.T) {
	s := &Store{table: "Tasks", Now: func() time.Time { return time.Date(2026, 3, 1, 10, 2, 0, 0, time.UTC) }, Retention: tasks.DefaultRetention}
	bare := tasks.Task{ID: "t2", TenantID: "ten-a", UserID: "u1", SessionID: "s1", URL: "https://a.example/", Query: "q", Status: tasks.StatusActive}
	for _, tc := range []struct {
		name string
		task tasks.Task
		step tasks.Step
	}{
		{"every field", fullTask(), fullStep()},
		{"a first step with nothing optional", bare, tasks.Step{Index: 0, Thought: "t", Action: "click(1)", URL: "https://a.example/"}},
	} {
		items, err := s.StepItems(tc.task, tc.task.StepCount == 0, tc.step, tasks.StatusActive)
		if err != nil {
			t.Fatal(err)
		}
		var header taskItem
		var step stepItem
		if err := attributevalue.UnmarshalMap(items[0].Write.Put.Item, &header); err != nil {
			t.Fatal(err)
		}
		if err := attributevalue.UnmarshalMap(items[1].Write.Put.Item, &step); err != nil {
			t.Fatal(err)
		}
		gotTask, err := header.task()
		if err != nil {
			t.Fatal(err)
		}
		gotStep, err := step.step()
		if err != nil {
			t.Fatal(err)
		}
		// What the store sets itself: the step count, the status and the times.
		wantTask := tc.task
		wantTask.StepCount++
		wantTask.CreatedAt, wantTask.UpdatedAt = gotTask.CreatedAt, gotTask.UpdatedAt
		wantStep := tc.step
		wantStep.CreatedAt = gotStep.CreatedAt
		if !reflect.DeepEqual(gotTask, wantTask) {
			t.Errorf("%s: task read back as %+v, want %+v", tc.name, gotTask, wantTask)
		}
		if !reflect.DeepEqual(gotStep, wantStep) {
			t.Errorf("%s: step read back as %+v, want %+v", tc.name, gotStep, wantStep)
		}
	}
}
