package actionbatch

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	fill := func(target string) Part { return Part{Action: "fill " + target, Role: InPage, Target: target} }
	tests := []struct {
		name    string
		parts   []Part
		wantErr string // "" for a valid batch
	}{
		{"no action", nil, ""},
		{"any single action", []Part{{Action: "scroll", Role: Alone}}, ""},
		{"fields then one that leaves", []Part{fill("1"), fill("2"), {Action: "submit", Role: Leaves, Target: "9"}}, ""},
		{"the limit", []Part{fill("1"), fill("2"), fill("3"), fill("4"), fill("5"), fill("6"), fill("7"), fill("8"), fill("9"), fill("10")}, ""},
		{"over the limit", []Part{fill("1"), fill("2"), fill("3"), fill("4"), fill("5"), fill("6"), fill("7"), fill("8"), fill("9"), fill("10"), fill("11")}, "at most 10"},
		{"one that leaves, then more", []Part{{Action: "submit", Role: Leaves}, fill("1")}, "only be the last"},
		{"one that stays alone", []Part{fill("1"), {Action: "wait", Role: Alone}}, "wait cannot be part of a batch"},
		{"the same element twice", []Part{fill("1"), fill("1")}, "the same element"},
		{"actions without an element", []Part{{Action: "a", Role: InPage}, {Action: "b", Role: InPage}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.parts)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Check() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Check() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestDeclared(t *testing.T) {
	tests := []struct {
		name    string
		caps    []string
		want    bool
		wantErr bool
	}{
		{"none", nil, false, false},
		{"actionBatch", []string{"actionBatch"}, true, false},
		{"with names this server does not know", []string{"streaming", "actionBatch"}, true, false},
		{"only unknown names", []string{"streaming"}, false, false},
		{"names are case-sensitive", []string{"actionbatch"}, false, false},
		{"an empty name", []string{""}, false, true},
		{"a blank name", []string{"  "}, false, true},
		{"a long name", []string{strings.Repeat("a", MaxCapabilityName+1)}, false, true},
		{"too many", make([]string, MaxCapabilities+1), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Declared(tt.caps)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("Declared(%q) = %v, %v; want %v, error %v", tt.caps, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestToggles(t *testing.T) {
	tests := []struct {
		tag, typ, role string
		want           bool
	}{
		{"input", "checkbox", "", true},
		{"INPUT", "Radio", "", true},
		{"input", "text", "", false},
		{"button", "checkbox", "", false},
		{"div", "", "switch", true},
		{"li", "", "option", true},
		{"option", "", "", true},
		{"button", "submit", "", false},
		{"a", "", "link", false},
	}
	for _, tt := range tests {
		if got := Toggles(tt.tag, tt.typ, tt.role); got != tt.want {
			t.Errorf("Toggles(%q, %q, %q) = %v, want %v", tt.tag, tt.typ, tt.role, got, tt.want)
		}
	}
}
