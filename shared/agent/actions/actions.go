// Package actions is the action grammar of the interact engine: the one table of actions the
// model may answer with, and everything derived from it — the grammar section of the system
// prompt (PromptText), the strict parser of an action string (Parse), the check of element ids
// against the page that was sent (Validate), and the parser of the model's
// <Thought>…</Thought><Action>…</Action> reply (ParseReply).
//
// Adding an action, such as a server-side tool, is one entry in the table (table.go); the
// parser, the validator, the prompt and the canonical rendering follow from it.
//
// Error messages of Parse, Validate and ParseReply are written for the model: the engine puts
// them into its corrective retry prompt as they are.
package actions

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/actionbatch"
)

// Handler says who carries an action out.
type Handler string

const (
	// DOM actions are sent to the extension, which carries them out in the page or, for finish,
	// fail and askUser, ends or pauses its loop and shows the user the result or the question.
	DOM Handler = "DOM"
	// Server actions are carried out by the server; the extension never receives them to run.
	Server Handler = "SERVER"
)

// Effect is what an action does to its task. Its non-empty values are the task statuses the
// contract names.
type Effect string

const (
	Continues Effect = ""                 // the task goes on with its next step
	Completes Effect = "completed"        // the task ends, done (finish)
	Fails     Effect = "failed"           // the task ends, not done (fail)
	AsksUser  Effect = "needs_user_input" // the task waits for the user's answer (askUser)
)

// Terminal reports whether the effect ends the task.
func (e Effect) Terminal() bool { return e == Completes || e == Fails }

// Kind is the type of an argument.
type Kind int

const (
	// KindElement is the id of an element of the page sent with the request: a non-negative
	// integer written without sign, quotes or leading zeros. Go type: int.
	KindElement Kind = iota + 1
	// KindText is a double-quoted string with JSON escapes. Go type: string.
	KindText
	// KindURL is a double-quoted absolute http or https URL. Go type: string.
	KindURL
	// KindChoice is a double-quoted string from ArgSpec.Choices, matched case-sensitively. Go type: string.
	KindChoice
	// KindSeconds is a number of seconds, integer or decimal with at most 3 decimal places,
	// within ArgSpec.Min and ArgSpec.Max. Go type: time.Duration.
	KindSeconds
)

// Limits of argument values.
const (
	// MaxTextLen bounds every string argument, in characters: far above any sensible field value
	// or question, and low enough that an action always fits in a stored step.
	MaxTextLen = 10_000
	// MaxElementID is the largest element id (9 digits).
	MaxElementID = 999_999_999
)

// Spec is one entry of the action table.
type Spec struct {
	Name        string    // case-sensitive ASCII identifier
	Args        []ArgSpec // in order; optional ones last
	Handler     Handler
	Effect      Effect
	Description string // one line for the model, after "name(args) — "
	// Batch says where the action may stand in a batch (<Actions>); the zero value keeps it alone.
	Batch actionbatch.Role
	// ToggleInPage: on a checkbox, radio button or option the action changes the page in place,
	// so it may stand anywhere in a batch (a click that checks a box), whatever Batch says.
	ToggleInPage bool
}

// ArgSpec is one argument of an action.
type ArgSpec struct {
	Name     string   // placeholder in the prompt and in error messages: "text", "url", "key"
	Kind     Kind     //
	Choices  []string // KindChoice: the allowed values
	Min, Max time.Duration
	// Optional arguments may be left out; only the last arguments of an action can be optional.
	Optional bool
	// AllowEmpty lets a KindText argument be "" (setValue clears a field with it).
	AllowEmpty bool
}

// Action is a parsed, well-formed action. Its zero value is no action. Obtain one from Parse or
// New, which check it against the table; Validate then checks it against the page.
type Action struct {
	spec *Spec
	args []any // int, string or time.Duration, by the kind of each argument
}

// Name is the action's name, such as "setValue".
func (a Action) Name() string {
	if a.spec == nil {
		return ""
	}
	return a.spec.Name
}

// Args are the argument values in order: int for KindElement, string for KindText, KindURL and
// KindChoice, time.Duration for KindSeconds. Optional arguments left out are absent.
func (a Action) Args() []any { return append([]any(nil), a.args...) }

// Handler says who carries the action out.
func (a Action) Handler() Handler {
	if a.spec == nil {
		return ""
	}
	return a.spec.Handler
}

