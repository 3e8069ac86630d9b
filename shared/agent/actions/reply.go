package actions

import (
	"errors"
	"fmt"
	"strings"
)

// ReplyFormat is the reply-format section of the system prompt, the format ParseReply reads.
const ReplyFormat = `Reply in exactly this format:
<Thought>What you see on the page and why you take the next action, in plain words for the user.</Thought>
<Action>one action, such as click(12)</Action>`

// Reply is a model reply: the thought, the action string (still to be parsed with Parse) and
// the optional sections of the richer reply format (Sections keys are the canonical names of
// OptionalTags), each trimmed.
type Reply struct {
	Thought string
	// Action is the reply's action, or the first of its batch.
	Action string
	// Actions are the action strings of an <Actions> block, one per line, in order; for a reply
	// with <Action> it is that one action.
	Actions  []string
	Sections map[string]string
}

// OptionalTags are the blocks a reply may add to <Thought> and <Action>: the evaluation of the
// previous action, the plan, the plan step being worked on, a branch decision, the expected
// outcome, extracted values, with askUser what only the user can supply, and the model's own
// judgement that the action pays (which may make the payment gate hold it). A reply without them
// is complete.
var OptionalTags = []string{"Evaluation", "Plan", "Step", "Branch", "Expect", "Extract", "Missing", "Payment"}

// ParseReply takes the thought and the action string out of a model reply of the form
// <Thought>…</Thought><Action>…</Action>.
func ParseReply(text string) (thought, action string, err error) {
	r, err := ParseReplySections(text)
	return r.Thought, r.Action, err
}

// ParseReplySections reads a reply: <Thought>…</Thought><Action>…</Action> and any of the
// OptionalTags blocks. In place of <Action>, an <Actions> block holds a batch: one action per
// line (blank lines and list markers such as "- " or "2." are ignored).
//
// Tolerated: tag names in any letter case; whitespace and newlines anywhere; text outside the
// blocks (code fences around the whole reply, a preamble); the blocks in any order; a missing
// or empty Thought (its text is then ""); backticks or a code fence around the action inside its
// block. Refused: no Action block, or more than one; more than one block of another tag; a block
// that is not closed, or a closing tag without its opening; a tag inside a block; an empty action.
func ParseReplySections(text string) (Reply, error) {
	blocks, err := readBlocks(text)
	if err != nil {
		return Reply{}, err
	}
	acts, batch := blocks["Action"], blocks["Actions"]
	switch {
	case len(acts) > 0 && len(batch) > 0:
		return Reply{}, errors.New("the reply has both <Action> and <Actions>; write one of them")
	case len(batch) > 1:
		return Reply{}, fmt.Errorf("the reply has %d <Actions> blocks; write one, with one action per line", len(batch))
	case len(acts) == 0 && len(batch) == 0:
		return Reply{}, fmt.Errorf("the reply has no <Action>…</Action> block; %s", formatHint)
	case len(acts) > 1:
		return Reply{}, fmt.Errorf("the reply has %d <Action> blocks; write exactly one action", len(acts))
	}
	var r Reply
	for tag, bs := range blocks {
		if len(bs) > 1 && tag != "Action" {
			return Reply{}, fmt.Errorf("the reply has %d <%s> blocks; write one", len(bs), tag)
		}
		switch tag {
		case "Action", "Actions":
		case "Thought":
			r.Thought = strings.TrimSpace(bs[0])
		default:
			if r.Sections == nil {
				r.Sections = map[string]string{}
			}
			r.Sections[tag] = strings.TrimSpace(bs[0])
		}
	}
	return withActions(r, acts, batch)
}

// readBlocks reads the reply's blocks by tag, each tag's in order; text outside them is skipped.
func readBlocks(text string) (map[string][]string, error) {
	blocks := map[string][]string{}
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return blocks, nil
		}
		j += i
		tag, closing, n := tagAt(text, j)
		if tag == "" {
			i = j + 1
			continue
		}
		if closing {
			return nil, fmt.Errorf("the reply has </%s> without an opening <%s>; write <Thought>…</Thought><Action>…</Action>", tag, tag)
		}
		body := j + n
		end := closeTag(text, body, tag)
		if end < 0 {
			return nil, fmt.Errorf("<%s> is not closed; end it with </%s>", tag, tag)
		}
		content := text[body:end]
		if inner := firstTag(content); inner != "" {
			return nil, fmt.Errorf("the <%s> block contains %s; put each block after the other, not inside it", tag, inner)
		}
		blocks[tag] = append(blocks[tag], content)
		i = end + len(tag) + 3
	}
}

