package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/agent/page"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

// redactRequest removes the task's typed secrets from what the client sends back: its report on
// the last action (a failed setValue is often reported with the text it could not type), the
// user's message and the extracted variables. Everything later (the step, the messages, the
// verification and correction records, the export, the prompts) is built from the redacted copy.
func redactRequest(sec *trust.Secrets, req *Request) {
	if sec.Empty() {
		return
	}
	req.Query = sec.Redact(req.Query)
	for k, v := range req.Variables {
		req.Variables[k] = sec.Redact(v)
	}
	if r := req.Report; r != nil && r.Error != nil {
		e := *r.Error
		e.Message, e.Code, e.Action = sec.Redact(e.Message), sec.Redact(e.Code), sec.Redact(e.Action)
		rep := *r
		rep.Error = &e
		req.Report = &rep
	}
}

// guardDecision remembers a value the action types into a secret field (so that its echoes are
// redacted from now on) and redacts every typed secret from the model's words: its thought, its
// reply's blocks, the parse errors, and any action but the one typing the secret (the client must
// get that value; a finish or a question repeating it must not carry it).
func guardDecision(sec *trust.Secrets, d *decision, pg *page.Page) {
	typing := false
	if d.action.Name() == "setValue" {
		id, _ := d.action.ElementID()
		if text, ok := d.action.Text(); ok && pg.Secret(id) {
			sec.Remember(text)
			typing = true
		}
	}
	if sec.Empty() {
		return
	}
	d.thought = sec.Redact(d.thought)
	for k, v := range d.sections {
		d.sections[k] = sec.Redact(v)
	}
	for i, e := range d.parseErrors {
		d.parseErrors[i] = sec.Redact(e)
	}
	d.modelAction = sec.Redact(d.modelAction)
	if !typing {
		if s := d.action.String(); sec.Redact(s) != s {
			if a, err := actions.Parse(sec.Redact(s)); err == nil {
				d.action = a
			}
		}
	}
}

// parseSecretAction reads setValue(id, secret("name")) when the action is one (ok): the secret
// must be one the client holds, bound (if it is) to the page's origin. A secret(...) anywhere
// else is an error for the model; an action without one is not this function's (ok false).
func parseSecretAction(raw string, held []trust.NamedSecret, pageURL string, hasElement func(int) bool) (actions.Action, bool, error) {
	a, err := actions.Parse(raw)
	name, isSecret := a.Secret()
	switch {
	case err != nil && strings.Contains(raw, "secret("):
		return actions.Action{}, true, errors.New(`secret("name") may only be the text of setValue, as in setValue(5, secret("name")), with a name from the secrets listed`)
	case err != nil || !isSecret:
		return actions.Action{}, false, nil
	}
	if err := trust.CheckSecretUse(held, name, pageURL); err != nil {
		id, _ := a.ElementID()
		return actions.Action{}, true, fmt.Errorf("setValue(%d, secret(%q)) cannot be used: %w", id, name, err)
	}
	if err := actions.Validate(a, hasElement); err != nil {
		return actions.Action{}, true, err
	}
	return a, true, nil
}

// logAction is the action as the request's log line shows it: masked like the stored step.
func logAction(action string, pg *page.Page) string { return storedAction(action, pg) }

// rememberNames keeps the secrets the client holds on the task: a request naming them replaces
// them, one without keeps those named before.
func rememberNames(mem *tasks.Memory, names []trust.NamedSecret) {
	if names != nil {
		mem.SecretNames = names
	}
}

// userRequest types the question to the user: a login that failed asks for credentials (which
// the client answers with secret names); any other question is classified by trust.RequestFor.
func userRequest(question string, missing []string, loginFailed bool) *trust.UserRequest {
	if loginFailed {
		return trust.CredentialsRequest()
	}
	return trust.RequestFor(question, missing)
}
