package actions

import (
	"strings"
	"testing"
)

func TestPromptTextListsEveryAction(t *testing.T) {
	prompt := PromptText()
	for _, s := range Specs() {
		line := "- " + forms(&s) + " — " + s.Description
		if !strings.Contains(prompt, line) {
			t.Errorf("PromptText() lacks %q", line)
		}
	}
	if got, want := strings.Count(prompt, "\n- "), len(Specs())+3; got != want {
		t.Errorf("PromptText() has %d list lines, want %d (one per action and three rules)", got, want)
	}
}

func TestPromptTextLines(t *testing.T) {
	prompt := PromptText()
	for _, want := range []string{
		"- click(id) — ",
		`- setValue(id, "text") — `,
		`- scroll("up"|"down") — `,
		`- pressKey("key") — Press a key on the focused element. (key: one of "Enter", "Tab", "Escape", `,
		`- wait(seconds) — Wait for the page to load or change. (seconds: a number from 0.5 to 30, whole or decimal)`,
		`- navigate("url") — Open the URL in the current tab. (url: an absolute http or https URL)`,
		`- fail("reason") or fail() — `,
		`- finish("result") or finish() — `,
		"- dismissDialog() — ",
		"use only ids the page lists",
		`\" for a quote, \\ for a backslash, \n for a new line`,
		"Names are case-sensitive",
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("PromptText() lacks %q:\n%s", want, prompt)
		}
	}
}

func TestPromptTextRulesFollowTheTable(t *testing.T) {
	g, err := NewGrammar([]Spec{{Name: "finish", Handler: DOM, Effect: Completes, Description: "Done."}})
	if err != nil {
		t.Fatal(err)
	}
	prompt := g.PromptText()
	for _, absent := range []string{"element of the current page", "double quotes"} {
		if strings.Contains(prompt, absent) {
			t.Errorf("a grammar without ids or strings has the rule %q:\n%s", absent, prompt)
		}
	}
}

func TestPromptFormsParse(t *testing.T) {
	// Every form the prompt shows, with its placeholders filled in, is an action Parse accepts.
	for _, s := range Specs() {
		for _, form := range strings.Split(forms(&s), " or ") {
			filled := strings.NewReplacer(
				"(id", "(3", `"text"`, `"x"`, `"query"`, `"x"`, `"url"`, `"https://example.com"`,
				`"key"`, `"Enter"`, `"up"|"down"`, `"up"`, "(seconds)", "(2)",
				`"question"`, `"x"`, `"description"`, `"x"`, `"reason"`, `"x"`,
			).Replace(form)
			if _, err := Parse(filled); err != nil {
				t.Errorf("the prompt's form %s, filled in as %s, does not parse: %v", form, filled, err)
			}
		}
	}
}

func TestReplyFormatParses(t *testing.T) {
	thought, action, err := ParseReply(ReplyFormat)
	if err != nil {
		t.Fatalf("ParseReply(ReplyFormat): %v", err)
	}
	if thought == "" || action != "one action, such as click(12)" {
		t.Errorf("ParseReply(ReplyFormat) = %q, %q", thought, action)
	}
}
