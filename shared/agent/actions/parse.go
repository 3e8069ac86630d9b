package actions

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Parse parses one action string strictly against the grammar: the name exactly as the table has
// it, then the arguments in parentheses, separated by commas, with the count and types the table
// gives, and nothing after the closing parenthesis. Whitespace around the action and between its
// tokens is allowed. Element ids and seconds are bare numbers (no sign, quotes, exponent or leading
// zeros); strings are double-quoted with JSON escapes (\" \\ \/ \b \f \n \r \t \uXXXX) and no
// raw control characters. The error says what is wrong and how to write it instead.
func (g *Grammar) Parse(s string) (Action, error) {
	src := strings.TrimSpace(s)
	if src == "" {
		return Action{}, errors.New("the action is empty; write one action, such as finish()")
	}
	if m := secretCall.FindStringSubmatch(src); m != nil {
		return g.parseSecretCall(m[1], m[2])
	}
	spec, lx, err := g.opening(src)
	if err != nil {
		return Action{}, err
	}
	toks, err := lx.args()
	if err != nil {
		return Action{}, err
	}
	if lx.i != len(src) {
		return Action{}, fmt.Errorf(`unexpected text after the closing ")" of %s: %s; write exactly one action and nothing after it`, spec.Name, snippet(strings.TrimLeft(src[lx.i:], " \t\r\n")))
	}
	if err := checkCount(spec, len(toks)); err != nil {
		return Action{}, err
	}
	var args []any
	for i, t := range toks {
		v, err := convert(spec, spec.Args[i], t)
		if err != nil {
			return Action{}, err
		}
		args = append(args, v)
	}
	return Action{spec: spec, args: args}, nil
}

// opening reads the action's name and its opening parenthesis; the lexer it returns stands
// after the parenthesis, at the arguments.
func (g *Grammar) opening(src string) (*Spec, *lexer, error) {
	n := 0
	for n < len(src) && isIdentByte(src[n]) {
		n++
	}
	name := src[:n]
	if name == "" || isDigit(name[0]) {
		return nil, nil, fmt.Errorf("an action starts with its name, such as click(12); got %s", snippet(src))
	}
	spec := g.byName[name]
	if spec == nil {
		return nil, nil, g.unknown(name)
	}
	lx := &lexer{src: src, i: n, name: name}
	lx.skipSpace()
	if lx.i == len(src) {
		return nil, nil, fmt.Errorf("%s needs parentheses: write %s", name, forms(spec))
	}
	if src[lx.i] != '(' {
		return nil, nil, fmt.Errorf(`expected "(" after %s, got %s: write %s`, name, snippet(src[lx.i:]), forms(spec))
	}
	lx.i++
	return spec, lx, nil
}

// New builds an action from Go values, checked like Parse checks text: int for an element id,
// string for text, URLs and choices, time.Duration for seconds. The engine uses it for actions
// it writes itself, such as fail("reason") or verifySuccess("…").
func (g *Grammar) New(name string, args ...any) (Action, error) {
	spec := g.byName[name]
	if spec == nil {
		return Action{}, g.unknown(name)
	}
	if err := checkCount(spec, len(args)); err != nil {
		return Action{}, err
	}
	var vals []any
	for i, v := range args {
		a := spec.Args[i]
		var ok bool
		switch a.Kind {
		case KindElement:
			_, ok = v.(int)
		case KindSeconds:
			_, ok = v.(time.Duration)
		default:
			_, ok = v.(string)
		}
		if !ok {
			return Action{}, fmt.Errorf("%s: %s must be a Go %s, got %T", name, a.Name, goType(a.Kind), v)
		}
		if err := checkValue(spec, a, v); err != nil {
			return Action{}, err
		}
		vals = append(vals, v)
	}
	return Action{spec: spec, args: vals}, nil
}

func goType(k Kind) string {
	switch k {
	case KindElement:
		return "int"
	case KindSeconds:
		return "time.Duration"
	}
	return "string"
}

// unknown explains an unknown action name, pointing at the one meant when only case, '_' or '-' differ.
func (g *Grammar) unknown(name string) error {
	fold := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	names := make([]string, len(g.specs))
	for i, s := range g.specs {
		names[i] = s.Name
		if fold(s.Name) == fold(name) {
			return fmt.Errorf("unknown action %q; did you mean %s? Names are case-sensitive: write %s", name, s.Name, forms(&s))
		}
	}
	return fmt.Errorf("unknown action %q; the actions are %s", name, strings.Join(names, ", "))
}

