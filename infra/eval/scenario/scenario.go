// Package scenario is the proving ground's list of tasks: each with its level (QA levels 1–5 of
// SERVER_QA_ROADMAP.md), the APIs it runs on, the page it starts on, the scripted user who
// answers the agent's questions, and the success check that reads the sites' own state.
package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/screenagent/backend/infra/eval/sites"
)

// API names a backend API a scenario runs through.
type API string

const (
	Interact API = "interact"
	Run      API = "run"
)

// Scenario is one task and how to judge it.
type Scenario struct {
	Name  string
	Level int
	APIs  []API
	// Task is the user's task; Start the page the browser shows when it begins.
	Task  func(s *sites.Server) string
	Start func(s *sites.Server) string
	// Mode is the run API's mode (autonomous unless set).
	Mode string
	// MaxSteps is the client's step cap for the scenario (the suite's when 0).
	MaxSteps int
	// User answers the agent's questions; nil means the user has nothing to say.
	User func(question string) (reply string, approved bool)
	// Types is what the user types into the extension's own fields when the agent asks for
	// credentials or a one-time code (field name → value): the client keeps the secrets and the
	// server hears only their names. Nil: the user answers such questions in words (User).
	Types map[string]string
	// Check decides success from what the sites saw: nil is success, an error says what is wrong.
	Check func(st sites.State) error
}

// Case is one scenario on one API.
type Case struct {
	Scenario
	API API
	// ExpectedFail is why the case is expected to fail today ("" when it is expected to pass).
	ExpectedFail string
}

// ID names a case, as in the expected-failures table: "name/api".
func (c Case) ID() string { return c.Name + "/" + string(c.API) }

// expectedFailures lists the cases that need a feature another issue adds, one line each; the
// issue that adds the feature deletes its line. `make eval` still runs them and shows an
// unexpected pass as such.
var expectedFailures = map[string]string{
	// Empty: every scenario passes today.
}

// Cases returns the scenarios whose name contains filter (all when empty) on the APIs asked
// for, in the list's order.
func Cases(filter string, apis []API) []Case {
	var out []Case
	for _, s := range All {
		if filter != "" && !strings.Contains(s.Name, filter) {
			continue
		}
		for _, a := range s.APIs {
			for _, want := range apis {
				if a == want {
					c := Case{Scenario: s, API: a}
					c.ExpectedFail = expectedFailures[c.ID()]
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// Quick is every scenario once, on the first API it lists: the suite `make test` runs.
func Quick() []Case {
	var out []Case
	for _, s := range All {
		c := Case{Scenario: s, API: s.APIs[0]}
		c.ExpectedFail = expectedFailures[c.ID()]
		out = append(out, c)
	}
	return out
}

func both() []API { return []API{Interact, Run} }

// answers is a user who gives the same reply to every question, and approves.
func answers(reply string) func(string) (string, bool) {
	return func(string) (string, bool) { return reply, true }
}

func url(host, path string) func(*sites.Server) string {
	return func(s *sites.Server) string { return s.URL(host, path) }
}

func text(t string) func(*sites.Server) string { return func(*sites.Server) string { return t } }

func answerHas(st sites.State, fact string) error {
	switch {
	case !st.Answered:
		return errors.New("the task did not end with an answer")
	case !strings.Contains(strings.ToLower(st.Answer), strings.ToLower(fact)):
		return fmt.Errorf("the answer %q does not contain %q", st.Answer, fact)
	}
	return nil
}

func formHas(e sites.Event, want map[string]string) error {
	for k, v := range want {
		if got := strings.TrimSpace(e.Form[k]); !strings.EqualFold(got, v) {
			return fmt.Errorf("the form's %s was %q, want %q", k, got, v)
		}
	}
	return nil
}

func lastPost(st sites.State, host, path string) (sites.Event, error) {
	e, ok := st.Last(host, "POST", path)
	if !ok {
		return e, fmt.Errorf("nothing was submitted to %s%s", host, path)
	}
	return e, nil
}
