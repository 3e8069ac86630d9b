package pagemodel

import (
	"encoding/json"
	"html"
	"strconv"
	"strings"
)

// maxExpanded bounds the DOM after template expansion: a short call can stand for a long
// template, so without it a small input could expand without limit.
const maxExpanded = 4 << 20

// expandTemplates undoes the extension's templatizer (Taxy's shrinkHTML), whose output is
//
//	T1: <div><a id=$1/><span>$2</span></div>
//	T2: …
//
//	<html>…{T1(1242,"Lopez Island")}…</html>
//
// where each call stands for its template with $n replaced by the n-th argument (numbers
// bare, strings as JSON). Anything else is returned unchanged, and so is a header whose
// calls cannot be read. The work is linear in the input whatever it holds.
func expandTemplates(s string) string {
	out, _ := expand(s, nil)
	return out
}

// piece says where a piece of the expanded DOM came from: out[out:outEnd] is a copy of
// s[src:srcEnd], or, for an argument, what the argument s[src:srcEnd] (as written in the
// call) stands for.
type piece struct {
	out, outEnd int
	src, srcEnd int
	arg         bool
}

// expand is expandTemplates, recording in *pieces (when not nil) where each piece of the
// output came from. It reports whether there was anything to expand.
func expand(s string, pieces *[]piece) (string, bool) {
	doc := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(doc, "T1: ") {
		return s, false
	}
	sep := strings.Index(doc, "\n\n")
	if sep < 0 {
		return s, false
	}
	base := len(s) - len(doc)
	defs := templateDefs(doc[:sep])
	e := expansion{pieces: pieces, pos: base + sep + 2, body: doc[sep+2:]}
	e.out.Grow(len(e.body))
	budget := 8*len(s) + 1<<20 // bytes that call parsing may look at
	expanded := false
	for {
		k := strings.Index(e.body, "{T")
		if k < 0 {
			break
		}
		e.copy(k)
		n, args, size, ok := parseCall(e.body, &budget)
		if !ok || n > len(defs) || e.out.Len() > maxExpanded {
			e.copy(1)
			continue
		}
		d := defs[n-1]
		f := filler{out: &e.out, pieces: pieces, defAt: base + d.at, callAt: e.pos}
		f.fill(d.text, args)
		expanded = true
		e.body, e.pos = e.body[size:], e.pos+size
	}
	e.copy(len(e.body))
	if !expanded {
		return s, false
	}
	return e.out.String(), true
}

// expansion is expand's output so far and the rest of the body, which starts at s[pos].
type expansion struct {
	out    strings.Builder
	pieces *[]piece
	body   string
	pos    int
}

// copy copies the body's next n bytes to the output unchanged.
func (e *expansion) copy(n int) {
	if e.pieces != nil && n > 0 {
		*e.pieces = append(*e.pieces, piece{out: e.out.Len(), outEnd: e.out.Len() + n, src: e.pos, srcEnd: e.pos + n})
	}
	e.out.WriteString(e.body[:n])
	e.body, e.pos = e.body[n:], e.pos+n
}

// tmplDef is a template's body and where it starts in the header.
type tmplDef struct {
	text string
	at   int
}

// templateDefs splits "T1: …\nT2: …" into the template bodies; a body may span lines.
func templateDefs(header string) []tmplDef {
	var defs []tmplDef
	rest := header
	for k := 1; ; k++ {
		prefix := "T" + strconv.Itoa(k) + ": "
		if !strings.HasPrefix(rest, prefix) {
			return defs
		}
		rest = rest[len(prefix):]
		at := len(header) - len(rest)
		end := strings.Index(rest, "\nT"+strconv.Itoa(k+1)+": ")
		if end < 0 {
			return append(defs, tmplDef{rest, at})
		}
		defs = append(defs, tmplDef{rest[:end], at})
		rest = rest[end+1:]
	}
}

// callArg is an argument of a call and where it is written, relative to the call.
type callArg struct {
	value      string
	start, end int
}

