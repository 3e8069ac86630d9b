package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Reply types of the model (PROXY_SERVER_ARCHITECTURE.md §4.3).
const (
	ReplyToolCall = "tool_call"
	// ReplyToolCalls is a batch of tool calls (for a run whose client declared actionBatch).
	ReplyToolCalls = "tool_calls"
	ReplyFinal     = "final"
	ReplyAskUser   = "ask_user"
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
	Type string
	// Tool is the call, or the first of Tools.
	Tool Tool
	// Tools are the calls of a batch, in order; nil for a single call.
	Tools    []Tool
	Answer   string
	Question string
	// Thought is the model's optional short reason.
	Thought string
	// Payment is the model's own judgement, in the same reply, that the tool call pays or commits
	// money: it can make the security gate hold the call, never let it pass.
	Payment bool
}

type wireReply struct {
	Type     string     `json:"type"`
	Tool     *wireTool  `json:"tool"`
	Tools    []wireTool `json:"tools"`
	Answer   *string    `json:"answer"`
	Question *string    `json:"question"`
	Thought  string     `json:"thought"`
	Payment  bool       `json:"payment"`
}

type wireTool struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ParseReply reads the model's reply strictly: exactly one JSON object of a documented type
// (optionally inside one Markdown code fence, which models add even when told not to), no
// unknown fields, a known tool with exactly its arguments, and element ids present on the page.
// The error says what is wrong, for the corrective retry.
func ParseReply(reply string, page *Snapshot) (Reply, error) { return parseReply(reply, page, true) }

// parseReply reads a reply; batch says whether a tool_calls batch is kept whole (the client
// declared actionBatch) or cut to its first call.
func parseReply(reply string, page *Snapshot, batch bool) (Reply, error) {
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
	case ReplyToolCalls, ReplyToolCall:
		return readCalls(w, r.Thought, page, batch)
	case ReplyFinal:
		if w.Tool != nil || w.Tools != nil || w.Question != nil {
			return Reply{}, errors.New(`a final reply has only "answer" (and optionally "thought")`)
		}
		answer, err := requiredText("answer", w.Answer != nil, deref(w.Answer), maxAnswer)
		r.Answer = answer
		return r, err
	case ReplyAskUser:
		if w.Tool != nil || w.Tools != nil || w.Answer != nil {
			return Reply{}, errors.New(`an ask_user reply has only "question" (and optionally "thought")`)
		}
		q, err := requiredText("question", w.Question != nil, deref(w.Question), maxQuestion)
		r.Question = q
		return r, err
	}
	return Reply{}, fmt.Errorf(`"type" must be "tool_call", "tool_calls", "final" or "ask_user", got %q`, w.Type)
}

// readCalls reads a tool_call reply's one call or a tool_calls reply's batch.
func readCalls(w wireReply, thought string, page *Snapshot, batch bool) (Reply, error) {
	if w.Type == ReplyToolCalls {
		if w.Answer != nil || w.Question != nil || w.Tool != nil {
			return Reply{}, errors.New(`a tool_calls reply has only "tools" (and optionally "thought")`)
		}
		calls, err := parseToolCalls(thought, w.Tools, page, batch)
		if err != nil {
			return Reply{}, err
		}
		calls.Payment = w.Payment
		return calls, nil
	}
	if w.Tools != nil {
		return Reply{}, errors.New(`a tool_call has one "tool"; several go in {"type": "tool_calls", "tools": [...]}`)
	}
	if w.Answer != nil || w.Question != nil {
		return Reply{}, errors.New(`a tool_call has only "tool" (and optionally "thought")`)
	}
	if w.Tool == nil {
		return Reply{}, errors.New(`a tool_call needs "tool": {"name": ..., "arguments": {...}}`)
	}
	r, err := parseTool(thought, *w.Tool, page)
	r.Payment = w.Payment
	return r, err
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

// requiredText checks a non-empty text argument and returns it trimmed.
func requiredText(field string, given bool, v string, limit int) (string, error) {
	s := strings.TrimSpace(v)
	if !given || s == "" {
		return "", fmt.Errorf("%q must be a non-empty string", field)
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return "", fmt.Errorf("%q must be at most %d characters, got %d", field, limit, n)
	}
	return s, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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
