package chat

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)

func TestNewSession(t *testing.T) {
	long := strings.Repeat("word ", 60)
	s, err := NewSession("ten", "usr", "task", "https://Shop.Example.com:8443/cart?x=1", "  Buy\n\tthe  red shoes  ", t0)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	checks := []struct{ name, got, want string }{
		{"domain", s.Domain, "shop.example.com"},
		{"title", s.Title, "Buy the red shoes"},
		{"status", string(s.Status), "active"},
		{"initialQuery", s.Metadata["initialQuery"], "Buy the red shoes"},
		{"url", s.URL, "https://Shop.Example.com:8443/cart?x=1"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
	if len(s.ID) != 36 || !s.CreatedAt.Equal(t0) || !s.UpdatedAt.Equal(t0) || s.MessageCount != 0 {
		t.Errorf("got ID %q, createdAt %v, updatedAt %v, count %d; want a UUID, t0, t0, 0", s.ID, s.CreatedAt, s.UpdatedAt, s.MessageCount)
	}
	s, err = NewSession("ten", "usr", "task", "https://a.example/", long, t0)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	if n := utf8.RuneCountInString(s.Title); n != TitleMaxRunes || !strings.HasSuffix(s.Title, "…") {
		t.Errorf("title of a long query: got %d runes %q, want %d ending in …", n, s.Title, TitleMaxRunes)
	}

	for _, bad := range []struct{ tenant, user, url string }{
		{"", "u", "https://a.example/"}, {"t", "", "https://a.example/"}, {"t", "u", "not a url"}, {"t", "u", "https://"},
	} {
		if _, err := NewSession(bad.tenant, bad.user, "task", bad.url, "q", t0); err == nil {
			t.Errorf("NewSession(%q, %q, url %q): got nil error, want one", bad.tenant, bad.user, bad.url)
		}
	}
}

func TestShorten(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 5, ""},
		{"  a \n b  ", 5, "a b"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"ab  cdefg", 4, "ab…"},
		{"héllo wörld", 7, "héllo…"},
		{"bad\xffbyte", 20, "badbyte"},
		{"x", 0, ""},
	}
	for _, tt := range tests {
		if got := Shorten(tt.in, tt.n); got != tt.want {
			t.Errorf("Shorten(%q, %d): got %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestMessageValidate(t *testing.T) {
	id := strings.Repeat("ab", 32)
	tests := []struct {
		name string
		m    Message
		ok   bool
	}{
		{"user", Message{Role: RoleUser, Content: "q"}, true},
		{"assistant with status and snapshot", Message{Role: RoleAssistant, Status: MessageSuccess, SnapshotID: id}, true},
		{"no role", Message{}, false},
		{"bad role", Message{Role: "bot"}, false},
		{"bad status", Message{Role: RoleSystem, Status: "done"}, false},
		{"long summary", Message{Role: RoleUser, DOMSummary: strings.Repeat("é", SummaryMaxRunes+1)}, false},
		{"summary at the limit", Message{Role: RoleUser, DOMSummary: strings.Repeat("é", SummaryMaxRunes)}, true},
		{"bad snapshot id", Message{Role: RoleUser, SnapshotID: "abc"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.m.Validate(); (err == nil) != tt.ok {
				t.Errorf("Validate: got %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	for _, st := range Statuses {
		if !st.Valid() {
			t.Errorf("%q.Valid(): got false, want true", st)
		}
		if got, want := st.Ended(), st != StatusActive; got != want {
			t.Errorf("%q.Ended(): got %v, want %v", st, got, want)
		}
	}
	for _, st := range []Status{"", "archived", "ACTIVE"} {
		if st.Valid() || st.Ended() {
			t.Errorf("%q: got valid or ended, want neither", st)
		}
	}
}
