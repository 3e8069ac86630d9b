package runs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/screenagent/backend/shared/trust"
)

// maskSecretValues replaces the values of the snapshot's secret fields (secretFields) with
// trust.Mask as the snapshot is read, so that no prompt, stored run or API read holds them.
func maskSecretValues(s *Snapshot) {
	for i, secret := range secretFields(s) {
		if e := &s.Elements[i]; secret && e.Value != "" {
			e.Value = trust.Mask
		}
	}
}

// secretFields reports which of the snapshot's elements are secret fields (trust.SecretFields).
// An element's text stands for its label as much as its label does: the content script reads
// an input's text from its label.
func secretFields(s *Snapshot) []bool {
	fs := make([]trust.Field, len(s.Elements))
	for i, e := range s.Elements {
		fs[i] = trust.Field{
			Tag: e.Tag, Type: e.Type, Autocomplete: e.Autocomplete, Name: e.Name, AriaLabel: e.AriaLabel,
			Placeholder: e.Placeholder, Label: strings.TrimSpace(e.Label + " " + e.Text),
			Value: e.Value, InputMode: e.InputMode, MaxLength: e.MaxLength, Masked: e.Masked,
		}
	}
	return trust.SecretFields(fs)
}

// redactSnapshot is the snapshot with the run's typed secrets removed from every text it
// carries: a page may show back what was typed (a "show password" field, a confirmation
// line), and the snapshot goes to the prompt, the run item and GET /agent/run/{id}.
func redactSnapshot(sec *trust.Secrets, s *Snapshot) *Snapshot {
	if s == nil || sec.Empty() {
		return s
	}
	out := *s
	out.URL, out.Title, out.VisibleText = sec.Redact(s.URL), sec.Redact(s.Title), sec.Redact(s.VisibleText)
	out.Elements = make([]Element, len(s.Elements))
	for i, e := range s.Elements {
		for _, f := range []*string{&e.Text, &e.AriaLabel, &e.Placeholder, &e.Value, &e.Href, &e.Name, &e.Label, &e.Context} {
			*f = sec.Redact(*f)
		}
		if len(e.Options) > 0 {
			opts := make([]string, len(e.Options))
			for k, o := range e.Options {
				opts[k] = sec.Redact(o)
			}
			e.Options = opts
		}
		out.Elements[i] = e
	}
	return &out
}

// typesSecret reports whether the tool types its text into a secret field of the page.
func typesSecret(t *Tool, page *Snapshot) bool {
	if t == nil || t.Name != ToolType || t.Text == "" || page == nil {
		return false
	}
	i := slices.IndexFunc(page.Elements, func(e Element) bool { return e.ID == t.ID })
	return i >= 0 && secretFields(page)[i]
}

// storedTool is the tool as the run keeps it: a text typed into a secret field is remembered as
// the run's typed secret (a keyed hash, for redacting echoes) and masked. Only the step's
// response (and its idempotency record) carries the text itself.
func storedTool(run *Run, t *Tool, page *Snapshot) *Tool {
	if !typesSecret(t, page) {
		return t
	}
	run.Secrets.Remember(t.Text)
	masked := *t
	masked.Text = trust.Mask
	return &masked
}

// redactReply removes the run's typed secrets from what the model wrote.
func redactReply(run *Run, r *Reply) {
	r.Thought = run.Secrets.Redact(r.Thought)
	r.Question = run.Secrets.Redact(r.Question)
	r.Answer = run.Secrets.Redact(r.Answer)
}

// redactEntries is the history as the prompt shows it: a password the user gave in words (in an
// answer) is needed in clear until the step that types it, and masked after it. The stored
// entries keep what was said when it was said.
func redactEntries(run *Run, history []Entry) []Entry {
	if run.Secrets.Empty() {
		return history
	}
	out := make([]Entry, len(history))
	for i, e := range history {
		e.PreviousResult = redactResult(run, e.PreviousResult)
		if e.UserAnswer != nil {
			a := *e.UserAnswer
			a.Text = run.Secrets.Redact(a.Text)
			e.UserAnswer = &a
		}
		out[i] = e
	}
	return out
}

// redactResult is the client's report with the run's typed secrets removed: a client may echo
// the text it failed to type.
func redactResult(run *Run, r *Result) *Result {
	if r == nil || run.Secrets.Empty() {
		return r
	}
	out := *r
	out.Message, out.Error = run.Secrets.Redact(r.Message), run.Secrets.Redact(r.Error)
	if len(r.Parts) > 0 {
		out.Parts = make([]Result, len(r.Parts))
		for i := range r.Parts {
			out.Parts[i] = *redactResult(run, &r.Parts[i])
		}
	}
	return &out
}

