package runsdb

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/trust"
)

func boolPtr(b bool) *bool { return &b }

// fullSnapshot sets every field of a snapshot and of its element.
func fullSnapshot() *runs.Snapshot {
	return &runs.Snapshot{
		URL: "https://shop.example/", Title: "Shop", VisibleText: "Socks\n12 EUR", Timestamp: 1700000000000,
		Elements: []runs.Element{{
			ID: "e1", Tag: "button", Role: "button", Text: "Add", AriaLabel: "Add to cart", Placeholder: "qty", Type: "submit",
			Value: "1", Href: "/cart", Disabled: true, Name: "add", BBox: &runs.BBox{X: 1, Y: 2, Width: 3, Height: 4},
			Label: "Quantity", Checked: boolPtr(true), Selected: boolPtr(false), Pressed: boolPtr(true), Expanded: boolPtr(false),
			Options: []string{"1", "2"}, Context: "Blue socks 12 EUR", Autocomplete: "one-time-code", InputMode: "numeric", MaxLength: 6, Masked: true,
		}},
	}
}

// fullTool sets every argument of a tool call.
func fullTool() runs.Tool {
	return runs.Tool{Name: "type", ID: "e1", URL: "https://shop.example/", Text: "socks", Secret: "pin", Submit: true, DeltaY: 300, Key: "Enter"}
}

// fullResult sets every field of a result, a batch's parts included.
func fullResult() *runs.Result {
	return &runs.Result{Success: true, Message: "clicked", Error: "not found", Skipped: true, Parts: []runs.Result{{Success: true, Message: "typed"}}}
}

func fullRun() runs.Run {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return runs.Run{
		ID: "r1", TenantID: "ten-a", UserID: "u1", Task: "buy socks", Mode: runs.Mode("careful"), Status: runs.Status("waiting_user"),
		CurrentStep: 3, MaxSteps: 30, PendingQuestion: "Pay?", PendingTool: new(fullTool()), PendingConfirmation: "c1",
		PendingTools: []runs.Tool{fullTool()}, Batch: true, CurrentSnapshot: fullSnapshot(),
		Reflections: []runs.Reflection{{
			StepNumber: 5, StepsAnalyzed: 5, Observes: 1, Errors: 2, Successes: 3, ActionDiversity: 0.4, Efficiency: runs.EfficiencyHigh,
			Issues: []string{"loop"}, Suggestions: []string{"scroll"}, ShouldAdjust: true, CreatedAt: t0,
		}},
		Timezone: "Europe/Berlin", Locale: "de-DE", LastResult: fullResult(), LastAnswer: &runs.UserAnswer{Approved: true, Text: "yes", UserID: "u1"},
		SecretNames: []trust.NamedSecret{{Name: "pin", Origin: "bank.example"}}, Secrets: trust.Secrets{Key: []byte("key"), Typed: []trust.Typed{{Sum: "abc", Len: 4}}},
		ApprovedSecretType: &runs.Tool{Name: "type", ID: "e3", Secret: "pin"}, Result: "bought", Error: "declined", CacheTrail: []byte{1},
		CreatedAt: t0, UpdatedAt: t0.Add(time.Minute),
	}
}

func fullEntry() runs.Entry {
	return runs.Entry{
		StepNumber: 3, Action: "type", Tool: new(fullTool()), Tools: []runs.Tool{fullTool()},
		Question: "Pay?", Answer: "done", Thought: "type the query", Warning: "payment", PreviousResult: fullResult(),
		UserAnswer: &runs.UserAnswer{Approved: true, Text: "yes", UserID: "u1"}, URL: "https://shop.example/", PageHash: "h1", Model: "gpt",
		Usage: runs.Usage{PromptTokens: 100, CompletionTokens: 20}, LLMAttempts: 2, LLMLatency: 1500 * time.Millisecond,
		CreatedAt: time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC),
	}
}

