package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// Reply types of the model (PROXY_SERVER_ARCHITECTURE.md §4.3).
const (
	ReplyToolCall = "tool_call"
	ReplyFinal    = "final"
	ReplyAskUser  = "ask_user"
)

// Limits of what the model may put in a reply.
const (
	maxTypeText = 5_000
	maxQuestion = 1_000
	maxAnswer   = 10_000
	maxKey      = 50
	maxThought  = 1_000
	maxScroll   = 100_000
)

// Reply is the model's next move: a tool call, a final answer or a question.
type Reply struct {
	Type     string
	Tool     Tool
	Answer   string
	Question string
	// Thought is the model's optional short reason.
	Thought string
}

type wireReply struct {
	Type     string    `json:"type"`
	Tool     *wireTool `json:"tool"`
	Answer   *string   `json:"answer"`
	Question *string   `json:"question"`
	Thought  string    `json:"thought"`
}

type wireTool struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ParseReply reads the model's reply strictly: exactly one JSON object of a documented type
// (optionally inside one Markdown code fence, which models add even when told not to), no
// unknown fields, a known tool with exactly its arguments, and element ids present on the page.
// The error says what is wrong, for the corrective retry.
func ParseReply(reply string, page *Snapshot) (Reply, error) {
	body := unfence(strings.TrimSpace(reply))
	if !strings.HasPrefix(body, "{") {
		return Reply{}, errors.New("the reply is not a JSON object")
	}
	var w wireReply
	if err := decodeOnly([]byte(body), &w); err != nil {
		return Reply{}, fmt.Errorf("the reply is not valid JSON of the documented form: %w", err)
	}
	r := Reply{Type: w.Type, Thought: shorten(strings.TrimSpace(w.Thought), maxThought)}
	switch w.Type {
	case ReplyToolCall:
		if w.Answer != nil || w.Question != nil {
			return Reply{}, errors.New(`a tool_call has only "tool" (and optionally "thought")`)
		}
		if w.Tool == nil {
			return Reply{}, errors.New(`a tool_call needs "tool": {"name": ..., "arguments": {...}}`)
		}
		return parseTool(r, *w.Tool, page)
	case ReplyFinal:
		if w.Tool != nil || w.Question != nil {
			return Reply{}, errors.New(`a final reply has only "answer" (and optionally "thought")`)
		}
		answer, err := requiredText("answer", w.Answer, maxAnswer)
		r.Answer = answer
		return r, err
	case ReplyAskUser:
		if w.Tool != nil || w.Answer != nil {
			return Reply{}, errors.New(`an ask_user reply has only "question" (and optionally "thought")`)
		}
		q, err := requiredText("question", w.Question, maxQuestion)
		r.Question = q
		return r, err
	}
	return Reply{}, fmt.Errorf(`"type" must be "tool_call", "final" or "ask_user", got %q`, w.Type)
}