// parseCall reads `{T<n>(arg,…)}` at the start of s and returns n, the arguments and the
// call's length. Every byte it looks at is charged to *budget; with the budget spent it
// reads nothing more.
func parseCall(s string, budget *int) (n int, args []callArg, size int, ok bool) {
	i := 2
	for i < len(s) && i < 8 && s[i] >= '0' && s[i] <= '9' {
		n = n*10 + int(s[i]-'0')
		i++
	}
	if i == 2 || n == 0 || i >= len(s) || s[i] != '(' {
		return 0, nil, 0, false
	}
	i++
	if i < len(s) && s[i] == ')' {
		return closeCall(s, i+1, n, nil)
	}
	for i < len(s) {
		arg, end, ok := readArg(s, i, budget)
		if !ok {
			return 0, nil, 0, false
		}
		args = append(args, callArg{arg, i, end})
		if end >= len(s) {
			return 0, nil, 0, false
		}
		switch s[end] {
		case ',':
			i = end + 1
		case ')':
			return closeCall(s, end+1, n, args)
		default:
			return 0, nil, 0, false
		}
	}
	return 0, nil, 0, false
}

// readArg reads the argument at s[i]: a JSON string (taken as written when it does not decode),
// or a bare number. It returns the argument and where it ends.
func readArg(s string, i int, budget *int) (arg string, end int, ok bool) {
	if s[i] == '"' {
		end = closingQuote(s, i+1, budget)
		if end < 0 {
			return "", 0, false
		}
		if err := json.Unmarshal([]byte(s[i:end+1]), &arg); err != nil {
			arg = s[i+1 : end]
		}
		return arg, end + 1, true
	}
	// Bare arguments are numbers: anything long is not a call.
	k := strings.IndexAny(s[i:min(len(s), i+64)], ",)")
	*budget -= 64
	if k < 0 || *budget < 0 {
		return "", 0, false
	}
	return strings.TrimSpace(s[i : i+k]), i + k, true
}

func closeCall(s string, i, n int, args []callArg) (int, []callArg, int, bool) {
	if i >= len(s) || s[i] != '}' {
		return 0, nil, 0, false
	}
	return n, args, i + 1, true
}

// closingQuote returns the index of the '"' that ends the JSON string starting at i, or -1.
func closingQuote(s string, i int, budget *int) int {
	start := i
	defer func() { *budget -= i - start }()
	for i < len(s) && *budget-(i-start) > 0 {
		switch s[i] {
		case '\\':
			i += 2
		case '"':
			return i
		default:
			i++
		}
	}
	return -1
}

// filler writes a template with its arguments, recording the pieces when asked to.
type filler struct {
	out    *strings.Builder
	pieces *[]piece
	defAt  int // where the template's body starts in the input
	callAt int // where the call starts in the input
}

func (f filler) write(s string, src, srcEnd int, arg bool) {
	if f.pieces != nil && s != "" {
		*f.pieces = append(*f.pieces, piece{out: f.out.Len(), outEnd: f.out.Len() + len(s), src: src, srcEnd: srcEnd, arg: arg})
	}
	f.out.WriteString(s)
}

// fill writes tmpl with $n replaced by args[n-1], escaped so that the parser reads the
// value back: quoted after '=' (an attribute), as text elsewhere.
func (f filler) fill(tmpl string, args []callArg) {
	for i := 0; i < len(tmpl); {
		d := strings.IndexByte(tmpl[i:], '$')
		if d < 0 {
			f.write(tmpl[i:], f.defAt+i, f.defAt+len(tmpl), false)
			return
		}
		f.write(tmpl[i:i+d], f.defAt+i, f.defAt+i+d, false)
		at := i + d
		j, n := at+1, 0
		for j < len(tmpl) && j < at+7 && tmpl[j] >= '0' && tmpl[j] <= '9' {
			n = n*10 + int(tmpl[j]-'0')
			j++
		}
		if n < 1 || n > len(args) {
			f.write("$", f.defAt+at, f.defAt+at+1, false)
			i = at + 1
			continue
		}
		a := args[n-1]
		v := html.EscapeString(a.value)
		if at > 0 && tmpl[at-1] == '=' {
			v = `"` + v + `"`
		}
		f.write(v, f.callAt+a.start, f.callAt+a.end, true)
		if f.out.Len() > maxExpanded {
			return
		}
		i = j
	}
}
