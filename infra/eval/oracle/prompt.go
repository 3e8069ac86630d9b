// Package oracle is a scripted OpenAI-compatible model that plays a competent model honestly:
// it decides only from the prompt it receives. Per task it follows an intent (fill the field
// labelled Email, open the result named Dune, ...), and everything it acts on comes from the
// prompt: element ids by their labels, facts by proximity (a price belongs to a product only on
// the same line, or the same indented block, as the product's name), its progress from the page
// and the history of steps. When the prompt lacks what a model would need, it fails the task
// saying what was missing. It never sees the sites' state or fixtures: the package imports
// neither, and the intents are keyed on the task's text alone.
package oracle

import (
	"encoding/json"
	"regexp"
	"strings"
)

// API says which of the backend's prompts a request carries.
type API string

const (
	Interact API = "interact" // <Thought>…</Thought><Action>…</Action> replies
	Run      API = "run"      // one JSON object replies
)

// Prompt is what the oracle reads from one chat request.
type Prompt struct {
	API    API
	System string
	Task   string
	URL    string
	// Title is the page's title, where the prompt shows one.
	Title   string
	History []Past
	// Answers are the user's replies to the agent's questions, and messages they sent, oldest first.
	Answers []string
	Page    Page
	// FinishTakesAnswer says the action grammar lets finish carry the task's answer.
	FinishTakesAnswer bool
	// Batches says the system prompt explains how to answer with several actions at once.
	Batches bool
	// Outside is the user message with the page part cut out: what the prompt presents as the
	// server's own words.
	Outside string
	// Searches are the web searches the prompt shows, with their results.
	Searches []WebSearch
}

// WebSearch is one web search the prompt shows: the query and the text of its results.
type WebSearch struct {
	Query   string
	Results string
}

// Past is one earlier step of the task as the prompt shows it.
type Past struct {
	Action  string
	Thought string
	Result  string
	Failed  bool
}

var (
	pageBlock = regexp.MustCompile(`(?s)<page_content>\n?(.*?)\n?</page_content>`)
	// interact: "Step 3:\n  Thought: …\n  Action: …\n  Result: …"
	// or, for a batch, "Actions (one batch): setValue(1, "a"); click(2)".
	interactStep = regexp.MustCompile(`(?m)^Step \d+:\n\s+Thought: (.*)\n\s+Actions?(?: \(one batch\))?: (.*)\n(?:\s+Server: .*\n)?\s+Result: (.*)$`)
	// run: "Step 3: click {"id":"agent-3"} → Clicked element agent-3"
	runStep = regexp.MustCompile(`(?m)^Step \d+: (.*?) → (.*)$`)
	// The user's replies: interact's conversation section, the run API's answer line.
	userAnswered = regexp.MustCompile(`(?m)^- You asked: .*? — the user answered: "(.*)"\s*$`)
	userSaid     = regexp.MustCompile(`(?m)^- User: "(.*)"\s*$`)
	// run: "THE USER'S ANSWERS (…):\n- To "question" (step 3): answer", kept for the whole run.
	runAnswer = regexp.MustCompile(`(?m)^- To ".*" \(step \d+\): (.*)$`)
	finishArg = regexp.MustCompile(`(?m)^- finish\("`)
	// interact: the untrusted block of a web search's results, in the prompt or a tool's result.
	webSearch = regexp.MustCompile(`(?s)<search_results>\n? *Web search for (".*?"), .*?\n(.*?)</search_results>`)
)

// Read parses the system and user messages of a request. It never fails: what it cannot find
// is simply absent, and the intents decide what that means.
func Read(system, user string) *Prompt {
	p := &Prompt{System: system, API: Interact}
	if strings.Contains(system, `"type": "tool_call"`) || strings.HasPrefix(user, "TASK:") {
		p.API = Run
	}
	p.FinishTakesAnswer = finishArg.MatchString(system)
	p.Batches = strings.Contains(system, "<Actions>") || strings.Contains(system, `{"type": "tool_calls"`)
	page := ""
	if m := pageBlock.FindStringSubmatchIndex(user); m != nil {
		page = dedent(user[m[2]:m[3]])
		p.Outside = user[:m[0]] + user[m[1]:]
	} else {
		p.Outside = user
	}
	if p.API == Run {
		p.Task = field(p.Outside, "TASK: ")
		for _, m := range runStep.FindAllStringSubmatch(p.Outside, -1) {
			result := jsonText(m[2])
			p.History = append(p.History, Past{Action: m[1], Result: result, Failed: strings.HasPrefix(result, "Failed")})
		}
		for _, m := range runAnswer.FindAllStringSubmatch(p.Outside, -1) {
			p.Answers = append(p.Answers, jsonText(m[1]))
		}
		p.URL = field(page, "URL: ")
		p.Title = field(page, "Title: ")
	} else {
		p.Task = field(p.Outside, "Task: ")
		p.URL = field(p.Outside, "Current URL: ")
		for _, m := range interactStep.FindAllStringSubmatch(p.Outside, -1) {
			p.History = append(p.History, Past{Thought: jsonText(m[1]), Action: m[2], Result: m[3], Failed: strings.HasPrefix(m[3], "FAILED") || strings.Contains(m[3], " FAILED — ")})
		}
		p.readSearches(p.Outside)
		for _, line := range strings.Split(p.Outside, "\n") {
			if m := userAnswered.FindStringSubmatch(line); m != nil {
				p.Answers = append(p.Answers, unquote(m[1]))
			} else if m := userSaid.FindStringSubmatch(line); m != nil {
				p.Answers = append(p.Answers, unquote(m[1]))
			}
		}
	}
	p.Page = readPage(page, p.API)
	return p
}

