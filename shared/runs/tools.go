package runs

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/actionbatch"
)

// tools is the run API's tool table (PROXY_SERVER_API.md, "Tool"). Everything about a tool
// derives from its entry: the tool list of the system prompt (toolsPrompt), the parser and
// validator of the model's tool calls (parseTool), the parameters the client receives
// (Tool.Parameters), the rendering in prompts and loop detection (Tool.String, Tool.target), and
// what the security gate inspects (acts). A new tool is one entry, plus its field on Tool when it
// takes a new kind of argument.
var tools = []toolSpec{
	{name: ToolObserve, description: "wait for the page to settle, then take a fresh snapshot"},
	{name: ToolNavigate, description: "open a URL", acts: actsNavigate,
		args: []argSpec{{name: "url", kind: argURL, example: `"https://..."`}}},
	{name: ToolClick, description: "click an element", acts: actsActivate, batch: actionbatch.Leaves,
		args: []argSpec{{name: "id", kind: argElement, example: `"agent-1"`}}},
	{name: ToolType, description: "type text into an input (fires input and change events); a select takes an option's text", acts: actsInput, batch: actionbatch.InPage,
		args: []argSpec{{name: "id", kind: argElement, example: `"agent-2"`}, {name: "text", kind: argText, example: `"..."`},
			{name: "submit", kind: argSubmit, optional: true, example: "false", note: "submit true presses Enter after typing"},
			{name: "secret", kind: argSecret, optional: true, example: `"name"`, hidden: true}}},
	{name: ToolScroll, description: "scroll the page",
		args: []argSpec{{name: "deltaY", kind: argPixels, example: "600", note: "pixels; positive scrolls down"}}},
	{name: ToolPress, description: "press a keyboard key", acts: actsKey, batch: actionbatch.Leaves,
		args: []argSpec{{name: "key", kind: argKey, example: `"Enter"`}}},
	{name: ToolAskUser, description: "ask the user a question", reply: ReplyAskUser,
		args: []argSpec{{name: "question", kind: argQuestion, example: `"..."`}}},
	{name: ToolFinish, description: "end the task with your answer", reply: ReplyFinal,
		args: []argSpec{{name: "answer", kind: argAnswer, example: `"..."`}}},
}

// toolSpec is one tool of the table.
type toolSpec struct {
	name        string
	description string
	args        []argSpec
	// reply is the reply type a call of the tool is answered as: empty for a tool the client
	// executes (tool_call), ReplyAskUser or ReplyFinal for the two the server handles itself.
	reply string
	acts  acts
	// batch says where a call may stand in a batch (tool_calls); see batchRole for the
	// calls whose role depends on their arguments or element.
	batch actionbatch.Role
}

// acts is what a call does to the page: what the security gate judges (gate.go).
type acts int

const (
	// actsNot reads the page or talks to the user: never gated.
	actsNot acts = iota
	// actsNavigate opens its URL.
	actsNavigate
	// actsActivate activates its element, as a click does.
	actsActivate
	// actsInput types into its element and, with submit, submits the form.
	actsInput
	// actsKey presses a key on whatever has the focus.
	actsKey
)

// argKind is how an argument is read, checked and stored.
type argKind int

const (
	argElement  argKind = iota + 1 // the id of an element of the current page (Tool.ID)
	argURL                         // an absolute http(s) URL (Tool.URL)
	argText                        // a string, possibly empty (Tool.Text)
	argSubmit                      // a boolean, false when absent (Tool.Submit)
	argPixels                      // a non-zero number of pixels (Tool.DeltaY)
	argKey                         // a key name (Tool.Key)
	argQuestion                    // a non-empty question (Reply.Question)
	argAnswer                      // a non-empty final answer (Reply.Answer)
	argSecret                      // the name of a secret the client holds, typed instead of the text (Tool.Secret)
)

