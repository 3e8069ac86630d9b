package actions

import (
	"slices"
	"strings"
	"testing"
)

func TestParseReplyBatch(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  []string
	}{
		{"one per line", "<Thought>t</Thought><Actions>\nsetValue(2, \"Ada\")\nsetValue(3, \"x\")\nclick(5)\n</Actions>",
			[]string{`setValue(2, "Ada")`, `setValue(3, "x")`, "click(5)"}},
		{"list markers and blank lines", "<Actions>\n- setValue(2, \"a\")\n\n2. click(4)\n3) pressKey(\"Enter\")\n* `click(7)`\n</Actions>",
			[]string{`setValue(2, "a")`, "click(4)", `pressKey("Enter")`, "click(7)"}},
		{"fenced block", "<actions>```\nsetValue(1, \"- not a marker\")\nclick(2)\n```</actions>",
			[]string{`setValue(1, "- not a marker")`, "click(2)"}},
		{"a single action", "<Actions>finish()</Actions>", []string{"finish()"}},
		{"an escaped newline stays in its string", "<Actions>setValue(1, \"a\\nb\")\nclick(2)</Actions>", []string{`setValue(1, "a\nb")`, "click(2)"}},
		{"plain action gives a batch of one", "<Action>click(3)</Action>", []string{"click(3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseReplySections(tt.reply)
			if err != nil {
				t.Fatalf("ParseReplySections(%q): %v", tt.reply, err)
			}
			if !slices.Equal(r.Actions, tt.want) {
				t.Errorf("Actions = %q, want %q", r.Actions, tt.want)
			}
			if r.Action != tt.want[0] {
				t.Errorf("Action = %q, want the first of the batch %q", r.Action, tt.want[0])
			}
		})
	}
}

func TestParseReplyBatchRefused(t *testing.T) {
	tests := []struct {
		name, reply, wantErr string
	}{
		{"both blocks", "<Action>click(1)</Action><Actions>click(2)</Actions>", "both <Action> and <Actions>"},
		{"two batches", "<Actions>click(1)</Actions><Actions>click(2)</Actions>", "2 <Actions> blocks"},
		{"empty batch", "<Actions>\n - \n\n</Actions>", "<Actions> block is empty"},
		{"unclosed", "<Actions>click(1)", "<Actions> is not closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseReplySections(tt.reply)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseReplySections(%q) error = %v, want one containing %q", tt.reply, err, tt.wantErr)
			}
		})
	}
}

func TestCheckBatch(t *testing.T) {
	toggles := func(id int) bool { return id >= 100 } // ids from 100 are checkboxes on this page
	tests := []struct {
		name    string
		batch   []string
		wantErr string // "" for a valid batch
	}{
		{"fields then a submit click", []string{`setValue(1, "a")`, `setValue(2, "b")`, "click(9)"}, ""},
		{"fields then Enter", []string{`setValue(1, "a")`, `pressKey("Enter")`}, ""},
		{"checkbox clicks anywhere", []string{"click(100)", `setValue(1, "a")`, "click(101)", "click(9)"}, ""},
		{"any single action", []string{"scroll(\"down\")"}, ""},
		{"ten fields", []string{`setValue(1, "a")`, `setValue(2, "a")`, `setValue(3, "a")`, `setValue(4, "a")`, `setValue(5, "a")`,
			`setValue(6, "a")`, `setValue(7, "a")`, `setValue(8, "a")`, `setValue(10, "a")`, "click(11)"}, ""},
		{"eleven actions", []string{`setValue(1, "a")`, `setValue(2, "a")`, `setValue(3, "a")`, `setValue(4, "a")`, `setValue(5, "a")`,
			`setValue(6, "a")`, `setValue(7, "a")`, `setValue(8, "a")`, `setValue(10, "a")`, `setValue(11, "a")`, "click(12)"}, "at most 10"},
		{"a leaving click before a field", []string{"click(9)", `setValue(1, "a")`}, "click(9) may leave or change the page"},
		{"Enter in the middle", []string{`setValue(1, "a")`, `pressKey("Enter")`, `setValue(2, "b")`}, "only be the last"},
		{"scrolling in a batch", []string{`setValue(1, "a")`, `scroll("down")`}, "cannot be part of a batch"},
		{"finishing in a batch", []string{`setValue(1, "a")`, "finish()"}, "cannot be part of a batch"},
		{"two actions on one element", []string{`setValue(1, "a")`, `setValue(1, "b")`}, "the same element"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var batch []Action
			for _, s := range tt.batch {
				a, err := Parse(s)
				if err != nil {
					t.Fatalf("Parse(%q): %v", s, err)
				}
				batch = append(batch, a)
			}
			err := CheckBatch(batch, toggles)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("CheckBatch(%q) = %v, want nil", tt.batch, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("CheckBatch(%q) = %v, want an error containing %q", tt.batch, err, tt.wantErr)
			}
		})
	}
}

func TestBatchPromptTextFollowsTheTable(t *testing.T) {
	text := BatchPromptText()
	for _, want := range []string{"<Actions>", "Anywhere in a batch: setValue", "click on a checkbox", "Only as the last action: click on any other element, pressKey", "At most 10"} {
		if !strings.Contains(text, want) {
			t.Errorf("BatchPromptText() lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "scroll") && strings.Contains(text, "- Anywhere in a batch: scroll") {
		t.Errorf("BatchPromptText() offers scroll in a batch:\n%s", text)
	}
}
