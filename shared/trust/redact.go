package trust

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf8"
)

// Mask stands for a secret's value wherever the value would be shown, stored or logged.
const Mask = "••••••"

// MaskNote is the line a prompt that shows Mask adds, so that a model reading the history does
// not take the mask for what was typed ("" when the prompt shows none).
func MaskNote(prompt string) string {
	if !strings.Contains(prompt, Mask) {
		return ""
	}
	return "\n" + Mask + " in this prompt stands for a secret value (a password, a code) that the server hides from you; an action shown typing it typed the real value.\n"
}

// MinRedacted is the shortest typed secret whose echoes are redacted: shorter values (a
// one-digit answer) would mask ordinary text everywhere. Such a value is still masked in the
// action that types it.
const MinRedacted = 4

// maxRedactedText bounds the text Redact scans, which costs one hash per character and secret
// length; longer texts are cut to it first (what is cut is replaced by a mark).
const maxRedactedText = 64 << 10

// Typed is what a task or run keeps of a value typed into a secret field: a hash keyed with the
// task's own key, and the value's length in characters. It cannot give the value back, but it
// recognises the value when the client or the model repeats it.
type Typed struct {
	Sum string `json:"sum"`
	Len int    `json:"len"`
}

// Secrets are the typed secrets of one task or run, with the key of their hashes.
type Secrets struct {
	Key   []byte  `json:"key,omitempty"`
	Typed []Typed `json:"typed,omitempty"`
}

// NewKey returns a fresh random hash key for a task's or run's secrets.
func NewKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read never fails (Go 1.24+)
	return k
}

func (s *Secrets) sum(value string) string {
	m := hmac.New(sha256.New, s.Key)
	m.Write([]byte(value))
	return base64.RawStdEncoding.EncodeToString(m.Sum(nil)[:16])
}

// Remember records a value typed into a secret field, so that its echoes are redacted; it
// reports whether the value was new. Values shorter than MinRedacted are not kept.
func (s *Secrets) Remember(value string) bool {
	n := utf8.RuneCountInString(value)
	if n < MinRedacted {
		return false
	}
	if len(s.Key) == 0 {
		s.Key = NewKey()
	}
	t := Typed{Sum: s.sum(value), Len: n}
	if slices.Contains(s.Typed, t) {
		return false
	}
	s.Typed = append(s.Typed, t)
	return true
}

// With returns a copy of s that also redacts values (those Remember would keep), leaving s as
// it was: a reply the server refused may have meant a value for a secret field, which must not
// be kept in clear though it was never typed, so the task need not remember it.
func (s *Secrets) With(values ...string) *Secrets {
	out := &Secrets{}
	if s != nil {
		out.Key, out.Typed = s.Key, slices.Clone(s.Typed)
	}
	for _, v := range values {
		out.Remember(v)
	}
	return out
}

// Empty reports whether no secret was typed.
func (s *Secrets) Empty() bool { return s == nil || len(s.Typed) == 0 }

// Redact replaces every occurrence of a remembered secret in text with Mask.
func (s *Secrets) Redact(text string) string {
	if s.Empty() || text == "" {
		return text
	}
	if len(text) > maxRedactedText {
		cut := maxRedactedText
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…[cut]"
	}
	sums := make(map[Typed]bool, len(s.Typed))
	var lengths []int
	for _, t := range s.Typed {
		sums[t] = true
		if !slices.Contains(lengths, t.Len) {
			lengths = append(lengths, t.Len)
		}
	}
	slices.Sort(lengths)
	slices.Reverse(lengths) // the longest first: a secret containing a shorter one goes whole
	starts := make([]int, 0, len(text)+1)
	for i := range text {
		starts = append(starts, i)
	}
	starts = append(starts, len(text))
	runes := len(starts) - 1
	for _, n := range lengths {
		if n > runes {
			continue
		}
		var out []byte
		at := 0 // bytes of text before at are written
		for i := 0; i+n <= runes; {
			from, to := starts[i], starts[i+n]
			if from >= at && sums[Typed{Sum: s.sum(text[from:to]), Len: n}] {
				out = append(out, text[at:from]...)
				out = append(out, Mask...)
				at = to
				i += n
				continue
			}
			i++
		}
		if out != nil {
			text = string(append(out, text[at:]...))
			starts = starts[:0]
			for i := range text {
				starts = append(starts, i)
			}
			starts = append(starts, len(text))
			runes = len(starts) - 1
		}
	}
	return text
}