// TestStoredAttributeNames pins what the items are stored as: items already in the table must
// still read, so a record's attribute names change only with a migration.
func TestStoredAttributeNames(t *testing.T) {
	for _, v := range []any{fullRun(), fullEntry()} {
		if unset := dynamotest.Unset(v); len(unset) > 0 {
			t.Fatalf("the full values leave %v unset: set them here, and store them in the records", unset)
		}
	}
	s := &Store{table: "Tasks", Now: func() time.Time { return time.Date(2026, 3, 1, 10, 2, 0, 0, time.UTC) }, Retention: runs.DefaultRetention}
	header, err := attributevalue.MarshalMap(s.headerOf(fullRun()))
	if err != nil {
		t.Fatal(err)
	}
	entry, err := attributevalue.MarshalMap(s.entryOf(fullRun(), fullEntry(), s.now()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		item string
		got  []string
		want string
	}{
		{"run header", dynamotest.AttributeNames(header), `GSI2PK GSI2SK PK SK approvedSecretType approvedSecretType.id approvedSecretType.name approvedSecretType.secret
			batch cacheTrail createdAt currentSnapshot currentSnapshot.elements currentSnapshot.elements[]
			currentSnapshot.elements[].ariaLabel currentSnapshot.elements[].autocomplete currentSnapshot.elements[].bbox
			currentSnapshot.elements[].bbox.height currentSnapshot.elements[].bbox.width currentSnapshot.elements[].bbox.x
			currentSnapshot.elements[].bbox.y currentSnapshot.elements[].checked currentSnapshot.elements[].context
			currentSnapshot.elements[].disabled currentSnapshot.elements[].expanded currentSnapshot.elements[].href
			currentSnapshot.elements[].id currentSnapshot.elements[].inputMode currentSnapshot.elements[].label
			currentSnapshot.elements[].masked currentSnapshot.elements[].maxLength currentSnapshot.elements[].name
			currentSnapshot.elements[].options currentSnapshot.elements[].options[] currentSnapshot.elements[].placeholder
			currentSnapshot.elements[].pressed currentSnapshot.elements[].role currentSnapshot.elements[].selected
			currentSnapshot.elements[].tag currentSnapshot.elements[].text currentSnapshot.elements[].type
			currentSnapshot.elements[].value currentSnapshot.timestamp currentSnapshot.title currentSnapshot.url
			currentSnapshot.visibleText currentStep error expiresAt lastAnswer lastAnswer.approved lastAnswer.text
			lastAnswer.userId lastResult lastResult.error lastResult.message lastResult.parts lastResult.parts[]
			lastResult.parts[].message lastResult.parts[].success lastResult.skipped lastResult.success locale maxSteps
			mode pendingConfirmation pendingQuestion pendingTool pendingTool.deltaY pendingTool.id pendingTool.key
			pendingTool.name pendingTool.secret pendingTool.submit pendingTool.text pendingTool.url pendingTools
			pendingTools[] pendingTools[].deltaY pendingTools[].id pendingTools[].key pendingTools[].name
			pendingTools[].secret pendingTools[].submit pendingTools[].text pendingTools[].url reflections reflections[]
			reflections[].actionDiversity reflections[].createdAt reflections[].efficiency reflections[].errors
			reflections[].issues reflections[].issues[] reflections[].observes reflections[].shouldAdjust
			reflections[].stepNumber reflections[].stepsAnalyzed reflections[].successes reflections[].suggestions
			reflections[].suggestions[] result runId secretNames secretNames[] secretNames[].name secretNames[].origin
			secrets secrets.key secrets.typed secrets.typed[] secrets.typed[].len secrets.typed[].sum status task tenantId
			timezone updatedAt userId`},
		{"entry", dynamotest.AttributeNames(entry), `PK SK action answer createdAt expiresAt llmAttempts llmLatencyMs model pageHash previousResult
			previousResult.error previousResult.message previousResult.parts previousResult.parts[]
			previousResult.parts[].message previousResult.parts[].success previousResult.skipped previousResult.success
			question stepNumber thought tool tool.deltaY tool.id tool.key tool.name tool.secret tool.submit tool.text
			tool.url tools tools[] tools[].deltaY tools[].id tools[].key tools[].name tools[].secret tools[].submit
			tools[].text tools[].url url usage usage.completionTokens usage.promptTokens userAnswer userAnswer.approved
			userAnswer.text userAnswer.userId warning`},
	} {
		if want := strings.Fields(tc.want); !slices.Equal(tc.got, want) {
			t.Errorf("%s is stored as\n%s\nwant\n%s", tc.item, strings.Join(tc.got, " "), strings.Join(want, " "))
		}
	}
}

// TestItemsRoundTripRunAndEntry checks that a run header and an entry read back as the run and
// entry they were made from, through DynamoDB's encoding, optional and empty parts included.
func TestItemsRoundTripRunAndEntry(t *testing.T) {
	s := &Store{table: "Tasks", Now: func() time.Time { return time.Date(2026, 3, 1, 10, 2, 0, 0, time.UTC) }, Retention: runs.DefaultRetention}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	bare := runs.Run{
		ID: "r2", TenantID: "ten-a", UserID: "u1", Task: "t", Mode: runs.Mode("autonomous"), Status: runs.Status("running"), MaxSteps: 10,
		Reflections: []runs.Reflection{}, CreatedAt: t0, UpdatedAt: t0,
	}
	emptySnapshot := bare
	emptySnapshot.CurrentSnapshot = &runs.Snapshot{URL: "https://a.example/", Elements: []runs.Element{{ID: "1", Tag: "a"}}}
	for _, tc := range []struct {
		name string
		run  runs.Run
	}{{"every field", fullRun()}, {"nothing optional", bare}, {"a bare snapshot", emptySnapshot}} {
		av, err := attributevalue.MarshalMap(s.headerOf(tc.run))
		if err != nil {
			t.Fatal(err)
		}
		var it headerItem
		if err := attributevalue.UnmarshalMap(av, &it); err != nil {
			t.Fatal(err)
		}
		got, err := it.run()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.run) {
			t.Errorf("run %s read back as\n%+v\nwant\n%+v", tc.name, got, tc.run)
		}
	}
	for _, tc := range []struct {
		name  string
		entry runs.Entry
	}{
		{"every field", fullEntry()},
		{"nothing optional", runs.Entry{StepNumber: 1, Action: "observe", CreatedAt: s.now()}},
	} {
		av, err := attributevalue.MarshalMap(s.entryOf(fullRun(), tc.entry, s.now()))
		if err != nil {
			t.Fatal(err)
		}
		var it entryItem
		if err := attributevalue.UnmarshalMap(av, &it); err != nil {
			t.Fatal(err)
		}
		got, err := it.entry()
		if err != nil {
			t.Fatal(err)
		}
		want := tc.entry
		want.CreatedAt = s.now()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("entry %s read back as\n%+v\nwant\n%+v", tc.name, got, want)
		}
	}
}
