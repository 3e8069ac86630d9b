package emulator

import (
	"cmp"
	"net/url"
	"slices"
	"strings"

	"github.com/screenagent/backend/shared/sam"
)

// segment kinds, in the order HTTP API prefers them when several routes match.
const (
	literal = iota
	variable
	greedy
)

type segment struct {
	kind int
	text string // the literal, or the variable's name
}

// route is an HttpApi route of the template.
type route struct {
	key      string // the routeKey of events: "GET /api/x/{id}", or "$default"
	method   string // "ANY" matches every method
	segments []segment
	function string
	event    string
	// iam is set for a route whose event asks for AWS_IAM authorization.
	iam bool
}

// router matches requests as HTTP API does: the most specific route wins, where a literal
// segment beats a {variable}, which beats a {greedy+} one, and an explicit method beats ANY;
// $default takes what nothing else matches.
type router struct {
	routes []route // most specific first
}

func newRouter(rs []sam.Route) *router {
	r := &router{}
	for _, sr := range rs {
		rt := route{method: sr.Method, function: sr.Function, event: sr.Event, key: sr.Method + " " + sr.Path}
		if sr.Path == "$default" {
			rt.key = "$default"
		} else {
			for _, s := range strings.Split(strings.TrimPrefix(sr.Path, "/"), "/") {
				rt.segments = append(rt.segments, parseSegment(s))
			}
		}
		r.routes = append(r.routes, rt)
	}
	slices.SortStableFunc(r.routes, compareSpecificity)
	return r
}

func parseSegment(s string) segment {
	name, isVar := strings.CutPrefix(s, "{")
	if !isVar || !strings.HasSuffix(name, "}") {
		return segment{kind: literal, text: s}
	}
	name = strings.TrimSuffix(name, "}")
	if n, ok := strings.CutSuffix(name, "+"); ok {
		return segment{kind: greedy, text: n}
	}
	return segment{kind: variable, text: name}
}

// compareSpecificity orders routes so that the first one matching a request is the one HTTP
// API would choose.
func compareSpecificity(a, b route) int {
	if (a.key == "$default") != (b.key == "$default") {
		if a.key == "$default" {
			return 1
		}
		return -1
	}
	// Segment kinds compare lexicographically, then by count, so that the order is total: two
	// routes equal on their common segments but of different lengths must not both compare
	// equal to a third that lies between them, or sorting would misplace routes.
	kinds := func(r route) []int {
		k := make([]int, len(r.segments))
		for i, s := range r.segments {
			k[i] = s.kind
		}
		return k
	}
	if c := slices.Compare(kinds(a), kinds(b)); c != 0 {
		return c
	}
	return cmp.Compare(methodRank(a.method), methodRank(b.method))
}

func methodRank(m string) int {
	if m == "ANY" {
		return 1
	}
	return 0
}

// match finds the route for a request and its path parameters (nil when it has none).
// escapedPath is the path as sent, so an encoded "/" stays inside one segment.
func (r *router) match(method, escapedPath string) (*route, map[string]string, bool) {
	parts := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for i, p := range parts {
		if u, err := url.PathUnescape(p); err == nil {
			parts[i] = u
		}
	}
	for i := range r.routes {
		rt := &r.routes[i]
		if rt.method != "ANY" && rt.method != method {
			continue
		}
		if rt.key == "$default" {
			return rt, nil, true
		}
		if params, ok := rt.bind(parts); ok {
			return rt, params, true
		}
	}
	return nil, nil, false
}

// bind matches the request's decoded path segments against the route's template.
func (rt *route) bind(parts []string) (map[string]string, bool) {
	var params map[string]string
	set := func(k, v string) {
		if params == nil {
			params = map[string]string{}
		}
		params[k] = v
	}
	for i, s := range rt.segments {
		if s.kind == greedy {
			rest := strings.Join(parts[min(i, len(parts)):], "/")
			if rest == "" {
				return nil, false
			}
			set(s.text, rest)
			return params, true
		}
		if i >= len(parts) {
			return nil, false
		}
		switch {
		case s.kind == variable && parts[i] != "":
			set(s.text, parts[i])
		case s.kind == literal && s.text == parts[i]:
		default:
			return nil, false
		}
	}
	return params, len(parts) == len(rt.segments)
}
