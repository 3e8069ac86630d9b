package runs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/trust"
)

func TestDecodeSnapshotMasksSecretValues(t *testing.T) {
	t.Parallel()
	raw := `{"url":"https://crm.example.com/login","elements":[
		{"id":"e1","tag":"input","type":"password","value":"hunter2-typed"},
		{"id":"e2","tag":"input","type":"text","name":"password","value":"shown-by-toggle"},
		{"id":"e3","tag":"input","ariaLabel":"Passwort","value":"geheim-wert"},
		{"id":"e4","tag":"input","placeholder":"CVC","value":"123"},
		{"id":"e5","tag":"input","type":"email","name":"email","value":"ann@example.com"},
		{"id":"e6","tag":"input","type":"text","label":"Geslo","masked":true,"value":"shown-slovenian"},
		{"id":"e7","tag":"input","autocomplete":"one-time-code","value":"481516"},
		{"id":"e8","tag":"input","label":"Kártyaszám","value":"5555 5555 5555 4444"},
		{"id":"e9","tag":"input","label":"Kód","maxLength":3,"inputMode":"numeric","value":"737"},
		{"id":"e10","tag":"input","name":"q","maxLength":-1,"value":"wool socks"}]}`
	s, err := runs.DecodeSnapshot(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"e1": trust.Mask, "e2": trust.Mask, "e3": trust.Mask, "e4": trust.Mask, "e5": "ann@example.com",
		"e6": trust.Mask, "e7": trust.Mask, "e8": trust.Mask, "e9": trust.Mask, "e10": "wool socks"}
	for _, e := range s.Elements {
		if e.Value != want[e.ID] {
			t.Errorf("element %s value = %q, want %q", e.ID, e.Value, want[e.ID])
		}
	}
}

var loginPage = &runs.Snapshot{URL: "https://crm.example.com/login", Title: "Sign in", Elements: []runs.Element{
	{ID: "agent-1", Tag: "input", Type: "email", Name: "email"},
	{ID: "agent-2", Tag: "input", Type: "password", Name: "pw"},
	{ID: "agent-3", Tag: "button", Text: "Sign in"},
}}

// TestTypedSecretReachesOnlyItsResponse: the client gets the password the model types; the run's
// history, its GET view and later prompts never hold it, even when the client and the model
// echo it.
func TestTypedSecretReachesOnlyItsResponse(t *testing.T) {
	t.Parallel()
	const secret = "Tr0ub4dor&3x"
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	f.llm.Reply(`{"type":"tool_call","thought":"I type ` + secret + ` now.","tool":{"name":"type","arguments":{"id":"agent-2","text":"` + secret + `"}}}`)
	f.llm.Reply(toolCall("click", `{"id":"agent-3"}`))
	f.step(t, id, nil, nil)
	r := f.step(t, id, loginPage, success)
	if got := r.Tool.Parameters["text"]; got != secret {
		t.Fatalf("the step's response types %v, want the secret itself (the client must get it)", got)
	}
	// The page shows the typed value back: in its text, and in a field a show-password toggle
	// turned into a text field with a name no word list knows.
	echo := *loginPage
	echo.VisibleText = "The password " + secret + " is wrong."
	echo.Elements = append([]runs.Element{{ID: "agent-4", Tag: "input", Type: "text", Name: "fld_x", Value: secret, Context: "was " + secret}}, loginPage.Elements...)
	f.step(t, id, &echo, &runs.Result{Success: false, Error: `Could not type "` + secret + `" into the field`})

	prompt := f.llm.Requests()[1].User()
	if strings.Contains(prompt, secret) {
		t.Errorf("the next prompt holds the secret:\n%s", prompt)
	}
	if !strings.Contains(prompt, trust.Mask) {
		t.Errorf("the next prompt shows no mask where the secret was:\n%s", prompt)
	}
	got, err := f.svc.Get(context.Background(), "ten-a", "u-1", id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), secret) {
		t.Errorf("GET /agent/run/{id} holds the secret: %s", b)
	}
	run, err := f.store.Get(context.Background(), "ten-a", id)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := f.store.Entries(context.Background(), "ten-a", id, 0)
	stored, _ := json.Marshal([]any{run, entries})
	if strings.Contains(string(stored), secret) {
		t.Errorf("the stored run holds the secret: %s", stored)
	}
	if len(run.Secrets.Typed) != 1 {
		t.Errorf("the run remembers %d typed secrets, want 1", len(run.Secrets.Typed))
	}
}