// argSpec is one argument of a tool.
type argSpec struct {
	name     string
	kind     argKind
	optional bool
	// example is the JSON value the prompt shows; note explains it there.
	example, note string
	// hidden leaves the argument out of the tool list: the prompt explains it where it applies
	// (the secrets the client holds).
	hidden bool
}

var toolByName = func() map[string]*toolSpec {
	m := make(map[string]*toolSpec, len(tools))
	for i := range tools {
		m[tools[i].name] = &tools[i]
	}
	return m
}()

// toolNames lists the tools for messages: "observe, navigate, ..., ask_user or finish".
func toolNames() string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// usage is how the tool's arguments are written: {"id": "agent-2", "text": "..."}, or {} for none.
func (t *toolSpec) usage() string {
	var parts []string
	for _, a := range t.args {
		if !a.hidden {
			parts = append(parts, strconv.Quote(a.name)+": "+a.example)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// toolsPrompt is the tool list of the system prompt.
func toolsPrompt() string {
	var b strings.Builder
	b.WriteString("Tools:\n")
	for _, t := range tools {
		if t.reply != "" {
			fmt.Fprintf(&b, "- %s: %s (reply type %q)\n", t.name, t.description, t.reply)
			continue
		}
		fmt.Fprintf(&b, "- %s: %s. Arguments: %s", t.name, t.description, t.usage())
		var notes []string
		for _, a := range t.args {
			if a.note != "" {
				notes = append(notes, a.note)
			}
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// parseTool reads a tool call strictly: a known tool, its arguments as an object with exactly its
// arguments, each valid, and element ids present on the page. finish and ask_user come back as the
// reply types they stand for.
func parseTool(thought string, w wireTool, page *Snapshot) (Reply, error) {
	spec, ok := toolByName[w.Name]
	if !ok {
		return Reply{}, fmt.Errorf("unknown tool %q: use %s", shorten(w.Name, 50), toolNames())
	}
	args, err := spec.argsObject(w.Arguments)
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Type: ReplyToolCall, Thought: thought, Tool: Tool{Name: spec.name}}
	if spec.reply != "" {
		r = Reply{Type: spec.reply, Thought: thought}
	}
	_, secret := args["secret"]
	for _, a := range spec.args {
		v, given := args[a.name]
		if given && string(v) == "null" {
			given = false
		}
		if a.kind == argText && secret {
			if given {
				return Reply{}, fmt.Errorf("%s takes either %q or \"secret\", not both", spec.name, a.name)
			}
			continue
		}
		if err := a.read(spec.name, v, given, &r, page); err != nil {
			return Reply{}, err
		}
	}
	return r, nil
}

// argsObject reads a call's arguments: an object (absent means {}) with only the tool's fields.
func (t *toolSpec) argsObject(arguments json.RawMessage) (map[string]json.RawMessage, error) {
	raw := []byte(strings.TrimSpace(string(arguments)))
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var args map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &args) != nil {
		return nil, fmt.Errorf("the arguments of %s must be an object", t.name)
	}
	for name := range args {
		if t.arg(name) == nil {
			if len(t.args) == 0 {
				return nil, fmt.Errorf("%s takes no arguments: unknown field %q", t.name, shorten(name, 50))
			}
			return nil, fmt.Errorf("%s takes %s: unknown field %q", t.name, t.usage(), shorten(name, 50))
		}
	}
	return args, nil
}

func (t *toolSpec) arg(name string) *argSpec {
	for i := range t.args {
		if t.args[i].name == name {
			return &t.args[i]
		}
	}
	return nil
}

// read checks one argument and stores it in the reply.
func (a argSpec) read(tool string, raw json.RawMessage, given bool, r *Reply, page *Snapshot) error {
	switch a.kind {
	case argSubmit:
		if given && json.Unmarshal(raw, &r.Tool.Submit) != nil {
			return fmt.Errorf("%s: %q must be true or false", tool, a.name)
		}
		return nil
	case argPixels:
		var d float64
		if given && json.Unmarshal(raw, &d) != nil || d == 0 || math.Abs(d) > maxScroll {
			return fmt.Errorf("%s needs a non-zero %s of at most %d pixels either way", tool, a.name, maxScroll)
		}
		r.Tool.DeltaY = d
		return nil
	case argSecret:
		if given && (json.Unmarshal(raw, &r.Tool.Secret) != nil || r.Tool.Secret == "") {
			return fmt.Errorf("%s: %q must be the name of a secret the browser holds", tool, a.name)
		}
		return nil
	}
	var s string
	if given {
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("%s: %q must be a string: %w", tool, a.name, err)
		}
	}
	return a.readString(tool, s, given, r, page)
}

// readString checks an argument given as a string (s, "" when not given) and stores it.
func (a argSpec) readString(tool, s string, given bool, r *Reply, page *Snapshot) error {
	var err error
	switch a.kind {
	case argElement:
		if err := onPage(s, page); err != nil {
			return err
		}
		r.Tool.ID = s
	case argURL:
		if !webURL(s) || len(s) > MaxURL {
			return fmt.Errorf("%s needs an absolute http(s) URL of at most %d characters, got %q", tool, MaxURL, shorten(s, 100))
		}
		r.Tool.URL = s
	case argText:
		if !given {
			return fmt.Errorf("%s needs %q", tool, a.name)
		}
		if n := utf8.RuneCountInString(s); n > maxTypeText {
			return fmt.Errorf("%s %s must be at most %d characters, got %d", tool, a.name, maxTypeText, n)
		}
		r.Tool.Text = s
	case argKey:
		if strings.TrimSpace(s) == "" || utf8.RuneCountInString(s) > maxKey {
			return fmt.Errorf("%s needs a key name of at most %d characters", tool, maxKey)
		}
		r.Tool.Key = s
	case argQuestion:
		r.Question, err = requiredText(a.name, given, s, maxQuestion)
	case argAnswer:
		r.Answer, err = requiredText(a.name, given, s, maxAnswer)
	}
	return err
}

// value is the argument's value on t as the client receives it, and whether it is set (an unset
// optional argument is left out).
func (a argSpec) value(t Tool) (any, bool) {
	switch a.kind {
	case argElement:
		return t.ID, true
	case argURL:
		return t.URL, true
	case argText:
		return t.Text, t.Secret == ""
	case argSecret:
		return t.Secret, t.Secret != ""
	case argSubmit:
		return true, t.Submit
	case argPixels:
		return t.DeltaY, true
	case argKey:
		return t.Key, true
	}
	return nil, false
}

// Parameters are the tool's arguments as the client receives them ({} for observe).
func (t Tool) Parameters() map[string]any {
	p := map[string]any{}
	if spec, ok := toolByName[t.Name]; ok {
		for _, a := range spec.args {
			if v, set := a.value(t); set {
				p[a.name] = v
			}
		}
	}
	return p
}

// String renders the call for prompts and messages, e.g. click {"id":"agent-1"}.
func (t Tool) String() string {
	spec, ok := toolByName[t.Name]
	if !ok || len(t.Parameters()) == 0 {
		return t.Name
	}
	var args []string
	for _, a := range spec.args {
		v, set := a.value(t)
		if !set {
			continue
		}
		var s string
		switch v := v.(type) {
		case string:
			s = strconv.Quote(v)
		case float64:
			s = strconv.FormatFloat(v, 'f', -1, 64)
		case bool:
			s = strconv.FormatBool(v)
		}
		args = append(args, strconv.Quote(a.name)+":"+s)
	}
	return t.Name + " {" + strings.Join(args, ",") + "}"
}

// target is what the call acts on (its element, URL or key), for loop detection: typing different
// texts into one field is still the same action.
func (t Tool) target() string {
	if spec, ok := toolByName[t.Name]; ok {
		for _, a := range spec.args {
			switch a.kind {
			case argElement, argURL, argKey:
				v, _ := a.value(t)
				return v.(string)
			}
		}
	}
	return ""
}