// checkSecretUse refuses a type call with a secret the client does not hold, or one bound to
// another origin than the page's: the corrective retry tells the model so.
// Every call of a batch is checked as a single call is.
func checkSecretUse(r Reply, held []trust.NamedSecret, page *Snapshot) error {
	if r.Type != ReplyToolCall {
		return nil
	}
	calls := r.Tools
	if len(calls) == 0 {
		calls = []Tool{r.Tool}
	}
	for _, t := range calls {
		if t.Secret == "" {
			continue
		}
		if err := trust.CheckSecretUse(held, t.Secret, page.URL); err != nil {
			return fmt.Errorf("type with secret %q cannot be used: %w", t.Secret, err)
		}
	}
	return nil
}

// askKind types a question: one the security gate asks about a held call is a confirmation,
// the model's own is classified by trust.RequestFor.
func askKind(e Entry) *trust.UserRequest {
	if e.Tool != nil {
		return trust.ConfirmationRequest()
	}
	return trust.RequestFor(e.Question, nil)
}

// approveSecretType is the call an approval carries out. A held type into a secret field was
// kept masked, so the client cannot be given it: the approval observes instead, tells the model
// to type the value again, and remembers the approval so that the same call is not held twice.
//
// A held batch (pending, which runs from its start) is given whole unless any of its calls is
// such a type: then the approval observes the same way, and remembers the held call.
func approveSecretType(run *Run, held Tool, pending []Tool, reply *Result) (Tool, []Tool) {
	masked := maskedType(held)
	for _, t := range pending {
		masked = masked || maskedType(t)
	}
	if !masked {
		if len(pending) > 0 {
			return pending[0], pending // a held batch runs from its start
		}
		return held, nil
	}
	approved := held
	run.ApprovedSecretType = &approved
	reply.Message += " The server does not keep typed secrets: type the value again (this call will not be asked about again)."
	return Tool{Name: ToolObserve}, nil
}

// maskedType reports whether the call is a type whose secret text the run kept masked.
func maskedType(t Tool) bool { return t.Name == ToolType && t.Text == trust.Mask }

// approvedSecretType reports whether the call is the approved held type into a secret field
// (compared as kept, masked), and uses the approval up.
func approvedSecretType(run *Run, kept *Tool) bool {
	a := run.ApprovedSecretType
	if a == nil || kept == nil || *a != *kept {
		return false
	}
	run.ApprovedSecretType = nil
	return true
}

var (
	// replyString is a JSON string in a reply as written, closed or not.
	replyString = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"?`)
	// bareValue is a member's value written without quotes (invalid JSON).
	bareValue = regexp.MustCompile(`:\s*([^"\s{\[\],}][^,}\]\n]*)`)
)

// unparsedValues are the texts of a reply the parser refused that may have been meant for a
// secret field of the page (the call was never taken, so its text was never remembered): every
// string and bare value the model wrote, but the words of the reply's documented form and the
// page's element ids, which the parse errors may name. A page without a secret field has none.
func unparsedValues(reply string, page *Snapshot) []string {
	if page == nil || !slices.Contains(secretFields(page), true) {
		return nil
	}
	var out []string
	keep := func(v string) {
		if _, onPage := page.Element(v); !onPage && !replyWords[v] {
			out = append(out, v)
		}
	}
	for _, m := range replyString.FindAllStringSubmatch(reply, -1) {
		keep(m[1])
		var u string
		if json.Unmarshal([]byte(`"`+m[1]+`"`), &u) == nil && u != m[1] {
			keep(u)
		}
	}
	for _, m := range bareValue.FindAllStringSubmatch(reply, -1) {
		keep(m[1])
	}
	return out
}

// replyWords are the words of the reply's documented form: its keys, types and tool names.
var replyWords = func() map[string]bool {
	w := map[string]bool{"type": true, "tool": true, "tools": true, "name": true, "arguments": true, "thought": true,
		"payment": true, "answer": true, "question": true, ReplyToolCall: true, ReplyToolCalls: true, ReplyFinal: true, ReplyAskUser: true}
	for _, t := range tools {
		w[t.name] = true
		for _, a := range t.args {
			w[a.name] = true
		}
	}
	return w
}()