// ReadLater reads the user messages that follow the step's own within one request: the results
// of the server tools the oracle asked for (a web search's results come back this way first).
func (p *Prompt) ReadLater(messages []string) {
	for _, m := range messages {
		if strings.HasPrefix(m, "SERVER TOOL RESULT:") {
			p.readSearches(m)
		}
	}
}

func (p *Prompt) readSearches(text string) {
	for _, m := range webSearch.FindAllStringSubmatch(text, -1) {
		p.Searches = append(p.Searches, WebSearch{Query: jsonText(m[1]), Results: m[2]})
	}
}

// field is the rest of the first line starting with prefix.
func field(s, prefix string) string {
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			v = strings.TrimSpace(v)
			// The engine quotes values that come from the client as JSON strings.
			var q string
			if strings.HasPrefix(v, `"`) && json.Unmarshal([]byte(v), &q) == nil {
				return q
			}
			return v
		}
	}
	return ""
}

func unquote(s string) string { return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s) }

// LastAnswer is the user's latest reply, or "".
// secretsHeld lists, under the server's "Secrets the user's browser holds" heading, one secret
// per line: "- name" or "- name (only on host)".
var secretsHeld = regexp.MustCompile(`(?m)^Secrets the user's browser holds.*:\n((?:- .*\n?)+)`)

// Holds reports whether the prompt lists a secret of this name among those the user's browser
// holds.
func (p *Prompt) Holds(name string) bool {
	for _, text := range []string{p.System, p.Outside} {
		for _, m := range secretsHeld.FindAllStringSubmatch(text, -1) {
			for _, line := range strings.Split(m[1], "\n") {
				if held, _, _ := strings.Cut(strings.TrimPrefix(line, "- "), " "); held == name {
					return true
				}
			}
		}
	}
	return false
}

func (p *Prompt) LastAnswer() string {
	if len(p.Answers) == 0 {
		return ""
	}
	return p.Answers[len(p.Answers)-1]
}

// Count is how many earlier steps' actions start with one of the prefixes (e.g. `scroll`).
func (p *Prompt) Count(prefixes ...string) int {
	n := 0
	for _, h := range p.History {
		for _, pre := range prefixes {
			if strings.HasPrefix(h.Action, pre) {
				n++
				break
			}
		}
	}
	return n
}

// Since is the steps after the last one whose action starts with prefix (all of them when none does).
func (p *Prompt) Since(prefix string) []Past {
	for i := len(p.History) - 1; i >= 0; i-- {
		if strings.HasPrefix(p.History[i].Action, prefix) {
			return p.History[i+1:]
		}
	}
	return p.History
}

// LastFailed is the last step's result when it failed.
func (p *Prompt) LastFailed() (string, bool) {
	if n := len(p.History); n > 0 && p.History[n-1].Failed {
		return p.History[n-1].Result, true
	}
	return "", false
}

// Recall finds a fact the oracle noted in one of its own earlier thoughts (interact shows them).
func (p *Prompt) Recall(re *regexp.Regexp) (string, bool) {
	for i := len(p.History) - 1; i >= 0; i-- {
		if m := re.FindStringSubmatch(p.History[i].Thought); m != nil {
			return m[1], true
		}
	}
	return "", false
}

// dedent takes off the two spaces every line of a prompt block is indented by (trust.Block).
func dedent(block string) string {
	lines := strings.Split(block, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}

// jsonText is s unquoted when the engine wrote it as a JSON string, else s.
func jsonText(s string) string {
	var q string
	if strings.HasPrefix(s, `"`) && json.Unmarshal([]byte(s), &q) == nil {
		return q
	}
	return s
}