func checkCount(spec *Spec, got int) error {
	most := len(spec.Args)
	least := 0
	for _, a := range spec.Args {
		if !a.Optional {
			least++
		}
	}
	if least <= got && got <= most {
		return nil
	}
	if most == 0 {
		return fmt.Errorf("%s takes no arguments, got %d: write %s()", spec.Name, got, spec.Name)
	}
	labels := make([]string, most)
	for i, a := range spec.Args {
		labels[i] = label(a)
	}
	want := strconv.Itoa(most)
	switch {
	case least == 0:
		want = "at most " + want
	case least < most:
		want = fmt.Sprintf("from %d to %d", least, most)
	}
	noun := "arguments"
	if most == 1 {
		noun = "argument"
	}
	return fmt.Errorf("%s expects %s %s (%s), got %d: write %s", spec.Name, want, noun, strings.Join(labels, ", "), got, forms(spec))
}

// label names an argument in messages.
func label(a ArgSpec) string {
	if a.Kind == KindElement {
		return "element id"
	}
	return a.Name
}

// token is one argument as written: a double-quoted string (decoded into str) or anything else,
// kept raw for convert to judge.
type token struct {
	raw    string
	quoted bool
	str    string
}

type lexer struct {
	src  string
	i    int
	name string // the action's, for messages
}

func (lx *lexer) skipSpace() {
	for lx.i < len(lx.src) && isSpace(lx.src[lx.i]) {
		lx.i++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// args reads the arguments after "(" up to and including ")".
func (lx *lexer) args() ([]token, error) {
	var toks []token
	lx.skipSpace()
	if lx.i < len(lx.src) && lx.src[lx.i] == ')' {
		lx.i++
		return nil, nil
	}
	for {
		lx.skipSpace()
		t, err := lx.arg(len(toks) + 1)
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		lx.skipSpace()
		if lx.i == len(lx.src) {
			return nil, fmt.Errorf(`%s(…) is missing its closing ")"`, lx.name)
		}
		switch lx.src[lx.i] {
		case ')':
			lx.i++
			return toks, nil
		case ',':
			lx.i++
			lx.skipSpace()
			if lx.i < len(lx.src) && lx.src[lx.i] == ')' {
				return nil, fmt.Errorf(`remove the comma before the closing ")" of %s(…)`, lx.name)
			}
		default:
			return nil, fmt.Errorf(`expected "," or ")" after argument %d of %s, got %s`, len(toks), lx.name, snippet(lx.src[lx.i:]))
		}
	}
}

// arg reads one argument: a double-quoted string, or raw text up to the next "," or ")" outside
// quotes and parentheses (so that a mistake such as f(useVariable("x")) is reported whole).
func (lx *lexer) arg(pos int) (token, error) {
	if lx.i < len(lx.src) && lx.src[lx.i] == '"' {
		start := lx.i
		s, err := lx.str()
		if err != nil {
			return token{}, err
		}
		return token{raw: lx.src[start:lx.i], quoted: true, str: s}, nil
	}
	start, depth := lx.i, 0
scan:
	for lx.i < len(lx.src) {
		switch c := lx.src[lx.i]; c {
		case '"', '\'':
			lx.skipQuoted(c)
			continue
		case '(':
			depth++
		case ')':
			if depth == 0 {
				break scan
			}
			depth--
		case ',':
			if depth == 0 {
				break scan
			}
		}
		lx.i++
	}
	raw := strings.TrimRight(lx.src[start:lx.i], " \t\r\n")
	if raw == "" {
		return token{}, fmt.Errorf("argument %d of %s is empty", pos, lx.name)
	}
	return token{raw: raw}, nil
}

// skipQuoted moves past a quoted run opened by q at lx.i, or to the end when it is not closed.
func (lx *lexer) skipQuoted(q byte) {
	for lx.i++; lx.i < len(lx.src); lx.i++ {
		switch lx.src[lx.i] {
		case '\\':
			lx.i++
		case q:
			lx.i++
			return
		}
	}
	lx.i = len(lx.src)
}

// str reads a double-quoted string at lx.i with JSON's escapes and rules.
func (lx *lexer) str() (string, error) {
	start := lx.i
	lx.i++
	var b strings.Builder
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == '"':
			lx.i++
			return b.String(), nil
		case c == '\\':
			r, err := lx.escape()
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		case c < 0x20:
			return "", fmt.Errorf(`%s: a string contains a raw control character %U; write it as an escape such as \n or \t`, lx.name, c)
		default:
			r, size := utf8.DecodeRuneInString(lx.src[lx.i:])
			if r == utf8.RuneError && size == 1 {
				return "", fmt.Errorf("%s: a string contains invalid UTF-8", lx.name)
			}
			b.WriteString(lx.src[lx.i : lx.i+size])
			lx.i += size
		}
	}
	return "", fmt.Errorf(`%s: the string %s is not closed; end it with "`, lx.name, rawSnippet(lx.src[start:]))
}

