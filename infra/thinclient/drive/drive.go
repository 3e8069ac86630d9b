// Package drive plays the Screen Agent extension against the backend: it runs one task through
// the interact API or the run API, carrying out each action the server answers in a browser tab,
// reporting what happened, answering the agent's questions from a user, and keeping a
// screenshot of every step.
package drive

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/screenagent/backend/infra/thinclient/browser"
	"github.com/screenagent/backend/shared/trust"
)

// User answers the agent's questions: a reply text, and whether they approve (the run API's
// careful mode asks before risky steps).
type User func(question string) (reply string, approved bool)

// Task is one task for the agent.
type Task struct {
	Text     string
	StartURL string
	// Mode is careful or autonomous, on both APIs (the interact API defaults to autonomous).
	Mode string
	// Batch declares the actionBatch capability: the client runs several actions per answer.
	Batch bool
	User  User
	// MaxSteps bounds the client's loop (default 25); StepTimeout one step, API call and action
	// together (default 90 s).
	MaxSteps    int
	StepTimeout time.Duration
	// Started, when set, hears of the session (interact) or the run (run API) as soon as its id
	// is known, e.g. to watch its real-time events: field is "sessionId" or "runId".
	Started func(field, id string)
	// Secrets are the secrets the client keeps and fills itself (nil for none).
	Secrets Vault
	// Fill, when set, is the user typing into the extension's own input fields when the agent
	// asks for credentials or a one-time code (a typed userRequest): field name → value. The
	// client keeps the secret fields' values in Secrets and tells the server only their names;
	// without Fill the user answers such questions in words, through User.
	Fill func(question string, req trust.UserRequest) map[string]string
}

func (t Task) started(field, id string) {
	if t.Started != nil && id != "" {
		t.Started(field, id)
	}
}

// Step is one step as the client saw it.
type Step struct {
	N   int
	URL string
	// Screenshot is the page the agent decided on (PNG), when one could be taken.
	Screenshot []byte
	// Action is what the server answered, as it wrote it (`click(12)`, `type {"id":…}`, `ask_user`);
	// the actions of a batch, one per line.
	Action string
	// Actions counts the actions the answer carried (1, or a batch's size; 0 for a question or
	// the end).
	Actions int
	Thought string
	// OK and Result say how carrying the action out went.
	OK     bool
	Result string
	// Question and Reply are the agent's question and the user's answer, for a question step.
	Question string
	Reply    string
	Approved bool
	// PromptTokens and CompletionTokens are the usage the server reported for the step, if any.
	PromptTokens     int
	CompletionTokens int
	// Cached says the server answered the step from its action cache (metrics.cache "hit").
	Cached bool
}

// End says how a task ended.
type End string

const (
	Finished End = "finished"  // the agent said the task is done
	Failed   End = "failed"    // the agent gave up (fail, or the run API's error)
	Broken   End = "error"     // the client or the API failed
	TooLong  End = "step cap"  // the client's step cap was reached
	Stopped  End = "cancelled" // the user declined, or the context ended
)

// Transcript is what happened in a task.
type Transcript struct {
	Steps []Step
	End   End
	// Answer is the task's result when it finished: finish's argument, the API's result, else
	// the last thought. Reason says why it did not finish.
	Answer string
	Reason string
}

func (t Task) maxSteps() int { return cmp.Or(t.MaxSteps, 25) }

func (t Task) stepTimeout() time.Duration { return cmp.Or(t.StepTimeout, 90*time.Second) }

func (t Task) ask(question string) (string, bool) {
	if t.User == nil {
		return "", false
	}
	return t.User(question)
}

// observe captures the page and a screenshot for a step.
func observe(ctx context.Context, tab *browser.Tab, n int) (browser.Capture, Step, error) {
	c, err := tab.Capture(ctx)
	if err != nil {
		return c, Step{}, err
	}
	st := Step{N: n, URL: c.URL}
	if png, err := tab.Screenshot(ctx); err == nil {
		st.Screenshot = png
	}
	return c, st, nil
}

// stopped ends the transcript for a context that ended, or a broken client.
func (tr *Transcript) stop(ctx context.Context, err error) Transcript {
	if ctx.Err() != nil {
		tr.End, tr.Reason = Stopped, ctx.Err().Error()
	} else {
		tr.End, tr.Reason = Broken, err.Error()
	}
	return *tr
}

var errCap = errors.New("client step cap reached")

func (tr *Transcript) capped(max int) Transcript {
	tr.End, tr.Reason = TooLong, fmt.Sprintf("%v (%d steps)", errCap, max)
	return *tr
}