// Effect is what the action does to its task.
func (a Action) Effect() Effect {
	if a.spec == nil {
		return Continues
	}
	return a.spec.Effect
}

// Terminal reports whether the action ends its task (finish, fail).
func (a Action) Terminal() bool { return a.Effect().Terminal() }

// ElementID is the action's first element id argument, if it has one.
func (a Action) ElementID() (int, bool) {
	for _, v := range a.args {
		if id, ok := v.(int); ok {
			return id, true
		}
	}
	return 0, false
}

// Text is the action's first string argument (the text of setValue, the query of search, the
// url of navigate, the question of askUser, the reason of fail, ...), if it has one.
func (a Action) Text() (string, bool) {
	for _, v := range a.args {
		if s, ok := v.(string); ok {
			return s, true
		}
	}
	return "", false
}

// String is the canonical form of the action, e.g. `setValue(12, "a \"b\"")`: no spaces but
// one after each comma, strings quoted with JSON escapes, seconds in the shortest decimal form.
// Parse(a.String()) gives back a.
func (a Action) String() string {
	if a.spec == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(a.spec.Name)
	b.WriteByte('(')
	for i, v := range a.args {
		if i > 0 {
			b.WriteString(", ")
		}
		switch v := v.(type) {
		case int:
			b.WriteString(strconv.Itoa(v))
		case string:
			writeQuoted(&b, v)
		case time.Duration:
			b.WriteString(formatSeconds(v))
		case SecretRef:
			b.WriteString("secret(")
			writeQuoted(&b, string(v))
			b.WriteByte(')')
		}
	}
	b.WriteByte(')')
	return b.String()
}

// Validate checks the action against the page that was sent with the request: every element id
// it names must be one the page has (hasElement; nil means the page has none).
func Validate(a Action, hasElement func(id int) bool) error {
	for _, v := range a.args {
		if id, ok := v.(int); ok && (hasElement == nil || !hasElement(id)) {
			return fmt.Errorf("%s: element %d is not on the current page; use the id of an element listed in the page", a.Name(), id)
		}
	}
	return nil
}

// writeQuoted writes s as a double-quoted string that parseString reads back to s: quote,
// backslash and control characters escaped, everything else as is. Invalid UTF-8 cannot come from
// Parse; from New it is refused, so every byte sequence here is valid.
func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// formatSeconds writes a whole number of milliseconds as seconds in the shortest decimal form:
// 2s → "2", 1.5s → "1.5", 250ms → "0.25".
func formatSeconds(d time.Duration) string {
	ms := d.Milliseconds()
	s := strconv.FormatInt(ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
	}
	return s
}

// textLen is the length of a string argument as the limits count it: characters.
func textLen(s string) int { return utf8.RuneCountInString(s) }

// SecretRef stands for a secret the browser holds, by name, in place of the text of setValue:
// the server never sees the value, the client substitutes it.
type SecretRef string

// WithSecret returns the setValue action typing the named secret instead of its text.
func (a Action) WithSecret(name string) (Action, error) {
	if a.Name() != "setValue" {
		return Action{}, fmt.Errorf("secret(%q) may only be the text of setValue, not of %s", name, a.Name())
	}
	args := a.Args()
	args[1] = SecretRef(name)
	return Action{spec: a.spec, args: args}, nil
}

// Secret is the name of the secret the action types, if it types one.
func (a Action) Secret() (string, bool) {
	for _, v := range a.args {
		if s, ok := v.(SecretRef); ok {
			return string(s), true
		}
	}
	return "", false
}

// secretCall is setValue typing a secret the browser holds: setValue(5, secret("crm_password")).
// The name is a secret name of secretNames (trust.ParseSecretNames).
var secretCall = regexp.MustCompile(`^setValue\(\s*(\d{1,9})\s*,\s*secret\(\s*"([A-Za-z0-9][A-Za-z0-9_.-]{0,63})"\s*\)\s*\)$`)

func (g *Grammar) parseSecretCall(id, name string) (Action, error) {
	n, err := strconv.Atoi(id)
	if err != nil || (len(id) > 1 && id[0] == '0') {
		return Action{}, fmt.Errorf("setValue: %q is not an element id", id)
	}
	a, err := g.New("setValue", n, "")
	if err != nil {
		return Action{}, err
	}
	return a.WithSecret(name)
}
