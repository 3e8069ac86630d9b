package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tasks"
)

// takeIn brings what the request says about the past into the task's memory: the client's
// report on the last action, and the user's message when the query is a new one. It returns
// the message ("" for none). On an existing task, a query that differs from the task's is the
// user speaking: the answer to a pending question, or a new instruction. Clients that send the
// same text again (their last reply, or "Continue") add nothing new — unless a question is
// pending: then the request is its answer even when the words are the last answer's ("Yes, go
// ahead." to the second payment as to the first); dropping it would tell the model the user
// never answered.
func takeIn(mem *tasks.Memory, taskQuery string, req Request, isNew bool, stepIndex int) string {
	if isNew {
		return ""
	}
	if last := mem.Last(); last != nil && !last.Reported {
		last.Result, last.Reported = req.Report, true
	}
	q := strings.TrimSpace(req.Query)
	n := len(mem.Messages)
	// The query arrives masked of the secrets typed so far (redactRequest): the task's text sent
	// again is then the task's text masked, not a new message.
	task := strings.TrimSpace(taskQuery)
	if q == task || q == strings.TrimSpace(mem.Secrets.Redact(task)) || mem.Pending == "" && n > 0 && q == mem.Messages[n-1].Text {
		return ""
	}
	if mem.Pending != "" {
		if last := mem.Last(); last != nil {
			// The answer is the outcome the question was asked for.
			completeStep(mem.Plan, last.PlanStep)
		}
	}
	mem.AddMessage(tasks.UserMessage{Text: q, Question: mem.Pending, ServerAsked: mem.PendingByServer, Step: stepIndex})
	mem.Pending, mem.PendingByServer = "", false
	return q
}

// focusQuery is what the page budget keeps lines for: the task and the user's latest message.
func focusQuery(taskQuery string, mem *tasks.Memory) string {
	if n := len(mem.Messages); n > 0 {
		return taskQuery + " " + mem.Messages[n-1].Text
	}
	return taskQuery
}

// fingerprint identifies what the page shows at its URL, for the loop guard: the same action
// chosen again on the same fingerprint changed nothing the first time.
func fingerprint(url string, pg *pagemodel.Page) string {
	sum := sha256.Sum256([]byte(url + "\x00" + pg.Fingerprint()))
	return hex.EncodeToString(sum[:8])
}

// loopExempt are the actions the loop guard never refuses: asking, checking and ending.
var loopExempt = map[string]bool{"askUser": true, "verifySuccess": true, "finish": true, "fail": true}

// triedOn counts, by their stored form, the actions of the latest steps that were all chosen on
// the page with this fingerprint: the page has not changed since the first of them. A page left
// and come back to starts afresh (its ids may mean other elements now); see revisitNotes.
func triedOn(mem *tasks.Memory, fp string) map[string]int {
	tried := map[string]int{}
	for i := len(mem.Recent) - 1; i >= 0 && mem.Recent[i].Fingerprint == fp; i-- {
		for _, a := range partsOf(mem.Recent[i]) {
			if !loopExempt[actionName(a)] {
				tried[a]++
			}
		}
	}
	return tried
}

// revisitNotes tell the model, on its first step back on a URL it left, what it did there last
// time and where that led: history, not a claim that the page is unchanged.
func revisitNotes(mem *tasks.Memory, url string) []string {
	n := len(mem.Recent)
	if n == 0 || mem.Recent[n-1].URL == url {
		return nil
	}
	for k := n - 2; k >= 0; k-- {
		if b := mem.Recent[k]; b.URL == url {
			return []string{fmt.Sprintf("You were on this page before: last time (step %d) you chose %s here, which led to %s. Element ids may differ now.",
				b.Index+1, b.Action, quote(mem.Recent[k+1].URL))}
		}
	}
	return nil
}

// maxRepeats is how often an action may be chosen on an unchanged page; the next choice of it
// is refused.
const maxRepeats = 2

// loopNotes tell the model which actions it already took on this very page, which changed
// nothing visible.
func loopNotes(tried map[string]int) []string {
	if len(tried) == 0 {
		return nil
	}
	var parts []string
	for _, a := range slices.Sorted(maps.Keys(tried)) {
		times := "once"
		if n := tried[a]; n > 1 {
			times = fmt.Sprintf("%d times", n)
		}
		parts = append(parts, a+" ("+times+")")
	}
	return []string{"You already chose " + strings.Join(parts, ", ") + " on this same page, and the page has not changed since. " +
		"Repeating it will not help: choose a different action, or askUser(\"…\") if you are stuck. " +
		fmt.Sprintf("An action chosen %d times on an unchanged page is refused.", maxRepeats)}
}

// loopError refuses an action that was already chosen maxRepeats times on an unchanged page.
type loopError struct{ action string }

func (e loopError) Error() string {
	return fmt.Sprintf("%s was already chosen %d times on this unchanged page and changed nothing; choose a different action, or askUser(\"…\") if you are stuck", e.action, maxRepeats)
}

// checkLoop refuses the action when the loop guard forbids it on this page.
func checkLoop(a actions.Action, tried map[string]int) error {
	if loopExempt[a.Name()] {
		return nil
	}
	if tried[a.String()] >= maxRepeats {
		return loopError{a.String()}
	}
	return nil
}

// unverifiedFailure reports whether a recent action failed and no verification has come since:
// an action whose outcome the server verified on the page that followed counts, and so does a
// verifySuccess once the next request brought the page it checks, unless the client reported
// it failed.
func unverifiedFailure(mem *tasks.Memory) bool {
	lastFailure, lastVerified := -1, -1
	for i, b := range mem.Recent {
		switch {
		case b.Result.Failed():
			lastFailure = i
		case b.Verdict == tasks.Verified, b.Reported && actionName(b.Action) == "verifySuccess":
			lastVerified = i
		}
	}
	return lastFailure >= 0 && lastVerified < lastFailure
}

// storedAction is the action as stored, logged and exported: a value typed into a password-like
// field is masked (the client still receives it in the response).
func storedAction(action string, pg *pagemodel.Page) string {
	a, err := actions.Parse(action)
	if err != nil || a.Name() != "setValue" {
		return action
	}
	id, _ := a.ElementID()
	if _, named := a.Secret(); named || !pg.Secret(id) {
		// A secret's name is no secret: the history must tell secret("x") from a value typed.
		return action
	}
	masked, err := actions.New("setValue", id, maskedValue)
	if err != nil {
		return action
	}
	return masked.String()
}

// maskedValue stands for a secret in stored actions.
const maskedValue = "••••••"

func actionName(action string) string {
	name, _, _ := strings.Cut(action, "(")
	return name
}

// forgetTypedSecrets masks, once a value has been typed into a secret field, what the task kept
// of it from before it was known to be one: a password the user gave in an answer is needed in
// clear until the step that types it, and nowhere after. It returns the step's user message
// masked the same way. The task's own text stays as the user wrote it (the action cache knows
// the task by it); the prompt shows it masked (taskText).
func forgetTypedSecrets(mem *tasks.Memory, userMessage string) string {
	sec := &mem.Secrets
	if sec.Empty() {
		return userMessage
	}
	for i := range mem.Messages {
		m := &mem.Messages[i]
		m.Text, m.Question = sec.Redact(m.Text), sec.Redact(m.Question)
	}
	return sec.Redact(userMessage)
}

// taskText is the task as the prompt shows it: without the values typed into secret fields.
func taskText(t tasks.Task) string { return t.Memory.Secrets.Redact(t.Query) }
