package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func elementsJSON(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"id":"agent-%d","tag":"a"}`, i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestDecodeSnapshot(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("é", n) }
	cases := []struct {
		name      string
		raw       string
		wantNil   bool
		wantField string
	}{
		{"absent", ``, true, ""},
		{"null", `null`, true, ""},
		{"documented example", `{"url":"https://example.com","title":"Example Domain","visibleText":"Example Domain This domain is for use in...",
			"elements":[{"id":"agent-1","tag":"a","text":"More information...","href":"https://www.iana.org/domains/example"}],"timestamp":1737292800000}`, false, ""},
		{"every element field", `{"url":"https://a.example","elements":[{"id":"agent-1","tag":"input","role":"textbox","text":"t","ariaLabel":"Search",
			"placeholder":"Search…","type":"text","value":"socks","href":"","disabled":true,"name":"q","bbox":{"x":1,"y":2.5,"width":80,"height":40}}]}`, false, ""},
		{"unknown fields ignored", `{"url":"https://a.example","viewport":{"w":1},"elements":[{"id":"a","tag":"b","dataset":{}}]}`, false, ""},
		{"visible text at the limit", `{"url":"https://u.example/","visibleText":"` + long(MaxVisibleText) + `"}`, false, ""},
		{"relative, mail and anchor links", `{"url":"http://u.example/","elements":[{"id":"a","tag":"a","href":"/pricing"},{"id":"b","tag":"a","href":"mailto:a@u.example"},
			{"id":"c","tag":"a","href":"#top"},{"id":"d","tag":"a","href":"page:2"}]}`, false, ""},
		{"100 elements", `{"url":"https://u.example/","elements":` + elementsJSON(MaxElements) + `}`, false, ""},

		{"not an object", `[1]`, false, "snapshot"},
		{"a string", `"page"`, false, "snapshot"},
		{"bad JSON", `{"url":`, false, "snapshot"},
		{"missing url", `{"title":"x"}`, false, "snapshot.url"},
		{"url of wrong type", `{"url":7}`, false, "snapshot.url"},
		{"url too long", `{"url":"https://a.example/` + strings.Repeat("a", MaxURL) + `"}`, false, "snapshot.url"},
		{"title too long", `{"url":"https://u.example/","title":"` + long(MaxTitle+1) + `"}`, false, "snapshot.title"},
		{"visible text too long", `{"url":"https://u.example/","visibleText":"` + long(MaxVisibleText+1) + `"}`, false, "snapshot.visibleText"},
		{"negative timestamp", `{"url":"https://u.example/","timestamp":-1}`, false, "snapshot.timestamp"},
		{"timestamp of wrong type", `{"url":"https://u.example/","timestamp":"now"}`, false, "snapshot.timestamp"},
		{"elements not an array", `{"url":"https://u.example/","elements":{}}`, false, "snapshot.elements"},
		{"101 elements", `{"url":"https://u.example/","elements":` + elementsJSON(MaxElements+1) + `}`, false, "snapshot.elements"},
		{"element not an object", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b"},5]}`, false, "snapshot.elements[1]"},
		{"element without id", `{"url":"https://u.example/","elements":[{"tag":"b"}]}`, false, "snapshot.elements[0].id"},
		{"element without tag", `{"url":"https://u.example/","elements":[{"id":"a"}]}`, false, "snapshot.elements[0].tag"},
		{"duplicate id", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b"},{"id":"a","tag":"c"}]}`, false, "snapshot.elements[1].id"},
		{"text too long", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b","text":"` + long(MaxElementText+1) + `"}]}`, false, "snapshot.elements[0].text"},
		{"value too long", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b","value":"` + long(MaxValue+1) + `"}]}`, false, "snapshot.elements[0].value"},
		{"aria label too long", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b","ariaLabel":"` + long(MaxLongAttr+1) + `"}]}`, false, "snapshot.elements[0].ariaLabel"},
		{"text of wrong type", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b","text":5}]}`, false, "snapshot.elements[0].text"},
		{"maxLength not whole", `{"url":"https://u.example/","elements":[{"id":"a","tag":"input","maxLength":1.5}]}`, false, "snapshot.elements[0].maxLength"},
		{"maxLength of wrong type", `{"url":"https://u.example/","elements":[{"id":"a","tag":"input","maxLength":"3"}]}`, false, "snapshot.elements[0].maxLength"},
		{"autocomplete too long", `{"url":"https://u.example/","elements":[{"id":"a","tag":"input","autocomplete":"` + long(MaxShortAttr+1) + `"}]}`, false, "snapshot.elements[0].autocomplete"},
		{"disabled of wrong type", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b","disabled":"yes"}]}`, false, "snapshot.elements[0].disabled"},
		{"bbox of wrong type", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b","bbox":{"x":"1"}}]}`, false, "snapshot.elements[0].bbox.x"},
		{"javascript page", `{"url":"javascript:alert(1)"}`, false, "snapshot.url"},
		{"file page", `{"url":"file:///etc/passwd"}`, false, "snapshot.url"},
		{"relative page", `{"url":"/cart"}`, false, "snapshot.url"},
		{"javascript link", `{"url":"https://u.example/","elements":[{"id":"a","tag":"a","href":"javascript:pay()"}]}`, false, "snapshot.elements[0].href"},
		{"disguised javascript link", `{"url":"https://u.example/","elements":[{"id":"a","tag":"a","href":" JaVa\tScRiPt:pay()"}]}`, false, "snapshot.elements[0].href"},
		{"vbscript link", `{"url":"https://u.example/","elements":[{"id":"a","tag":"a","href":"vbscript:x"}]}`, false, "snapshot.elements[0].href"},
		{"data link", `{"url":"https://u.example/","elements":[{"id":"a","tag":"a","href":"data:text/html,<script>x</script>"}]}`, false, "snapshot.elements[0].href"},
		{"file link", `{"url":"https://u.example/","elements":[{"id":"a","tag":"a","href":"FILE:///etc/passwd"}]}`, false, "snapshot.elements[0].href"},
		{"bbox out of range", `{"url":"https://u.example/","elements":[{"id":"a","tag":"b","bbox":{"x":1e300}}]}`, false, "snapshot.elements[0].bbox.x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := DecodeSnapshot(json.RawMessage(tc.raw))
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("DecodeSnapshot() error = %v, want nil", err)
				}
				if (s == nil) != tc.wantNil {
					t.Errorf("DecodeSnapshot() = %v, want nil %v", s, tc.wantNil)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("DecodeSnapshot() error = %v, want a ValidationError on %s", err, tc.wantField)
			}
			if ve.Field != tc.wantField {
				t.Errorf("field = %q (%v), want %q", ve.Field, ve, tc.wantField)
			}
		})
	}
}

func TestDecodeSnapshotWholeSizeLimit(t *testing.T) {
	t.Parallel()
	els := make([]string, MaxElements)
	for i := range els {
		els[i] = fmt.Sprintf(`{"id":"agent-%d","tag":"a","href":"https://a.example/%s","ariaLabel":"%s"}`, i, strings.Repeat("p", 2000), strings.Repeat("é", MaxLongAttr))
	}
	_, err := DecodeSnapshot(json.RawMessage(`{"url":"https://u.example/","elements":[` + strings.Join(els, ",") + `]}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "snapshot" || !strings.Contains(ve.Reason, "bytes") {
		t.Errorf("DecodeSnapshot(huge) error = %v, want a ValidationError on snapshot naming the byte limit", err)
	}
}

func TestDecodeSnapshotKeepsTheFields(t *testing.T) {
	t.Parallel()
	s, err := DecodeSnapshot(json.RawMessage(`{"url":"https://a.example/","title":"T","visibleText":"V","timestamp":1737292800000.7,
		"elements":[{"id":"agent-1","tag":"button","text":"Pay Now","disabled":true,"bbox":{"x":1,"y":2,"width":3,"height":4}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	el, ok := s.Element("agent-1")
	if s.URL != "https://a.example/" || s.Title != "T" || s.VisibleText != "V" || s.Timestamp != 1737292800000 ||
		!ok || el.Text != "Pay Now" || !el.Disabled || el.BBox == nil || el.BBox.Height != 4 {
		t.Errorf("DecodeSnapshot() = %+v, want every field kept", s)
	}
}

// FuzzDecodeSnapshot: whatever the client sends, the decoder never panics, and what it accepts
// is within every limit and survives a round trip through its JSON encoding.
func FuzzDecodeSnapshot(f *testing.F) {
	f.Add(`{"url":"https://example.com","title":"Example","visibleText":"Hello","elements":[{"id":"agent-1","tag":"a","text":"More","href":"https://iana.org"}],"timestamp":1737292800000}`)
	f.Add(`null`)
	f.Add(`{"url":"https://u.example/","elements":[{"id":"a","tag":"b","bbox":{"x":1,"y":2,"width":3,"height":4}},{"id":"a","tag":"c"}]}`)
	f.Add(`{"url":"https://u.example/","elements":[{"id":"a","tag":"b","text":5}]}`)
	f.Add(`{"url":"\u0000","visibleText":"\ud800","elements":[]}`)
	f.Add(`{"url":"https://u.example/"} {"url":"v"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := DecodeSnapshot(json.RawMessage(raw))
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field == "" || ve.Reason == "" {
				t.Fatalf("error %v is not a ValidationError naming a field", err)
			}
			return
		}
		if s == nil {
			return
		}
		if s.URL == "" || utf8.RuneCountInString(s.VisibleText) > MaxVisibleText || len(s.Elements) > MaxElements || s.Timestamp < 0 {
			t.Fatalf("accepted a snapshot outside the limits: %+v", s)
		}
		if !webURL(s.URL) {
			t.Fatalf("accepted page URL %q", s.URL)
		}
		ids := map[string]bool{}
		for _, e := range s.Elements {
			if forbiddenScheme[scheme(e.Href)] {
				t.Fatalf("accepted link %q", e.Href)
			}
			if e.ID == "" || e.Tag == "" || ids[e.ID] || utf8.RuneCountInString(e.Text) > MaxElementText || utf8.RuneCountInString(e.Value) > MaxValue {
				t.Fatalf("accepted an invalid element: %+v", e)
			}
			ids[e.ID] = true
		}
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(enc) > MaxSnapshotBytes {
			t.Fatalf("accepted %d bytes, over %d", len(enc), MaxSnapshotBytes)
		}
		again, err := DecodeSnapshot(enc)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		if enc2, _ := json.Marshal(again); string(enc2) != string(enc) {
			t.Fatalf("round trip changed the snapshot:\n%s\n%s", enc, enc2)
		}
	})
}