func TestTypeWithNamedSecret(t *testing.T) {
	t.Parallel()
	held := []trust.NamedSecret{{Name: "crm_password", Origin: "crm.example.com"}, {Name: "bank_pin", Origin: "bank.example"}}
	cases := []struct {
		name    string
		replies []string
		want    string // the secret the response types, "" for a refused step
	}{
		{"held and bound to the page's origin", []string{toolCall("type", `{"id":"agent-2","secret":"crm_password"}`)}, "crm_password"},
		{"bound to another origin, then corrected", []string{
			toolCall("type", `{"id":"agent-2","secret":"bank_pin"}`),
			toolCall("type", `{"id":"agent-2","secret":"crm_password"}`)}, "crm_password"},
		{"unknown twice", []string{
			toolCall("type", `{"id":"agent-2","secret":"mail_password"}`),
			toolCall("type", `{"id":"agent-2","secret":"mail_password"}`)}, ""},
		{"both text and secret twice", []string{
			toolCall("type", `{"id":"agent-2","text":"x","secret":"crm_password"}`),
			toolCall("type", `{"id":"agent-2","text":"x","secret":"crm_password"}`)}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			resp, err := f.svc.Start(context.Background(), runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: "Sign in to the CRM", Mode: runs.ModeAutonomous, SecretNames: held})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.replies {
				f.llm.Reply(r)
			}
			f.step(t, resp.RunID, nil, nil)
			r, err := f.svc.Step(context.Background(), runs.StepRequest{TenantID: "ten-a", UserID: "u-1", RunID: resp.RunID, Snapshot: loginPage, LastActionResult: success})
			if tc.want == "" {
				var llmErr *runs.LLMError
				if !errors.As(err, &llmErr) {
					t.Fatalf("Step() = %+v, %v; want an LLMError (no secret is emitted)", r, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Tool.Parameters["secret"]; got != tc.want {
				t.Errorf("response parameters %v, want secret %q", r.Tool.Parameters, tc.want)
			}
			if _, ok := r.Tool.Parameters["text"]; ok {
				t.Errorf("response parameters %v carry a text, want the secret's name only", r.Tool.Parameters)
			}
			prompt := f.llm.Requests()[0].User()
			if !strings.Contains(prompt, "crm_password (only on crm.example.com)") {
				t.Errorf("the prompt does not list the held secret with its binding:\n%s", prompt)
			}
		})
	}
}

func TestQuestionsCarryTheirKind(t *testing.T) {
	t.Parallel()
	payPage := &runs.Snapshot{URL: "https://shop.example/checkout", Title: "Checkout", Elements: []runs.Element{{ID: "agent-1", Tag: "button", Text: "Pay now"}}}
	cases := []struct {
		name, reply string
		page        *runs.Snapshot
		want        string
	}{
		{"password", `{"type":"ask_user","question":"What is your password for the CRM?"}`, loginPage, trust.RequestCredentials},
		{"one-time code", `{"type":"ask_user","question":"Please give me the one-time code from your phone."}`, loginPage, trust.RequestOneTimeCode},
		{"information", `{"type":"ask_user","question":"Which plan do you want?"}`, loginPage, trust.RequestInformation},
		{"the gate's question", toolCall("click", `{"id":"agent-1"}`), payPage, trust.RequestConfirmation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			id := f.start(t, runs.ModeCareful)
			f.llm.Reply(tc.reply)
			f.step(t, id, nil, nil)
			r := f.step(t, id, tc.page, success)
			if r.Action != runs.ActionAskUser || r.UserRequest == nil || r.UserRequest.Type != tc.want {
				t.Errorf("response = %+v (userRequest %+v), want ask_user of type %s", r, r.UserRequest, tc.want)
			}
		})
	}
}