func parseTool(r Reply, w wireTool, page *Snapshot) (Reply, error) {
	args := bytes.TrimSpace(w.Arguments)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return Reply{}, fmt.Errorf("the arguments of %s must be an object", w.Name)
	}
	r.Tool = Tool{Name: w.Name}
	switch w.Name {
	case ToolObserve:
		var a struct{}
		if err := decodeOnly(args, &a); err != nil {
			return Reply{}, fmt.Errorf("observe takes no arguments: %w", err)
		}
	case ToolNavigate:
		var a struct {
			URL string `json:"url"`
		}
		if err := decodeOnly(args, &a); err != nil {
			return Reply{}, fmt.Errorf(`navigate takes {"url": "https://..."}: %w`, err)
		}
		if !webURL(a.URL) || len(a.URL) > MaxURL {
			return Reply{}, fmt.Errorf("navigate needs an absolute http(s) URL of at most %d characters, got %q", MaxURL, shorten(a.URL, 100))
		}
		r.Tool.URL = a.URL
	case ToolClick:
		var a struct {
			ID string `json:"id"`
		}
		if err := decodeOnly(args, &a); err != nil {
			return Reply{}, fmt.Errorf(`click takes {"id": "<element id>"}: %w`, err)
		}
		if err := onPage(a.ID, page); err != nil {
			return Reply{}, err
		}
		r.Tool.ID = a.ID
	case ToolType:
		var a struct {
			ID     string  `json:"id"`
			Text   *string `json:"text"`
			Submit bool    `json:"submit"`
		}
		if err := decodeOnly(args, &a); err != nil {
			return Reply{}, fmt.Errorf(`type takes {"id": "<element id>", "text": "...", "submit": false}: %w`, err)
		}
		if a.Text == nil {
			return Reply{}, errors.New(`type needs "text"`)
		}
		if n := utf8.RuneCountInString(*a.Text); n > maxTypeText {
			return Reply{}, fmt.Errorf("type text must be at most %d characters, got %d", maxTypeText, n)
		}
		if err := onPage(a.ID, page); err != nil {
			return Reply{}, err
		}
		r.Tool.ID, r.Tool.Text, r.Tool.Submit = a.ID, *a.Text, a.Submit
	case ToolScroll:
		var a struct {
			DeltaY *float64 `json:"deltaY"`
		}
		if err := decodeOnly(args, &a); err != nil {
			return Reply{}, fmt.Errorf(`scroll takes {"deltaY": <pixels, positive scrolls down>}: %w`, err)
		}
		if a.DeltaY == nil || *a.DeltaY == 0 || math.Abs(*a.DeltaY) > maxScroll {
			return Reply{}, fmt.Errorf("scroll needs a non-zero deltaY of at most %d pixels either way", maxScroll)
		}
		r.Tool.DeltaY = *a.DeltaY
	case ToolPress:
		var a struct {
			Key string `json:"key"`
		}
		if err := decodeOnly(args, &a); err != nil {
			return Reply{}, fmt.Errorf(`press takes {"key": "Enter"}: %w`, err)
		}
		if strings.TrimSpace(a.Key) == "" || utf8.RuneCountInString(a.Key) > maxKey {
			return Reply{}, fmt.Errorf("press needs a key name of at most %d characters", maxKey)
		}
		r.Tool.Key = a.Key
	case ToolFinish:
		var a struct {
			Answer *string `json:"answer"`
		}
		if err := decodeOnly(args, &a); err != nil {
			return Reply{}, fmt.Errorf(`finish takes {"answer": "..."}: %w`, err)
		}
		answer, err := requiredText("answer", a.Answer, maxAnswer)
		return Reply{Type: ReplyFinal, Answer: answer, Thought: r.Thought}, err
	case ToolAskUser:
		var a struct {
			Question *string `json:"question"`
		}
		if err := decodeOnly(args, &a); err != nil {
			return Reply{}, fmt.Errorf(`ask_user takes {"question": "..."}: %w`, err)
		}
		q, err := requiredText("question", a.Question, maxQuestion)
		return Reply{Type: ReplyAskUser, Question: q, Thought: r.Thought}, err
	default:
		return Reply{}, fmt.Errorf("unknown tool %q: use observe, navigate, click, type, scroll, press, ask_user or finish", shorten(w.Name, 50))
	}
	return r, nil
}

func onPage(id string, page *Snapshot) error {
	if id == "" {
		return errors.New(`an element "id" is required`)
	}
	if page == nil {
		return errors.New("no page has been observed yet: use observe first")
	}
	if _, ok := page.Element(id); !ok {
		return fmt.Errorf("element %q is not on the current page: use an id from the Interactive Elements list", shorten(id, 100))
	}
	return nil
}

func requiredText(field string, v *string, limit int) (string, error) {
	if v == nil || strings.TrimSpace(*v) == "" {
		return "", fmt.Errorf("%q must be a non-empty string", field)
	}
	s := strings.TrimSpace(*v)
	if n := utf8.RuneCountInString(s); n > limit {
		return "", fmt.Errorf("%q must be at most %d characters, got %d", field, limit, n)
	}
	return s, nil
}

// decodeOnly decodes exactly one JSON value with no fields beyond dst's.
func decodeOnly(b []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text follows the JSON object")
	}
	return nil
}

// unfence removes one surrounding Markdown code fence (``` or ```json).
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := s[3 : len(s)-3]
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], "{") {
		inner = inner[nl+1:]
	}
	return strings.TrimSpace(inner)
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
