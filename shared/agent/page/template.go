package page

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
	doc := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(doc, "T1: ") {
		return s
	}
	sep := strings.Index(doc, "\n\n")
	if sep < 0 {
		return s
	}
	defs, body := templateDefs(doc[:sep]), doc[sep+2:]
	var out strings.Builder
	out.Grow(len(body))
	budget := 8*len(s) + 1<<20 // bytes that call parsing may look at
	expanded := false
	for {
		k := strings.Index(body, "{T")
		if k < 0 {
			break
		}
		out.WriteString(body[:k])
		body = body[k:]
		n, args, size, ok := parseCall(body, &budget)
		if !ok || n > len(defs) || out.Len() > maxExpanded {
			out.WriteByte('{')
			body = body[1:]
			continue
		}
		fillTemplate(&out, defs[n-1], args)
		expanded = true
		body = body[size:]
	}
	out.WriteString(body)
	if !expanded {
		return s
	}
	return out.String()
}

// templateDefs splits "T1: …\nT2: …" into the template bodies; a body may span lines.
func templateDefs(header string) []string {
	var defs []string
	rest := header
	for k := 1; ; k++ {
		prefix := "T" + strconv.Itoa(k) + ": "
		if !strings.HasPrefix(rest, prefix) {
			return defs
		}
		rest = rest[len(prefix):]
		end := strings.Index(rest, "\nT"+strconv.Itoa(k+1)+": ")
		if end < 0 {
			return append(defs, rest)
		}
		defs = append(defs, rest[:end])
		rest = rest[end+1:]
	}
}

// parseCall reads `{T<n>(arg,…)}` at the start of s and returns n, the arguments and the
// call's length. Every byte it looks at is charged to *budget; with the budget spent it
// reads nothing more.
func parseCall(s string, budget *int) (n int, args []string, size int, ok bool) {
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
		var arg string
		var end int
		if s[i] == '"' {
			end = closingQuote(s, i+1, budget)
			if end < 0 {
				return 0, nil, 0, false
			}
			if err := json.Unmarshal([]byte(s[i:end+1]), &arg); err != nil {
				arg = s[i+1 : end]
			}
			end++
		} else {
			// Bare arguments are numbers: anything long is not a call.
			k := strings.IndexAny(s[i:min(len(s), i+64)], ",)")
			*budget -= 64
			if k < 0 || *budget < 0 {
				return 0, nil, 0, false
			}
			arg, end = strings.TrimSpace(s[i:i+k]), i+k
		}
		args = append(args, arg)
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

func closeCall(s string, i, n int, args []string) (int, []string, int, bool) {
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

// fillTemplate writes tmpl with $n replaced by args[n-1], escaped so that the parser reads
// the value back: quoted after '=' (an attribute), as text elsewhere.
func fillTemplate(out *strings.Builder, tmpl string, args []string) {
	for i := 0; i < len(tmpl); {
		d := strings.IndexByte(tmpl[i:], '$')
		if d < 0 {
			out.WriteString(tmpl[i:])
			return
		}
		out.WriteString(tmpl[i : i+d])
		at := i + d
		j, n := at+1, 0
		for j < len(tmpl) && j < at+7 && tmpl[j] >= '0' && tmpl[j] <= '9' {
			n = n*10 + int(tmpl[j]-'0')
			j++
		}
		if n < 1 || n > len(args) {
			out.WriteByte('$')
			i = at + 1
			continue
		}
		v := html.EscapeString(args[n-1])
		if at > 0 && tmpl[at-1] == '=' {
			v = `"` + v + `"`
		}
		out.WriteString(v)
		if out.Len() > maxExpanded {
			return
		}
		i = j
	}
}
