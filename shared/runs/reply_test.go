package runs

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/actionbatch"
	"github.com/screenagent/backend/shared/trust"
)

var testPage = &Snapshot{URL: "https://shop.example/", Elements: []Element{
	{ID: "agent-1", Tag: "input", Placeholder: "Search"},
	{ID: "agent-2", Tag: "button", Text: "Search"},
}}

func TestParseReply(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		reply string
		page  *Snapshot
		want  Reply
	}{
		{"click", `{"type":"tool_call","tool":{"name":"click","arguments":{"id":"agent-2"}}}`, testPage,
			Reply{Type: ReplyToolCall, Tool: Tool{Name: ToolClick, ID: "agent-2"}}},
		{"observe without arguments", `{"type":"tool_call","tool":{"name":"observe"}}`, nil,
			Reply{Type: ReplyToolCall, Tool: Tool{Name: ToolObserve}}},
		{"observe with empty arguments and a thought", `{"type":"tool_call","thought":"Look first.","tool":{"name":"observe","arguments":{}}}`, nil,
			Reply{Type: ReplyToolCall, Tool: Tool{Name: ToolObserve}, Thought: "Look first."}},
		{"type with submit", `{"type":"tool_call","tool":{"name":"type","arguments":{"id":"agent-1","text":"wool socks","submit":true}}}`, testPage,
			Reply{Type: ReplyToolCall, Tool: Tool{Name: ToolType, ID: "agent-1", Text: "wool socks", Submit: true}}},
		{"navigate", `{"type":"tool_call","tool":{"name":"navigate","arguments":{"url":"https://shop.example/pricing"}}}`, nil,
			Reply{Type: ReplyToolCall, Tool: Tool{Name: ToolNavigate, URL: "https://shop.example/pricing"}}},
		{"scroll", `{"type":"tool_call","tool":{"name":"scroll","arguments":{"deltaY":-600}}}`, nil,
			Reply{Type: ReplyToolCall, Tool: Tool{Name: ToolScroll, DeltaY: -600}}},
		{"press", `{"type":"tool_call","tool":{"name":"press","arguments":{"key":"Enter"}}}`, nil,
			Reply{Type: ReplyToolCall, Tool: Tool{Name: ToolPress, Key: "Enter"}}},
		{"final", `{"type":"final","answer":"Task completed. Found 3 items."}`, nil,
			Reply{Type: ReplyFinal, Answer: "Task completed. Found 3 items."}},
		{"ask_user", `{"type":"ask_user","question":"Which option should I choose?"}`, nil,
			Reply{Type: ReplyAskUser, Question: "Which option should I choose?"}},
		{"finish as a tool", `{"type":"tool_call","tool":{"name":"finish","arguments":{"answer":"Done."}}}`, nil,
			Reply{Type: ReplyFinal, Answer: "Done."}},
		{"ask_user as a tool", `{"type":"tool_call","tool":{"name":"ask_user","arguments":{"question":"Size?"}}}`, nil,
			Reply{Type: ReplyAskUser, Question: "Size?"}},
		{"in a code fence", "```json\n{\"type\":\"final\",\"answer\":\"Done.\"}\n```", nil,
			Reply{Type: ReplyFinal, Answer: "Done."}},
		{"surrounding whitespace", "\n  {\"type\":\"final\",\"answer\":\"Done.\"}  \n", nil,
			Reply{Type: ReplyFinal, Answer: "Done."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseReply(tc.reply, tc.page)
			if err != nil {
				t.Fatalf("ParseReply() error = %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseReply() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseReplyRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, reply string
		page        *Snapshot
		wantInErr   string
	}{
		{"prose", `I will click the button.`, testPage, "not a JSON object"},
		{"prose after JSON", `{"type":"final","answer":"x"} Hope that helps!`, nil, "text follows"},
		{"two objects", `{"type":"final","answer":"x"}{"type":"final","answer":"y"}`, nil, "text follows"},
		{"unknown type", `{"type":"action","tool":{"name":"click"}}`, testPage, `"type" must be`},
		{"missing type", `{"answer":"x"}`, nil, `"type" must be`},
		{"unknown field", `{"type":"final","answer":"x","confidence":0.9}`, nil, "unknown field"},
		{"tool_call without tool", `{"type":"tool_call"}`, nil, `needs "tool"`},
		{"tool_call with an answer", `{"type":"tool_call","answer":"x","tool":{"name":"observe"}}`, nil, "only"},
		{"unknown tool", `{"type":"tool_call","tool":{"name":"hover","arguments":{"id":"agent-1"}}}`, testPage, "unknown tool"},
		{"parameters instead of arguments", `{"type":"tool_call","tool":{"name":"click","parameters":{"id":"agent-1"}}}`, testPage, "unknown field"},
		{"unknown argument", `{"type":"tool_call","tool":{"name":"click","arguments":{"id":"agent-1","force":true}}}`, testPage, "unknown field"},
		{"arguments not an object", `{"type":"tool_call","tool":{"name":"click","arguments":"agent-1"}}`, testPage, "must be an object"},
		{"click on a missing element", `{"type":"tool_call","tool":{"name":"click","arguments":{"id":"agent-9"}}}`, testPage, "not on the current page"},
		{"click before any page", `{"type":"tool_call","tool":{"name":"click","arguments":{"id":"agent-1"}}}`, nil, "use observe first"},
		{"click without id", `{"type":"tool_call","tool":{"name":"click","arguments":{}}}`, testPage, `"id" is required`},
		{"type without text", `{"type":"tool_call","tool":{"name":"type","arguments":{"id":"agent-1"}}}`, testPage, `needs "text"`},
		{"type with a number", `{"type":"tool_call","tool":{"name":"type","arguments":{"id":"agent-1","text":5}}}`, testPage, "cannot unmarshal"},
		{"relative navigate", `{"type":"tool_call","tool":{"name":"navigate","arguments":{"url":"/pricing"}}}`, nil, "absolute http(s) URL"},
		{"javascript navigate", `{"type":"tool_call","tool":{"name":"navigate","arguments":{"url":"javascript:alert(1)"}}}`, nil, "absolute http(s) URL"},
		{"scroll without delta", `{"type":"tool_call","tool":{"name":"scroll","arguments":{}}}`, nil, "non-zero deltaY"},
		{"press without key", `{"type":"tool_call","tool":{"name":"press","arguments":{"key":" "}}}`, nil, "key name"},
		{"observe with arguments", `{"type":"tool_call","tool":{"name":"observe","arguments":{"full":true}}}`, nil, "no arguments"},
		{"empty answer", `{"type":"final","answer":"  "}`, nil, "non-empty"},
		{"missing question", `{"type":"ask_user"}`, nil, "non-empty"},
		{"question too long", `{"type":"ask_user","question":"` + strings.Repeat("q", maxQuestion+1) + `"}`, nil, "at most"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseReply(tc.reply, tc.page)
			if err == nil {
				t.Fatalf("ParseReply() = %+v, want an error containing %q", got, tc.wantInErr)
			}
			if !strings.Contains(err.Error(), tc.wantInErr) {
				t.Errorf("ParseReply() error = %q, want it to contain %q", err, tc.wantInErr)
			}
		})
	}
}

// FuzzParseReply: the model's reply is untrusted text; parsing never panics, and an accepted
// reply is complete for its type and acts only on elements of the page.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		`{"type":"tool_call","tool":{"name":"click","arguments":{"id":"agent-2"}}}`,
		`{"type":"tool_call","tool":{"name":"type","arguments":{"id":"agent-1","text":"x","submit":true}}}`,
		`{"type":"final","answer":"done"}`,
		`{"type":"ask_user","question":"?"}`,
		"```json\n{\"type\":\"tool_call\",\"tool\":{\"name\":\"scroll\",\"arguments\":{\"deltaY\":1e308}}}\n```",
		"```",
		`{"type":"tool_call","tool":{"name":"navigate","arguments":{"url":"http://[::1]:80/x"}}}`,
		`{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"a"}},{"name":"click","arguments":{"id":"agent-2"}}]}`,
		`{"type":"tool_calls","tools":[{"name":"click","arguments":{"id":"agent-2"}},{"name":"type","arguments":{"id":"agent-1","text":"a"}}]}`,
		`{"type":"tool_calls","tools":[]}`, `{"type":"tool_calls","tools":[{"name":"finish","arguments":{"answer":"x"}}]}`,
		`{"type":"tool_calls","tool":{"name":"observe"},"tools":[{"name":"observe"}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		r, err := ParseReply(reply, testPage)
		if err != nil {
			return
		}
		switch r.Type {
		case ReplyFinal:
			if strings.TrimSpace(r.Answer) == "" {
				t.Fatalf("accepted an empty answer from %q", reply)
			}
		case ReplyAskUser:
			if strings.TrimSpace(r.Question) == "" {
				t.Fatalf("accepted an empty question from %q", reply)
			}
		case ReplyToolCall:
			if len(r.Tools) == 1 || len(r.Tools) > actionbatch.Max || len(r.Tools) > 1 && !reflect.DeepEqual(r.Tools[0], r.Tool) {
				t.Fatalf("accepted a batch of %d calls whose first is not the tool %v, from %q", len(r.Tools), r.Tool, reply)
			}
			for i, c := range r.Tools {
				if i < len(r.Tools)-1 && batchRole(c, testPage) != actionbatch.InPage {
					t.Fatalf("accepted %v before the end of a batch, from %q", c, reply)
				}
			}
			switch r.Tool.Name {
			case ToolClick, ToolType:
				if _, ok := testPage.Element(r.Tool.ID); !ok {
					t.Fatalf("accepted element %q, not on the page, from %q", r.Tool.ID, reply)
				}
			case ToolNavigate:
				if !strings.HasPrefix(r.Tool.URL, "http://") && !strings.HasPrefix(r.Tool.URL, "https://") {
					t.Fatalf("accepted URL %q from %q", r.Tool.URL, reply)
				}
			case ToolScroll:
				if r.Tool.DeltaY == 0 {
					t.Fatalf("accepted a zero scroll from %q", reply)
				}
			case ToolPress:
				if strings.TrimSpace(r.Tool.Key) == "" {
					t.Fatalf("accepted an empty key from %q", reply)
				}
			case ToolObserve:
			default:
				t.Fatalf("accepted tool %q from %q", r.Tool.Name, reply)
			}
		default:
			t.Fatalf("accepted type %q from %q", r.Type, reply)
		}
	})
}

// FuzzRefusedReplyQuotesNoValue: on a page with a password field, wherever a refused reply puts
// a value (a string anywhere, or bare), its parse error redacted of the reply's unparsed values
// does not hold it.
func FuzzRefusedReplyQuotesNoValue(f *testing.F) {
	for _, s := range []string{
		`{"type":"tool_call","tool":{"name":"type","arguments":{"id":"pw","text":"%s"}},"x":1}`,
		`{"type":"tool_call","tool":{"name":"%s","arguments":{"id":"pw"}}}`,
		`{"type":"tool_call","tool":{"name":"navigate","arguments":{"url":"%s"}}}`,
		`{"type":"%s"}`,
		`{"type":"tool_call","tool":{"name":"type","arguments":{"id":"pw","text":%s}}}`,
		`{"type":"tool_call","tool":{"name":"type","arguments":{"id":"%s","text":"x"}}}`,
	} {
		f.Add(s, "Zq-9_pass-WORD")
	}
	page := &Snapshot{URL: "https://crm.example/login", Elements: []Element{
		{ID: "user", Tag: "input", Type: "email"}, {ID: "pw", Tag: "input", Type: "password"},
	}}
	f.Fuzz(func(t *testing.T, form, value string) {
		if utf8.RuneCountInString(value) < trust.MinRedacted || !strings.Contains(form, "%s") || replyWords[value] {
			return
		}
		for _, r := range value {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_@!#$%&*+=.?", r) {
				return
			}
		}
		if _, onPage := page.Element(value); onPage {
			return
		}
		reply := strings.Replace(form, "%s", value, 1)
		_, err := ParseReply(reply, page)
		if err == nil {
			return
		}
		if got := new(trust.Secrets).With(unparsedValues(reply, page)...).Redact(err.Error()); strings.Contains(got, value) {
			t.Errorf("the error of %q, redacted, is %q: holds %q", reply, got, value)
		}
	})
}
