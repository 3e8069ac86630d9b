package drive

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/trust"
)

func TestAnswerTyped(t *testing.T) {
	creds := trust.CredentialsRequest()
	code := trust.OneTimeCodeRequest()
	fill := func(v map[string]string) func(string, trust.UserRequest) map[string]string {
		return func(string, trust.UserRequest) map[string]string { return v }
	}
	cases := []struct {
		name      string
		task      Task
		req       *trust.UserRequest
		wantOK    bool
		wantReply string
		wantVault map[string]string // name → value@origin
	}{
		{"credentials: the user name in words, the password by name",
			Task{Fill: fill(map[string]string{"username": "ada", "password": "n3w-pass"})}, creds, true,
			`User name or email: ada; Password: in my browser, as the secret "password".`, map[string]string{"password": "n3w-pass@crm.test:8080"}},
		{"a one-time code by name", Task{Fill: fill(map[string]string{"code": "123456"})}, code, true,
			`One-time code: in my browser, as the secret "code".`, map[string]string{"code": "123456@crm.test:8080"}},
		{"a second password gets its own name",
			Task{Fill: fill(map[string]string{"password": "other"}), Secrets: Vault{"password": {origin: "crm.test:8080", value: "n3w-pass"}}}, creds, true,
			`Password: in my browser, as the secret "password_2".`, map[string]string{"password": "n3w-pass@crm.test:8080", "password_2": "other@crm.test:8080"}},
		{"without Fill the user answers in words", Task{}, creds, false, "", nil},
		{"a request without a secret field is answered in words",
			Task{Fill: fill(map[string]string{"answer": "blue"})}, trust.InformationRequest(), false, "", map[string]string{}},
		{"nothing filled is answered in words", Task{Fill: fill(nil)}, creds, false, "", map[string]string{}},
		{"an untyped question is answered in words", Task{Fill: fill(map[string]string{"password": "x"})}, nil, false, "", map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task := c.task.withVault()
			reply, ok := task.answerTyped("What is the password?", c.req, "https://crm.test:8080/login")
			if ok != c.wantOK || reply != c.wantReply {
				t.Fatalf("got %q, %v; want %q, %v", reply, ok, c.wantReply, c.wantOK)
			}
			got := map[string]string{}
			for name, s := range task.Secrets {
				got[name] = s.value + "@" + s.origin
			}
			if c.wantVault != nil && !equalMaps(got, c.wantVault) {
				t.Fatalf("vault = %v, want %v", got, c.wantVault)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestTypedCredentialsReachTheServerByNameOnly: on both APIs, a user who types a changed password
// into the extension's own field answers a credentials request; the server hears the secret's
// name (secretNames, and in the reply), never the value.
func TestTypedCredentialsReachTheServerByNameOnly(t *testing.T) {
	const password = "n3w-horse-42"
	userRequest := `"userRequest":{"type":"credentials","fields":[{"name":"username","label":"User name or email"},{"name":"password","label":"Password","secret":true}]}`
	user := Task{Text: "Log in", User: func(string) (string, bool) { return "the password is " + password, true },
		Fill: func(string, trust.UserRequest) map[string]string { return map[string]string{"password": password} }}
	cases := []struct {
		name   string
		script []string
		answer int // which request answers the question
	}{
		{"interact", []string{
			`{"success":true,"data":{"thought":"t","action":"askUser(\"What is the new password?\")","taskId":"00000000-0000-4000-8000-000000000001","sessionId":"00000000-0000-4000-8000-000000000002","status":"needs_user_input",` + userRequest + `}}`,
			interactData(`finish()`, "completed"),
		}, 1},
		{"run", []string{
			`{"runId":"r1","success":true}`,
			`{"action":"ask_user","question":"What is the new password?","state":{"status":"waiting_user"},` + userRequest + `}`,
			`{"action":"finish","result":"done","state":{"status":"completed"}}`,
		}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake, api, tab, site := setup(t, c.script...)
			task := user
			task.StartURL = site
			var tr Transcript
			if c.name == "interact" {
				tr = Interact(context.Background(), api, tab, task)
			} else {
				tr = Run(context.Background(), api, tab, task)
			}
			if tr.End != Finished {
				t.Fatalf("got %+v, want finished", tr)
			}
			answer := fake.requests[c.answer]
			names, _ := answer["secretNames"].([]any)
			host := strings.TrimPrefix(site, "http://")
			if len(names) != 1 || names[0] != "password@"+host {
				t.Errorf("answer's secretNames = %v, want [password@%s]", answer["secretNames"], host)
			}
			if text, _ := json.Marshal(fake.requests); strings.Contains(string(text), password) {
				t.Errorf("the server heard the password: %s", text)
			}
		})
	}
}