// withActions completes r with its action, or the batch of the one <Actions> block.
func withActions(r Reply, acts, batch []string) (Reply, error) {
	if len(batch) > 0 {
		r.Actions = batchLines(batch[0])
		if len(r.Actions) == 0 {
			return Reply{}, errors.New("the <Actions> block is empty; write one action per line")
		}
		r.Action = r.Actions[0]
		return r, nil
	}
	r.Action = unfence(acts[0])
	if r.Action == "" {
		return Reply{}, fmt.Errorf("the <Action> block is empty; %s", formatHint)
	}
	r.Actions = []string{r.Action}
	return r, nil
}

// batchLines are the actions of an <Actions> block: one per line, each without list markers or
// backticks, code fences' own lines left out. A marker can be taken off safely: an action starts with a letter.
func batchLines(block string) []string {
	var out []string
	for _, line := range strings.Split(block, "\n") {
		line = stripMarkers(line)
		if fence, ok := strings.CutPrefix(line, "```"); line == "" || ok && isLanguageTag(fence) {
			continue // a blank line, or a code fence's own
		}
		out = append(out, line)
	}
	return out
}

const formatHint = "reply as <Thought>your reasoning</Thought><Action>one action</Action>"

var replyTags = append([]string{"Thought", "Action", "Actions"}, OptionalTags...)

// stripMarkers takes list markers ("-", "*", "•", "2.", "3)") and backticks off a line of a
// batch, as many as there are.
func stripMarkers(line string) string {
	for {
		prev := line
		line = strings.TrimLeft(strings.TrimSpace(line), "-*•")
		if digits := len(line) - len(strings.TrimLeft(line, "0123456789")); digits > 0 && digits < len(line) && (line[digits] == '.' || line[digits] == ')') {
			line = line[digits+1:]
		}
		if line = unfence(line); line == prev {
			return line
		}
	}
}

// tagAt recognises <Thought>, </Thought>, <Action> or </Action> at text[j] (a '<'), in any
// ASCII letter case, and returns the tag's canonical name and length; tag is "" for none.
func tagAt(text string, j int) (tag string, closing bool, n int) {
	k := j + 1
	if k < len(text) && text[k] == '/' {
		closing = true
		k++
	}
	for _, t := range replyTags {
		if end := k + len(t); end < len(text) && text[end] == '>' && equalFoldASCII(text[k:end], t) {
			return t, closing, end + 1 - j
		}
	}
	return "", false, 0
}

// closeTag is the index of the first </tag> at or after from, or -1.
func closeTag(text string, from int, tag string) int {
	for i := from; ; {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return -1
		}
		j += i
		if t, closing, _ := tagAt(text, j); closing && t == tag {
			return j
		}
		i = j + 1
	}
}

// firstTag is the first reply tag in s as written, or "".
func firstTag(s string) string {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return ""
		}
		j += i
		if t, _, n := tagAt(s, j); t != "" {
			return s[j : j+n]
		}
		i = j + 1
	}
}

// unfence trims the action and takes off backticks that wrap all of it (`click(1)`, or a fenced
// block with an optional language tag), as long as any are left.
func unfence(s string) string {
	s = strings.TrimSpace(s)
	for {
		lead := len(s) - len(strings.TrimLeft(s, "`"))
		trail := len(s) - len(strings.TrimRight(s, "`"))
		k := min(lead, trail)
		if k == 0 || lead == len(s) {
			return s
		}
		s = s[k : len(s)-k]
		if first, rest, ok := strings.Cut(s, "\n"); k >= 3 && ok && isLanguageTag(first) {
			s = rest
		}
		s = strings.TrimSpace(s)
	}
}

// isLanguageTag reports whether s is what follows an opening code fence: "", "text", "js", "c++".
func isLanguageTag(s string) bool {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isIdentByte(c) && c != '+' && c != '-' && c != '#' {
			return false
		}
	}
	return true
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
