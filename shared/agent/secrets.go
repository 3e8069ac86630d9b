package agent

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/pagemodel"
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
	if r := req.Report; r != nil && len(r.Results) > 0 {
		rep := *r
		rep.Results = make([]tasks.ActionResult, len(r.Results))
		for i, res := range r.Results {
			res.Action = sec.Redact(res.Action)
			if res.Error != nil {
				e := *res.Error
				e.Message, e.Code, e.Action = sec.Redact(e.Message), sec.Redact(e.Code), sec.Redact(e.Action)
				res.Error = &e
			}
			rep.Results[i] = res
		}
		req.Report = &rep
	}
}

// guardDecision remembers a value the action types into a secret field (so that its echoes are
// redacted from now on) and redacts every typed secret from the model's words (its thought, its
// reply's blocks, the parse errors) and from any action but the one typing the secret (the
// client must get that value; a finish or a question repeating it must not carry it). The words
// are also redacted of every value a refused reply may have meant for a secret field (d.unparsed). Every action of a batch
// is guarded as a single action is: a part typing a secret keeps it, every other part is redacted.
func guardDecision(sec *trust.Secrets, d *decision, pg *pagemodel.Page) {
	typing := typesSecret(sec, d.action, pg)
	for _, a := range d.batch {
		typesSecret(sec, a, pg)
	}
	// The model's words are redacted of the unparsed values too; the chosen actions only of the
	// typed secrets (a corrected reply may rightly type the same text into an ordinary field).
	words := sec.With(d.unparsed...)
	if words.Empty() {
		return
	}
	d.thought = words.Redact(d.thought)
	for k, v := range d.sections {
		d.sections[k] = words.Redact(v)
	}
	for i, e := range d.parseErrors {
		d.parseErrors[i] = words.Redact(e)
	}
	d.modelAction = words.Redact(d.modelAction)
	if sec.Empty() {
		return
	}
	if !typing {
		d.action = redactAction(sec, d.action)
	}
	if len(d.batch) > 0 {
		batch := make([]actions.Action, len(d.batch))
		for i, a := range d.batch {
			batch[i] = a
			if !typesSecret(sec, a, pg) {
				batch[i] = redactAction(sec, a)
			}
		}
		d.batch = batch
	}
}

var (
	// refusedCall finds an element id opening a call's arguments ("setValue(6", "setValue 6",
	// "setValue(id=6") and the rest of its line.
	refusedCall = regexp.MustCompile(`[A-Za-z_]\w*\s*[(\s]\s*(?:[A-Za-z_]\w*\s*[=:]\s*)?(\d{1,9})([^\n]*)`)
	// callPunct are the characters that delimit a call's arguments, in any quotes.
	callPunct = "(),;:=\"'“”‘’«»`"
	// quotedRun is a run of text in any of the quotes a model writes.
	quotedRun = regexp.MustCompile("\"([^\"\n]*)\"|'([^'\n]*)'|“([^”\n]*)”|‘([^’\n]*)’|«([^»\n]*)»|`([^`\n]*)`")
)

// unparsedValues are the texts a reply the parser refused may have meant to type into a secret
// field (the action was never taken, so the value was never remembered): after an element id
// that is not an ordinary field of the page (a secret field, or an id the page lacks), the rest
// of the call's line as written and unquoted, and every quoted run in it. A page without a
// secret field has none.
func unparsedValues(reply string, pg *pagemodel.Page) []string {
	if !slices.ContainsFunc(pg.Elements(), func(e pagemodel.Element) bool { return pg.Secret(e.ID) }) {
		return nil
	}
	var out []string
	for _, m := range refusedCall.FindAllStringSubmatch(reply, -1) {
		if id, err := strconv.Atoi(m[1]); err == nil && pg.HasElement(id) && !pg.Secret(id) {
			continue
		}
		rest, _, _ := strings.Cut(m[2], "</Action")
		rest = strings.TrimSpace(strings.TrimLeft(rest, " \t,;:"))
		rest = strings.TrimSpace(strings.TrimSuffix(rest, ")"))
		out = append(out, rest, strings.Trim(rest, "\"'“”‘’«»` "))
		if u, err := strconv.Unquote(rest); err == nil {
			out = append(out, u)
		}
		for _, q := range quotedRun.FindAllStringSubmatch(rest, -1) {
			out = append(out, slices.DeleteFunc(q[1:], func(s string) bool { return s == "" })...)
		}
		// And each piece between the call's punctuation or control characters (which an error
		// quotes escaped), as an error may quote it alone.
		for _, piece := range strings.FieldsFunc(rest, func(r rune) bool { return strings.ContainsRune(callPunct, r) || unicode.IsControl(r) }) {
			out = append(out, strings.TrimSpace(piece))
		}
	}
	return out
}

// typesSecret reports whether the action types a value into a secret field, and remembers it.
func typesSecret(sec *trust.Secrets, a actions.Action, pg *pagemodel.Page) bool {
	if a.Name() != "setValue" {
		return false
	}
	id, _ := a.ElementID()
	if text, ok := a.Text(); ok && pg.Secret(id) {
		sec.Remember(text)
		return true
	}
	return false
}

// redactAction is the action with every typed secret redacted from it.
func redactAction(sec *trust.Secrets, a actions.Action) actions.Action {
	if s := a.String(); sec.Redact(s) != s {
		if r, err := actions.Parse(sec.Redact(s)); err == nil {
			return r
		}
	}
	return a
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
func logAction(action string, pg *pagemodel.Page) string { return storedAction(action, pg) }

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
