package tasksdb

import (
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust/trustdb"
)

// The records of the domain values a task header, a step and a verification record hold, with
// the attribute names they are stored under (layout_test.go pins them). Where a record has the
// fields of its domain type, it is converted with a plain type conversion, which stops compiling
// when the domain type gains a field the record lacks.

type memoryRecord struct {
	Recent   []briefRecord       `dynamodbav:"recent,omitempty"`
	Earlier  int                 `dynamodbav:"earlier,omitempty"`
	Messages []userMessageRecord `dynamodbav:"messages,omitempty"`
	Pending  string              `dynamodbav:"pending,omitempty"`
	// PendingByServer: the server asked Pending.
	PendingByServer bool                  `dynamodbav:"pendingByServer,omitempty"`
	Page            []byte                `dynamodbav:"page,omitempty"`
	LoginPage       []byte                `dynamodbav:"loginPage,omitempty"`
	Searches        []searchNoteRecord    `dynamodbav:"searches,omitempty"`
	Plan            *planRecord           `dynamodbav:"plan,omitempty"`
	Variables       map[string]string     `dynamodbav:"variables,omitempty"`
	Expected        *expectationRecord    `dynamodbav:"expected,omitempty"`
	Corrections     int                   `dynamodbav:"corrections,omitempty"`
	Held            string                `dynamodbav:"held,omitempty"`
	Secrets         trustdb.Secrets       `dynamodbav:"secrets"`
	SecretNames     []trustdb.NamedSecret `dynamodbav:"secretNames,omitempty"`
	Cache           []byte                `dynamodbav:"cache,omitempty"`
}

func memoryOf(m tasks.Memory) memoryRecord {
	return memoryRecord{
		Recent: dynamo.Convert(m.Recent, briefOf), Earlier: m.Earlier,
		Messages: dynamo.Convert(m.Messages, func(u tasks.UserMessage) userMessageRecord { return userMessageRecord(u) }),
		Pending:  m.Pending, PendingByServer: m.PendingByServer, Page: m.Page, LoginPage: m.LoginPage,
		Searches: dynamo.Convert(m.Searches, func(n tasks.SearchNote) searchNoteRecord { return searchNoteRecord(n) }),
		Plan:     dynamo.Optional(m.Plan, planOf), Variables: m.Variables, Expected: dynamo.Optional(m.Expected, expectationOf),
		Corrections: m.Corrections, Held: m.Held, Secrets: trustdb.FromSecrets(m.Secrets), SecretNames: trustdb.FromNames(m.SecretNames),
		Cache: m.Cache,
	}
}

func (r memoryRecord) memory() tasks.Memory {
	return tasks.Memory{
		Recent: dynamo.Convert(r.Recent, briefRecord.brief), Earlier: r.Earlier,
		Messages: dynamo.Convert(r.Messages, func(u userMessageRecord) tasks.UserMessage { return tasks.UserMessage(u) }),
		Pending:  r.Pending, PendingByServer: r.PendingByServer, Page: r.Page, LoginPage: r.LoginPage,
		Searches: dynamo.Convert(r.Searches, func(n searchNoteRecord) tasks.SearchNote { return tasks.SearchNote(n) }),
		Plan:     dynamo.Optional(r.Plan, planRecord.plan), Variables: r.Variables, Expected: dynamo.Optional(r.Expected, expectationRecord.expectation),
		Corrections: r.Corrections, Held: r.Held, Secrets: r.Secrets.Secrets(), SecretNames: trustdb.Names(r.SecretNames),
		Cache: r.Cache,
	}
}

type briefRecord struct {
	Index       int           `dynamodbav:"index"`
	Thought     string        `dynamodbav:"thought,omitempty"`
	Action      string        `dynamodbav:"action"`
	Actions     []string      `dynamodbav:"actions,omitempty"`
	Result      *reportRecord `dynamodbav:"result,omitempty"`
	Reported    bool          `dynamodbav:"reported,omitempty"`
	URL         string        `dynamodbav:"url,omitempty"`
	Fingerprint string        `dynamodbav:"fingerprint,omitempty"`
	Verdict     string        `dynamodbav:"verdict,omitempty"`
	Checked     string        `dynamodbav:"checked,omitempty"`
	Note        string        `dynamodbav:"note,omitempty"`
	PlanStep    int           `dynamodbav:"planStep,omitempty"`
	Server      string        `dynamodbav:"server,omitempty"`
}

func briefOf(b tasks.Brief) briefRecord {
	return briefRecord{
		Index: b.Index, Thought: b.Thought, Action: b.Action, Actions: b.Actions, Result: dynamo.Optional(b.Result, reportOf),
		Reported: b.Reported, URL: b.URL, Fingerprint: b.Fingerprint, Verdict: b.Verdict, Checked: b.Checked, Note: b.Note,
		PlanStep: b.PlanStep, Server: b.Server,
	}
}