// TestApprovedSecretTypeIsTypedAgain: a type into a password field that the gate holds is kept
// masked; after the approval the model types the value again, and that call goes through.
func TestApprovedSecretTypeIsTypedAgain(t *testing.T) {
	t.Parallel()
	const secret = "Corr3ct-Horse"
	f := newFixture(t)
	id := f.start(t, runs.ModeCareful)
	typeIt := toolCall("type", `{"id":"agent-2","text":"`+secret+`","submit":true}`)
	f.llm.Reply(typeIt)
	f.llm.Reply(typeIt)
	f.step(t, id, nil, nil)
	held := f.step(t, id, loginPage, success)
	if held.Action != runs.ActionAskUser {
		t.Fatalf("typing and submitting = %+v, want the gate's question", held)
	}
	approved, err := f.svc.Answer(context.Background(), runs.AnswerRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Approved: true, ConfirmationID: held.ConfirmationID})
	if err != nil {
		t.Fatal(err)
	}
	if approved.Tool == nil || approved.Tool.Name != runs.ToolObserve {
		t.Fatalf("approval = %+v, want observe (the masked value cannot be typed)", approved)
	}
	again := f.step(t, id, loginPage, success)
	if again.Action != runs.ActionExecuteTool || again.Tool.Parameters["text"] != secret {
		t.Errorf("typing again after the approval = %+v, want the type with the value, not held again", again)
	}
	if p := f.llm.Requests()[1].User(); !strings.Contains(p, "type the value again") || strings.Contains(p, secret) {
		t.Errorf("the prompt after the approval does not ask to type again, or holds the secret:\n%s", p)
	}
}

// TestRefusedRepliesQuoteNoValueForASecretField: on a page with a password field, the errors of
// replies the parser refused (which go to the client and the log line) never quote in clear
// what the model wrote, wherever it put it, while the words of the documented form stay.
func TestRefusedRepliesQuoteNoValueForASecretField(t *testing.T) {
	t.Parallel()
	const secret = `Zq-9_pass"WORD`
	quoted, _ := json.Marshal(secret)
	for _, tc := range []struct {
		name, reply, keeps string
	}{
		{"the value as the tool's name", `{"type":"tool_call","tool":{"name":` + string(quoted) + `,"arguments":{"id":"agent-2"}}}`, "unknown tool"},
		{"the value as a URL", toolCall("navigate", `{"url":`+string(quoted)+`}`), "navigate needs"},
		{"the value unquoted", `{"type":"tool_call","tool":{"name":"type","arguments":{"id":"agent-2","text":Zq-9_pass-WORD}}}`, "not valid JSON"},
		{"the value as the reply's type", `{"type":` + string(quoted) + `}`, `"type" must be`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var logs bytes.Buffer
			f.svc.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
			id := f.start(t, runs.ModeAutonomous)
			f.llm.Reply(tc.reply)
			f.llm.Reply(tc.reply)
			f.step(t, id, nil, nil)
			_, err := f.svc.Step(context.Background(), runs.StepRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Snapshot: loginPage, LastActionResult: success})
			var llmErr *runs.LLMError
			if !errors.As(err, &llmErr) {
				t.Fatalf("Step() error = %v, want an LLMError", err)
			}
			for _, v := range []string{secret, "Zq-9_pass-WORD", string(quoted[1 : len(quoted)-1])} {
				if strings.Contains(llmErr.Message, v) || strings.Contains(logs.String(), v) {
					t.Errorf("the error %q or the log %s quotes %q", llmErr.Message, logs.String(), v)
				}
			}
			if !strings.Contains(llmErr.Message, tc.keeps) {
				t.Errorf("the error %q lost %q, want the documented words kept", llmErr.Message, tc.keeps)
			}
		})
	}
}