// escape reads the escape at lx.i (a backslash) and returns the character it stands for.
func (lx *lexer) escape() (rune, error) {
	if lx.i+1 >= len(lx.src) {
		lx.i++
		return 0, fmt.Errorf(`%s: a string ends with a lone \; write \\ for a backslash`, lx.name)
	}
	c := lx.src[lx.i+1]
	lx.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		return lx.unicodeEscape()
	}
	esc := `\` + string(c)
	if c >= utf8.RuneSelf || c < 0x20 {
		esc = fmt.Sprintf(`\ followed by byte %#02x`, c)
	}
	return 0, fmt.Errorf(`%s: invalid escape %s in a string; the escapes are \" \\ \/ \b \f \n \r \t and \uXXXX`, lx.name, esc)
}

// unicodeEscape reads the hex digits of a \u escape (lx.i after the u), and the low half that
// must follow a high surrogate.
func (lx *lexer) unicodeEscape() (rune, error) {
	r, ok := lx.hex4()
	if !ok {
		return 0, fmt.Errorf(`%s: \u must be followed by 4 hex digits, like \u00e9`, lx.name)
	}
	if 0xDC00 <= r && r <= 0xDFFF {
		return 0, fmt.Errorf(`%s: a string has a lone surrogate \u%04x; write the character itself`, lx.name, r)
	}
	if r < 0xD800 || r > 0xDBFF {
		return r, nil
	}
	if !strings.HasPrefix(lx.src[lx.i:], `\u`) {
		return 0, fmt.Errorf(`%s: a string has a lone surrogate \u%04x; write the character itself`, lx.name, r)
	}
	lx.i += 2
	lo, ok := lx.hex4()
	if !ok || lo < 0xDC00 || lo > 0xDFFF {
		return 0, fmt.Errorf(`%s: a string has a lone surrogate \u%04x; write the character itself`, lx.name, r)
	}
	return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), nil
}