func (r briefRecord) brief() tasks.Brief {
	return tasks.Brief{
		Index: r.Index, Thought: r.Thought, Action: r.Action, Actions: r.Actions, Result: dynamo.Optional(r.Result, reportRecord.report),
		Reported: r.Reported, URL: r.URL, Fingerprint: r.Fingerprint, Verdict: r.Verdict, Checked: r.Checked, Note: r.Note,
		PlanStep: r.PlanStep, Server: r.Server,
	}
}

type userMessageRecord struct {
	Text     string `dynamodbav:"text"`
	Question string `dynamodbav:"question,omitempty"`
	// ServerAsked: the server asked Question.
	ServerAsked bool `dynamodbav:"serverAsked,omitempty"`
	Step        int  `dynamodbav:"step"`
}

type searchNoteRecord struct {
	Query   string `dynamodbav:"query"`
	Summary string `dynamodbav:"summary"`
}

type planRecord struct {
	Steps    []planStepRecord `dynamodbav:"steps"`
	Current  int              `dynamodbav:"current"`
	Revision int              `dynamodbav:"revision"`
}

func planOf(p tasks.Plan) planRecord {
	return planRecord{
		Steps:   dynamo.Convert(p.Steps, func(s tasks.PlanStep) planStepRecord { return planStepRecord(s) }),
		Current: p.Current, Revision: p.Revision,
	}
}

func (r planRecord) plan() tasks.Plan {
	return tasks.Plan{
		Steps:   dynamo.Convert(r.Steps, func(s planStepRecord) tasks.PlanStep { return tasks.PlanStep(s) }),
		Current: r.Current, Revision: r.Revision,
	}
}

type planStepRecord struct {
	Description string `dynamodbav:"description"`
	Status      string `dynamodbav:"status"`
	Condition   string `dynamodbav:"condition,omitempty"`
	OnTrue      string `dynamodbav:"onTrue,omitempty"`
	OnFalse     string `dynamodbav:"onFalse,omitempty"`
	Taken       string `dynamodbav:"taken,omitempty"`
}

type expectationRecord struct {
	Description    string              `dynamodbav:"description"`
	URLChanges     bool                `dynamodbav:"urlChanges,omitempty"`
	URLContains    string              `dynamodbav:"urlContains,omitempty"`
	TextAppears    []string            `dynamodbav:"textAppears,omitempty"`
	TextDisappears []string            `dynamodbav:"textDisappears,omitempty"`
	PageChanges    bool                `dynamodbav:"pageChanges,omitempty"`
	Or             []expectationRecord `dynamodbav:"or,omitempty"`
}

func expectationOf(e tasks.Expectation) expectationRecord {
	return expectationRecord{
		Description: e.Description, URLChanges: e.URLChanges, URLContains: e.URLContains, TextAppears: e.TextAppears,
		TextDisappears: e.TextDisappears, PageChanges: e.PageChanges, Or: dynamo.Convert(e.Or, expectationOf),
	}
}

func (r expectationRecord) expectation() tasks.Expectation {
	return tasks.Expectation{
		Description: r.Description, URLChanges: r.URLChanges, URLContains: r.URLContains, TextAppears: r.TextAppears,
		TextDisappears: r.TextDisappears, PageChanges: r.PageChanges, Or: dynamo.Convert(r.Or, expectationRecord.expectation),
	}
}

type reportRecord struct {
	Status  string               `dynamodbav:"status"`
	Error   *actionErrorRecord   `dynamodbav:"error,omitempty"`
	Results []actionResultRecord `dynamodbav:"results,omitempty"`
}

func reportOf(r tasks.Report) reportRecord {
	return reportRecord{
		Status: r.Status, Error: dynamo.Optional(r.Error, actionErrorOf),
		Results: dynamo.Convert(r.Results, func(a tasks.ActionResult) actionResultRecord {
			return actionResultRecord{Action: a.Action, Status: a.Status, Error: dynamo.Optional(a.Error, actionErrorOf)}
		}),
	}
}

func (r reportRecord) report() tasks.Report {
	return tasks.Report{
		Status: r.Status, Error: dynamo.Optional(r.Error, actionErrorRecord.actionError),
		Results: dynamo.Convert(r.Results, func(a actionResultRecord) tasks.ActionResult {
			return tasks.ActionResult{Action: a.Action, Status: a.Status, Error: dynamo.Optional(a.Error, actionErrorRecord.actionError)}
		}),
	}
}

type actionResultRecord struct {
	Action string             `dynamodbav:"action"`
	Status string             `dynamodbav:"status"`
	Error  *actionErrorRecord `dynamodbav:"error,omitempty"`
}

type actionErrorRecord struct {
	Message   string `dynamodbav:"message,omitempty"`
	Code      string `dynamodbav:"code,omitempty"`
	Action    string `dynamodbav:"action,omitempty"`
	ElementID *int   `dynamodbav:"elementId,omitempty"`
}

func actionErrorOf(e tasks.ActionError) actionErrorRecord  { return actionErrorRecord(e) }
func (r actionErrorRecord) actionError() tasks.ActionError { return tasks.ActionError(r) }

type usageRecord struct {
	PromptTokens     int `dynamodbav:"promptTokens"`
	CompletionTokens int `dynamodbav:"completionTokens"`
}
