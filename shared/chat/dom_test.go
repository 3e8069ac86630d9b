package chat

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCaptureDOM(t *testing.T) {
	big := "<div id=1>" + strings.Repeat("<a id=2>Checkout</a> ", 100) + "</div>"
	tests := []struct {
		name     string
		dom      string
		max      int
		snapshot bool
		omitted  string
	}{
		{"empty", "", 1000, false, ""},
		{"at the threshold", strings.Repeat("é", SnapshotMinRunes), 1 << 20, false, ""},
		{"one over", strings.Repeat("é", SnapshotMinRunes+1), 1 << 20, true, ""},
		{"large page", big, 1 << 20, true, ""},
		{"too large compressed", randomText(t, 4000), 1000, false, OmittedTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := CaptureDOM(tt.dom, tt.max)
			if err != nil {
				t.Fatalf("CaptureDOM: %v", err)
			}
			if got := c.Snapshot != nil; got != tt.snapshot {
				t.Fatalf("snapshot: got %v, want %v", got, tt.snapshot)
			}
			if c.Omitted != tt.omitted {
				t.Errorf("omitted: got %q, want %q", c.Omitted, tt.omitted)
			}
			if c.Length != utf8.RuneCountInString(tt.dom) {
				t.Errorf("length: got %d, want %d", c.Length, utf8.RuneCountInString(tt.dom))
			}
			if !tt.snapshot {
				if c.SnapshotID != "" {
					t.Errorf("snapshot ID without a snapshot: got %q, want empty", c.SnapshotID)
				}
				return
			}
			sum := sha256.Sum256([]byte(tt.dom))
			if want := hex.EncodeToString(sum[:]); c.SnapshotID != want || c.Snapshot.ID != want {
				t.Errorf("IDs: got %q and %q, want %q", c.SnapshotID, c.Snapshot.ID, want)
			}
			if !bytes.HasPrefix(c.Snapshot.Gzip, []byte{0x1f, 0x8b}) {
				t.Errorf("data does not start with the gzip magic: % x", c.Snapshot.Gzip[:2])
			}
			if bytes.Contains(c.Snapshot.Gzip, []byte("Checkout</a> <a")) {
				t.Error("compressed data holds the page verbatim")
			}
			dom, err := c.Snapshot.DOM()
			if err != nil || dom != tt.dom {
				t.Errorf("DOM(): got (%d chars, %v), want the page back", len(dom), err)
			}
		})
	}
}

func TestSnapshotDOMRejectsTampering(t *testing.T) {
	c, err := CaptureDOM(strings.Repeat("x", 2000), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := CaptureDOM(strings.Repeat("y", 2000), 1<<20)
	bad := Snapshot{ID: c.SnapshotID, Gzip: other.Snapshot.Gzip}
	if _, err := bad.DOM(); err == nil {
		t.Error("DOM() of data not matching its ID: got nil error, want one")
	}
	if _, err := (Snapshot{ID: c.SnapshotID, Gzip: []byte("plain")}).DOM(); err == nil {
		t.Error("DOM() of data that is not gzip: got nil error, want one")
	}
}

func TestSummarizeDOM(t *testing.T) {
	tests := []struct{ dom, want string }{
		{"<html><body><h1>Sign in</h1>\n<input id=4 placeholder=Email></body></html>", "Sign in"},
		{"plain   text\n page", "plain text page"},
		{"<div><span></span></div>", "<div><span></span></div>"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SummarizeDOM(tt.dom); got != tt.want {
			t.Errorf("SummarizeDOM(%q): got %q, want %q", tt.dom, got, tt.want)
		}
	}
	long := SummarizeDOM(strings.Repeat("<p>Lorem ipsum dolor</p>", 50_000))
	if n := utf8.RuneCountInString(long); n != SummaryMaxRunes {
		t.Errorf("summary of a large page: got %d runes, want %d", n, SummaryMaxRunes)
	}
}

func FuzzSummarizeDOM(f *testing.F) {
	for _, s := range []string{"", "<a>b</a>", "<<>>", "x\xff<y", strings.Repeat("<i>", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dom string) {
		s := SummarizeDOM(dom)
		if n := utf8.RuneCountInString(s); n > SummaryMaxRunes {
			t.Fatalf("got %d runes, want at most %d", n, SummaryMaxRunes)
		}
		if !utf8.ValidString(s) {
			t.Fatalf("got invalid UTF-8 %q", s)
		}
		if (Message{Role: RoleAssistant, DOMSummary: s}).Validate() != nil {
			t.Fatalf("summary %q fails message validation", s)
		}
	})
}

// randomText is incompressible printable text.
func randomText(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
