package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/validation"
)

// Snapshot is the page as the client sees it (PageSnapshot of PROXY_SERVER_API.md).
type Snapshot struct {
	URL         string    `json:"url"`
	Title       string    `json:"title"`
	VisibleText string    `json:"visibleText"`
	Elements    []Element `json:"elements"`
	// Timestamp is when the client took the snapshot, in epoch milliseconds.
	Timestamp int64 `json:"timestamp"`
}

// Element is an interactive element of the page (ElementInfo); ID is its data-agent-id.
type Element struct {
	ID          string `json:"id"`
	Tag         string `json:"tag"`
	Role        string `json:"role,omitempty"`
	Text        string `json:"text,omitempty"`
	AriaLabel   string `json:"ariaLabel,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`
	Type        string `json:"type,omitempty"`
	Value       string `json:"value,omitempty"`
	Href        string `json:"href,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
	Name        string `json:"name,omitempty"`
	BBox        *BBox  `json:"bbox,omitempty"`
	// What a client may add so the model sees what a user sees (all optional): the text of the
	// element's <label>, its states (nil: not sent), a select's option texts, and the text of the
	// card or row it belongs to (which product an "Add to cart" is for).
	Label    string   `json:"label,omitempty"`
	Checked  *bool    `json:"checked,omitempty"`
	Selected *bool    `json:"selected,omitempty"`
	Pressed  *bool    `json:"pressed,omitempty"`
	Expanded *bool    `json:"expanded,omitempty"`
	Options  []string `json:"options,omitempty"`
	Context  string   `json:"context,omitempty"`
	// What tells a secret field in any language (trust.SecretFields): the field's autocomplete,
	// inputmode and maxlength attributes (MaxLength 0: none), and whether it shows its value
	// masked (it was a password field, or a style masks it).
	Autocomplete string `json:"autocomplete,omitempty"`
	InputMode    string `json:"inputMode,omitempty"`
	MaxLength    int    `json:"maxLength,omitempty"`
	Masked       bool   `json:"masked,omitempty"`
}

// BBox is an element's bounding box in CSS pixels.
type BBox struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Element returns the element with the id.
func (s *Snapshot) Element(id string) (Element, bool) {
	if s == nil {
		return Element{}, false
	}
	for _, e := range s.Elements {
		if e.ID == id {
			return e, true
		}
	}
	return Element{}, false
}

// Limits of a snapshot, in characters (Unicode code points: a client cutting at JavaScript's
// UTF-16 length always fits). The documented ones come from the content script; the others keep
// a snapshot, which the run's header stores, well inside DynamoDB's 400 KB item.
const (
	// MaxVisibleText is the content script's ~6,000 characters, with room for a truncation mark.
	MaxVisibleText = 6_100
	MaxElements    = 100
	MaxElementText = 200
	MaxValue       = 100
	MaxURL         = 2048
	MaxTitle       = 1000
	MaxID          = 100
	MaxTag         = 50
	MaxShortAttr   = 100 // role, type
	MaxLongAttr    = 500 // ariaLabel, placeholder, name, label
	MaxOptions     = 300 // options of one select
	MaxOptionText  = 200
	MaxContext     = 300
	// MaxTypedLength bounds an element's maxLength (browsers allow up to 2^31-1; a field's own
	// limit is never near this).
	MaxTypedLength = 1 << 20
	// MaxSnapshotBytes bounds the whole snapshot as stored (its JSON encoding).
	MaxSnapshotBytes = 200_000
	maxCoordinate    = 1e9
	maxTimestamp     = 1e15
)

// ValidationError is the package's input rejection (validation.Error): it names the field and
// why, and maps to 400 VALIDATION_ERROR at the HTTP edge.
type ValidationError = validation.Error

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// wireSnapshot decodes the top level; elements are decoded one by one so an error names the index.
type wireSnapshot struct {
	URL         *string           `json:"url"`
	Title       string            `json:"title"`
	VisibleText string            `json:"visibleText"`
	Elements    []json.RawMessage `json:"elements"`
	Timestamp   float64           `json:"timestamp"`
}

type wireElement struct {
	ID          *string  `json:"id"`
	Tag         *string  `json:"tag"`
	Role        string   `json:"role"`
	Text        string   `json:"text"`
	AriaLabel   string   `json:"ariaLabel"`
	Placeholder string   `json:"placeholder"`
	Type        string   `json:"type"`
	Value       string   `json:"value"`
	Href        string   `json:"href"`
	Disabled    bool     `json:"disabled"`
	Name        string   `json:"name"`
	BBox        *BBox    `json:"bbox"`
	Label       string   `json:"label"`
	Checked     *bool    `json:"checked"`
	Selected    *bool    `json:"selected"`
	Pressed     *bool    `json:"pressed"`
	Expanded    *bool    `json:"expanded"`
	Options     []string `json:"options"`
	Context     string   `json:"context"`
	// Autocomplete, InputMode, MaxLength and Masked tell a secret field in any language.
	Autocomplete string  `json:"autocomplete"`
	InputMode    string  `json:"inputMode"`
	MaxLength    float64 `json:"maxLength"`
	Masked       bool    `json:"masked"`
}

// DecodeSnapshot reads the snapshot field of a step request: nil for an absent or null snapshot,
// otherwise a snapshot within the limits, or a *ValidationError naming the first problem.
// Unknown fields are ignored (the content script may send more than the server reads).
func DecodeSnapshot(raw json.RawMessage) (*Snapshot, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var w wireSnapshot
	if err := decodeStrict(raw, &w, "snapshot"); err != nil {
		return nil, err
	}
	s, err := decodeHeader(w)
	if err != nil {
		return nil, err
	}
	if s.Elements, err = decodeElements(w.Elements); err != nil {
		return nil, err
	}
	if b, _ := json.Marshal(s); len(b) > MaxSnapshotBytes {
		return nil, invalid("snapshot", "must be at most %d bytes of JSON, got %d", MaxSnapshotBytes, len(b))
	}
	maskSecretValues(s)
	return s, nil
}

// decodeHeader checks the snapshot's page fields and returns the snapshot without its elements.
func decodeHeader(w wireSnapshot) (*Snapshot, error) {
	switch {
	case w.URL == nil || *w.URL == "":
		return nil, invalid("snapshot.url", "is required")
	case w.Timestamp < 0 || w.Timestamp > maxTimestamp:
		return nil, invalid("snapshot.timestamp", "must be epoch milliseconds")
	case len(w.Elements) > MaxElements:
		return nil, invalid("snapshot.elements", "must have at most %d elements, got %d", MaxElements, len(w.Elements))
	}
	s := &Snapshot{URL: *w.URL, Title: w.Title, VisibleText: w.VisibleText, Timestamp: int64(w.Timestamp)}
	err := checkLengths("snapshot", []lengthLimit{
		{"url", s.URL, MaxURL},
		{"title", s.Title, MaxTitle},
		{"visibleText", s.VisibleText, MaxVisibleText},
	})
	if err != nil {
		return nil, err
	}
	if !webURL(s.URL) {
		return nil, invalid("snapshot.url", "must be an absolute http(s) URL")
	}
	return s, nil
}

// decodeElements decodes the elements one by one, so that an error names the index; no two may
// share an id.
func decodeElements(raws []json.RawMessage) ([]Element, error) {
	els := make([]Element, 0, len(raws))
	seen := make(map[string]int, len(raws))
	for i, rawEl := range raws {
		field := fmt.Sprintf("snapshot.elements[%d]", i)
		el, err := decodeElement(rawEl, field)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[el.ID]; dup {
			return nil, invalid(field+".id", "repeats the id of elements[%d]", j)
		}
		seen[el.ID] = i
		els = append(els, el)
	}
	return els, nil
}

func decodeElement(raw json.RawMessage, field string) (Element, error) {
	var w wireElement
	if err := decodeStrict(raw, &w, field); err != nil {
		return Element{}, err
	}
	if w.ID == nil || *w.ID == "" {
		return Element{}, invalid(field+".id", "is required")
	}
	if w.Tag == nil || *w.Tag == "" {
		return Element{}, invalid(field+".tag", "is required")
	}
	el := Element{
		ID: *w.ID, Tag: *w.Tag, Role: w.Role, Text: w.Text, AriaLabel: w.AriaLabel, Placeholder: w.Placeholder,
		Type: w.Type, Value: w.Value, Href: w.Href, Disabled: w.Disabled, Name: w.Name, BBox: w.BBox,
		Label: w.Label, Checked: w.Checked, Selected: w.Selected, Pressed: w.Pressed, Expanded: w.Expanded,
		Options: w.Options, Context: w.Context, Autocomplete: w.Autocomplete, InputMode: w.InputMode, Masked: w.Masked,
	}
	// A browser reports an input without a maxlength as -1: that is none, as 0 is.
	if w.MaxLength != math.Trunc(w.MaxLength) || w.MaxLength > MaxTypedLength {
		return Element{}, invalid(field+".maxLength", "must be a whole number of at most %d", MaxTypedLength)
	}
	el.MaxLength = max(int(w.MaxLength), 0)
	if err := checkElement(el, field); err != nil {
		return Element{}, err
	}
	return el, nil
}

// checkElement checks a decoded element against the limits, and its link's scheme.
func checkElement(el Element, field string) error {
	err := checkLengths(field, []lengthLimit{
		{"id", el.ID, MaxID}, {"tag", el.Tag, MaxTag}, {"role", el.Role, MaxShortAttr},
		{"text", el.Text, MaxElementText}, {"ariaLabel", el.AriaLabel, MaxLongAttr},
		{"placeholder", el.Placeholder, MaxLongAttr}, {"type", el.Type, MaxShortAttr},
		{"value", el.Value, MaxValue}, {"href", el.Href, MaxURL}, {"name", el.Name, MaxLongAttr},
		{"label", el.Label, MaxLongAttr}, {"context", el.Context, MaxContext},
		{"autocomplete", el.Autocomplete, MaxShortAttr}, {"inputMode", el.InputMode, MaxShortAttr},
	})
	if err != nil {
		return err
	}
	if len(el.Options) > MaxOptions {
		return invalid(field+".options", "must have at most %d options, got %d", MaxOptions, len(el.Options))
	}
	for i, o := range el.Options {
		if err := checkLength(fmt.Sprintf("%s.options[%d]", field, i), o, MaxOptionText); err != nil {
			return err
		}
	}
	if forbiddenScheme[scheme(el.Href)] {
		return invalid(field+".href", "must not be a javascript:, vbscript:, data: or file: URL")
	}
	return checkBBox(el.BBox, field)
}

// checkBBox checks that a bounding box, if any, holds coordinates a page can have.
func checkBBox(b *BBox, field string) error {
	if b == nil {
		return nil
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"x", b.X}, {"y", b.Y}, {"width", b.Width}, {"height", b.Height}} {
		if math.Abs(c.v) > maxCoordinate {
			return invalid(field+".bbox."+c.name, "must be a coordinate in pixels")
		}
	}
	return nil
}

// forbiddenScheme are the link schemes a snapshot may not carry: they run script or read local
// files, so a model told to follow one would act outside the web page.
var forbiddenScheme = map[string]bool{"javascript": true, "vbscript": true, "data": true, "file": true}

// scheme is the lower-case scheme of raw as a browser reads it (WHATWG URL: leading and trailing
// C0 controls and spaces are ignored and tabs and newlines removed anywhere, so
// " java\tscript:" is javascript), "" for a relative reference.
func scheme(raw string) string {
	raw = strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	raw = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, raw)
	i := strings.IndexByte(raw, ':')
	if i < 1 {
		return ""
	}
	for j, c := range raw[:i] {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "" // not a scheme: a relative path with a colon later on
		}
	}
	return strings.ToLower(raw[:i])
}

// webURL reports whether raw is an absolute http or https URL with a host.
func webURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// lengthLimit is a field of an object, its value and the most characters it may have.
type lengthLimit struct {
	name, value string
	limit       int
}

// checkLengths checks the fields of the object named prefix, in order.
func checkLengths(prefix string, fields []lengthLimit) error {
	for _, f := range fields {
		if err := checkLength(prefix+"."+f.name, f.value, f.limit); err != nil {
			return err
		}
	}
	return nil
}

func checkLength(field, value string, limit int) error {
	if n := utf8.RuneCountInString(value); n > limit {
		return invalid(field, "must be at most %d characters, got %d", limit, n)
	}
	return nil
}

// decodeStrict decodes one JSON object into dst; a wrong type names the field under prefix.
func decodeStrict(raw []byte, dst any, prefix string) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return invalid(prefix, "must be an object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return invalid(prefix+"."+typeErr.Field, "must be %s", jsonType(typeErr.Type.Kind().String()))
		}
		return invalid(prefix, "is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid(prefix, "is not valid JSON")
	}
	return nil
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "struct", "map", "ptr":
		return "an object"
	case "slice", "array":
		return "an array"
	case "float64", "float32", "int", "int64":
		return "a number"
	}
	return "of another type"
}
