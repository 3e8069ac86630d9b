package oracle

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Kind is what a move does.
type Kind int

const (
	Click Kind = iota + 1
	Fill
	Scroll
	Navigate
	Wait
	Ask
	Finish
	Fail
	// Search asks the server to search the web (interact's googleSearch).
	Search
)

// Move is the oracle's decision, the same for both APIs; Reply writes it in the API's format.
type Move struct {
	Kind    Kind
	Element Element
	Text    string // Fill's text, Navigate's URL, Ask's question, Finish's answer, Fail's reason, Search's query
	// Secret is the name of the secret Fill types instead of Text (one the user's browser holds).
	Secret  string
	Thought string
	// Then are the moves that follow this one in a batch, for a prompt that explains batches.
	Then []Move
}

func click(e Element, thought string) Move { return Move{Kind: Click, Element: e, Thought: thought} }

func fill(e Element, text, thought string) Move {
	return Move{Kind: Fill, Element: e, Text: text, Thought: thought}
}

// fillSecret types the secret the user's browser holds under name.
func fillSecret(e Element, name, thought string) Move {
	return Move{Kind: Fill, Element: e, Secret: name, Thought: thought}
}

func ask(q string) Move { return Move{Kind: Ask, Text: q, Thought: "I need the user's help: " + q} }

func finish(answer, thought string) Move { return Move{Kind: Finish, Text: answer, Thought: thought} }

func fail(format string, args ...any) Move {
	r := fmt.Sprintf(format, args...)
	return Move{Kind: Fail, Text: r, Thought: "I cannot go on: " + r}
}

// scrollScreen is the run API's scroll for one screen, like interact's scroll("down").
const scrollScreen = 680

// Reply writes the move as the API's model reply.
func (m Move) Reply(p *Prompt) string {
	if p.API == Run {
		return m.runReply()
	}
	if len(m.Then) > 0 {
		lines := []string{m.action(p)}
		for _, n := range m.Then {
			lines = append(lines, n.action(p))
		}
		return "<Thought>" + m.Thought + "</Thought>\n<Actions>\n" + strings.Join(lines, "\n") + "\n</Actions>"
	}
	return "<Thought>" + m.finishThought(p) + "</Thought>\n<Action>" + m.action(p) + "</Action>"
}

// finishThought is the thought, with the answer added when finish cannot carry it.
func (m Move) finishThought(p *Prompt) string {
	if m.Kind == Finish && !p.FinishTakesAnswer && m.Text != "" && !strings.Contains(m.Thought, m.Text) {
		return m.Thought + " " + m.Text
	}
	return m.Thought
}

// action is the move in the interact grammar.
func (m Move) action(p *Prompt) string {
	action := ""
	switch m.Kind {
	case Click:
		action = "click(" + m.Element.ID + ")"
	case Fill:
		value := strconv.Quote(m.Text)
		if m.Secret != "" {
			value = "secret(" + strconv.Quote(m.Secret) + ")"
		}
		action = "setValue(" + m.Element.ID + ", " + value + ")"
	case Scroll:
		action = `scroll("down")`
	case Navigate:
		action = "navigate(" + strconv.Quote(m.Text) + ")"
	case Wait:
		action = "wait(2)"
	case Ask:
		action = "askUser(" + strconv.Quote(m.Text) + ")"
	case Finish:
		if p.FinishTakesAnswer && m.Text != "" {
			action = "finish(" + strconv.Quote(m.Text) + ")"
		} else {
			// Without an answer channel the answer can only go in the thought (finishThought).
			action = "finish()"
		}
	case Fail:
		action = "fail(" + strconv.Quote(m.Text) + ")"
	case Search:
		action = "googleSearch(" + strconv.Quote(m.Text) + ")"
	}
	return action
}

func (m Move) runReply() string {
	if len(m.Then) > 0 {
		var calls []any
		for _, n := range append([]Move{m}, m.Then...) {
			n.Then = nil
			var one map[string]any
			_ = json.Unmarshal([]byte(n.runReply()), &one)
			calls = append(calls, one["tool"])
		}
		b, _ := json.Marshal(map[string]any{"type": "tool_calls", "tools": calls, "thought": m.Thought})
		return string(b)
	}
	var v map[string]any
	tool := func(name string, args map[string]any) map[string]any {
		return map[string]any{"type": "tool_call", "tool": map[string]any{"name": name, "arguments": args}, "thought": m.Thought}
	}
	switch m.Kind {
	case Click:
		v = tool("click", map[string]any{"id": m.Element.ID})
	case Fill:
		args := map[string]any{"id": m.Element.ID, "text": m.Text, "submit": false}
		if m.Secret != "" {
			delete(args, "text")
			args["secret"] = m.Secret
		}
		v = tool("type", args)
	case Scroll:
		v = tool("scroll", map[string]any{"deltaY": scrollScreen})
	case Navigate:
		v = tool("navigate", map[string]any{"url": m.Text})
	case Wait:
		// The run API has no wait: a fresh snapshot is the way to see the page change.
		v = tool("observe", map[string]any{})
	case Ask:
		v = map[string]any{"type": "ask_user", "question": m.Text, "thought": m.Thought}
	case Finish:
		v = map[string]any{"type": "final", "answer": m.Text, "thought": m.Thought}
	case Fail:
		// The run API ends only with an answer: the answer says the task could not be done.
		v = map[string]any{"type": "final", "answer": "I could not complete the task: " + m.Text, "thought": m.Thought}
	case Search:
		// The run API's tools have no web search.
		v = map[string]any{"type": "final", "answer": "I could not complete the task: I would need a web search, which this API does not offer", "thought": m.Thought}
	}
	b, _ := json.Marshal(v)
	return string(b)
}
