// Package actionbatch is the batch policy both engines share (the interact engine's <Actions>,
// the run API's tool_calls): which actions may share a step, in what order, how many, and the
// capability a client declares to receive them. Each engine maps its own action table onto a
// Role per action; the rules are here once.
package actionbatch

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Capability is what a client declares (capabilities: ["actionBatch"]) when it can run several
// actions of one answer in order and report each outcome.
const Capability = "actionBatch"

// Max is the most actions one answer carries: enough for the fields of a long form page, few
// enough that a wrong guess about the page costs little.
const Max = 10

// Limits of the capabilities list a client sends.
const (
	MaxCapabilities   = 10
	MaxCapabilityName = 50
)

// Role says where an action may stand in a batch.
type Role int

const (
	// Alone: the action is a step of its own (scrolling, waiting, asking, finishing ...); in a
	// batch of more than one it is refused.
	Alone Role = iota
	// InPage changes the current page without leaving it (a field's value, a checkbox, an
	// option), so the actions after it still find the page the model saw.
	InPage
	// Leaves may navigate or submit (a click on a button, Enter): only the last action of a
	// batch, since the page the model saw is gone after it.
	Leaves
)

// Part is one action of a batch as the rules see it.
type Part struct {
	// Action is how the model wrote it, for error messages.
	Action string
	Role   Role
	// Target is the element the action acts on ("" for none): two actions on one element are
	// not independent.
	Target string
}

// Check applies the rules to a batch the model wrote. A single action is always a valid batch.
// The error is written for the model: the engines quote it in their corrective retry.
func Check(parts []Part) error {
	if len(parts) > Max {
		return fmt.Errorf("the batch has %d actions; write at most %d and leave the rest for the next step", len(parts), Max)
	}
	if len(parts) < 2 {
		return nil
	}
	seen := map[string]string{}
	for i, p := range parts {
		switch p.Role {
		case Alone:
			return fmt.Errorf("%s cannot be part of a batch: write it as the only action of its step", p.Action)
		case Leaves:
			if i != len(parts)-1 {
				return fmt.Errorf("%s may leave or change the page, so it can only be the last action of a batch", p.Action)
			}
		}
		if p.Target == "" {
			continue
		}
		if prev, dup := seen[p.Target]; dup {
			return fmt.Errorf("%s and %s act on the same element; a batch holds only independent actions", prev, p.Action)
		}
		seen[p.Target] = p.Action
	}
	return nil
}

// Toggles reports whether an element, by its tag, type and role, is a checkbox, radio button,
// switch or option: an action on it changes the page in place, so it may stand anywhere in a
// batch.
func Toggles(tag, typ, role string) bool {
	switch strings.ToLower(typ) {
	case "checkbox", "radio":
		return strings.EqualFold(tag, "input")
	}
	switch strings.ToLower(role) {
	case "checkbox", "radio", "switch", "option", "menuitemcheckbox", "menuitemradio":
		return true
	}
	return strings.EqualFold(tag, "option")
}

// Declared reads a client's capabilities list and reports whether it declares Capability.
// Names this server does not know are ignored, so that a client may declare what a newer server
// offers; a malformed list is an error naming what is wrong.
func Declared(capabilities []string) (bool, error) {
	if len(capabilities) > MaxCapabilities {
		return false, fmt.Errorf("must have at most %d entries", MaxCapabilities)
	}
	found := false
	for _, c := range capabilities {
		if strings.TrimSpace(c) == "" || utf8.RuneCountInString(c) > MaxCapabilityName {
			return false, fmt.Errorf("entries must be names of 1 to %d characters", MaxCapabilityName)
		}
		found = found || c == Capability
	}
	return found, nil
}

// Outcome is what the client reports of one action of the last answer.
type Outcome string

// Outcomes of an action the client was given.
const (
	Succeeded Outcome = "success"
	Failed    Outcome = "failure"
	// Skipped: the client did not run it, because an earlier action failed or the page
	// navigated or changed its structure.
	Skipped Outcome = "skipped"
)

// Valid reports whether o is one of the outcomes.
func (o Outcome) Valid() bool { return o == Succeeded || o == Failed || o == Skipped }

// Rules are the batch rules in words, for the part of a prompt that explains batches in the
// engine's own syntax.
const Rules = "Only independent actions on the current page may share a step: filling fields, choosing options, checking boxes. " +
	"At most 10 of them, optionally ending with one action that leaves the page (a click on a submit button, pressing Enter). " +
	"Never batch actions on the same element, actions that depend on what an earlier one shows (a menu that opens, a field that appears), or scrolling, waiting, asking and finishing. " +
	"The client runs them in order and stops at the first failure or when the page navigates or changes; the next request reports each outcome. " +
	"When unsure whether the page will change, send one action."