func (lx *lexer) hex4() (rune, bool) {
	if lx.i+4 > len(lx.src) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(lx.src[lx.i : lx.i+4]) {
		switch {
		case isDigit(c):
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	lx.i += 4
	return r, true
}

// convert turns a token into the value of argument a, or explains why it can't.
func convert(spec *Spec, a ArgSpec, t token) (any, error) {
	var v any
	var err error
	switch a.Kind {
	case KindElement:
		v, err = readElementID(spec, t)
	case KindSeconds:
		if t.quoted {
			return nil, fmt.Errorf("%s: %s must be a number without quotes, like 2 or 1.5; got %s", spec.Name, a.Name, t.raw)
		}
		d, err := parseSeconds(a, t.raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %s must be %w, got %s", spec.Name, a.Name, err, rawSnippet(t.raw))
		}
		v = d
	default:
		v, err = readString(spec, a, t)
	}
	if err != nil {
		return nil, err
	}
	if err := checkValue(spec, a, v); err != nil {
		return nil, err
	}
	return v, nil
}

// readElementID reads an element id: a bare whole number without leading zeros.
func readElementID(spec *Spec, t token) (int, error) {
	switch {
	case t.quoted:
		return 0, fmt.Errorf("%s: the element id must be a number without quotes, like 12; got %s", spec.Name, t.raw)
	case !allDigits(t.raw):
		return 0, fmt.Errorf("%s: the element id must be a whole number like 12, got %s", spec.Name, rawSnippet(t.raw))
	case len(t.raw) > 1 && t.raw[0] == '0':
		return 0, fmt.Errorf("%s: write the element id without leading zeros, like 12; got %s", spec.Name, t.raw)
	case len(t.raw) > len(strconv.Itoa(MaxElementID)):
		return 0, fmt.Errorf("%s: element id %s is too large; use an id from the page", spec.Name, rawSnippet(t.raw))
	}
	id, _ := strconv.Atoi(t.raw)
	return id, nil
}

// readString reads a text, URL or choice argument: a double-quoted string.
func readString(spec *Spec, a ArgSpec, t token) (string, error) {
	switch {
	case t.quoted:
		return t.str, nil
	case strings.HasPrefix(t.raw, "'"):
		return "", fmt.Errorf("%s: %s must be in double quotes, not single quotes: write %s", spec.Name, a.Name, forms(spec))
	case a.Kind == KindChoice:
		return "", fmt.Errorf("%s: %s must be one of %s, in double quotes; got %s", spec.Name, a.Name, quotedList(a.Choices), rawSnippet(t.raw))
	}
	return "", fmt.Errorf("%s: %s must be a string in double quotes, like %s; got %s", spec.Name, a.Name, placeholder(a), rawSnippet(t.raw))
}

// parseSeconds reads a decimal number of seconds with at most 3 decimal places into milliseconds.
// The error completes "seconds must be …".
func parseSeconds(a ArgSpec, s string) (time.Duration, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if !allDigits(whole) || (dot && !allDigits(frac)) {
		return 0, errors.New("a number like 2 or 1.5")
	}
	if len(whole) > 1 && whole[0] == '0' {
		return 0, errors.New("written without leading zeros, like 2 or 0.5")
	}
	if len(frac) > 3 {
		return 0, errors.New("a number with at most 3 decimal places")
	}
	if len(whole) > 9 { // beyond any bound, and beyond what a Duration holds in milliseconds
		return 0, fmt.Errorf("from %s to %s", formatSeconds(a.Min), formatSeconds(a.Max))
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt((frac + "000")[:3], 10, 64)
	return time.Duration(w*1000+f) * time.Millisecond, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// checkValue checks a value of the right Go type against its argument's rules.
func checkValue(spec *Spec, a ArgSpec, v any) error {
	switch a.Kind {
	case KindElement:
		if id := v.(int); id < 0 || id > MaxElementID {
			return fmt.Errorf("%s: element id %d is out of range", spec.Name, id)
		}
	case KindSeconds:
		d := v.(time.Duration)
		if d%time.Millisecond != 0 {
			return fmt.Errorf("%s: %s must have at most 3 decimal places", spec.Name, a.Name)
		}
		if d < a.Min || d > a.Max {
			return fmt.Errorf("%s: %s must be from %s to %s, got %s", spec.Name, a.Name, formatSeconds(a.Min), formatSeconds(a.Max), formatSeconds(d))
		}
	default:
		s := v.(string)
		if !utf8.ValidString(s) {
			return fmt.Errorf("%s: %s is not valid UTF-8", spec.Name, a.Name)
		}
		if s == "" && !a.AllowEmpty {
			return fmt.Errorf("%s: %s must not be empty", spec.Name, a.Name)
		}
		if n := textLen(s); n > MaxTextLen {
			return fmt.Errorf("%s: %s is %d characters long; at most %d are allowed", spec.Name, a.Name, n, MaxTextLen)
		}
		switch a.Kind {
		case KindURL:
			return checkURL(spec, a, s)
		case KindChoice:
			return checkChoice(spec, a, s)
		}
	}
	return nil
}

func checkURL(spec *Spec, a ArgSpec, s string) error {
	if strings.ContainsFunc(s, unicode.IsSpace) {
		return fmt.Errorf("%s: %s must not contain spaces; encode them as %%20", spec.Name, a.Name)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Hostname() == "" {
		return fmt.Errorf(`%s: %s must be an absolute http or https URL, like "https://example.com/page"; got %s`, spec.Name, a.Name, snippet(s))
	}
	return nil
}

func checkChoice(spec *Spec, a ArgSpec, s string) error {
	if slices.Contains(a.Choices, s) {
		return nil
	}
	for _, c := range a.Choices {
		if strings.EqualFold(c, s) {
			return fmt.Errorf("%s: unknown %s %q; did you mean %q? The values are case-sensitive", spec.Name, a.Name, s, c)
		}
	}
	return fmt.Errorf("%s: %s must be one of %s; got %s", spec.Name, a.Name, quotedList(a.Choices), snippet(s))
}

func quotedList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// rawSnippet shows the start of s as written, on one line, for a message.
func rawSnippet(s string) string {
	r := []rune(s)
	cut := len(r) > snippetLen
	if cut {
		r = r[:snippetLen]
	}
	for i, c := range r {
		if unicode.IsControl(c) {
			r[i] = ' '
		}
	}
	if cut {
		return string(r) + "…"
	}
	return string(r)
}

const snippetLen = 40

// snippet quotes the start of s for a message, so that a long or multi-line mistake stays short.
func snippet(s string) string {
	if utf8.RuneCountInString(s) <= snippetLen {
		return strconv.Quote(s)
	}
	return strconv.Quote(string([]rune(s)[:snippetLen])) + "…"
}
