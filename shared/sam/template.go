// Package sam reads the project's SAM template (template.yaml), the single source of truth for
// routes, functions, environment variables and tables. The local emulator, the local table
// bootstrap and the tests read it through this package, so nothing restates it by hand.
package sam

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Template is a parsed SAM template. Values keep CloudFormation intrinsic functions as
// Intrinsic values until Resolve evaluates them against an Env.
type Template struct {
	Parameters map[string]Parameter
	Conditions map[string]any
	// GlobalFunction holds Globals.Function.
	GlobalFunction map[string]any
	Resources      map[string]Resource
}

// Parameter is one entry of the template's Parameters section.
type Parameter struct {
	Type    string
	Default any
}

// Resource is one entry of the template's Resources section.
type Resource struct {
	LogicalID  string
	Type       string
	Properties map[string]any
	Metadata   map[string]any
}

// Intrinsic is an unevaluated CloudFormation intrinsic function, in its long name
// ("Ref", "Condition", "Fn::Sub", "Fn::GetAtt", ...).
type Intrinsic struct {
	Name string
	Arg  any
}

// Load reads and parses a template file.
func Load(file string) (*Template, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", file, err)
	}
	return t, nil
}

// Parse parses template YAML, keeping intrinsic functions in both short (!Ref) and long
// ({"Ref": ...}) form.
func Parse(data []byte) (*Template, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	v, err := toValue(&root)
	if err != nil {
		return nil, err
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("template is not a mapping")
	}
	t := &Template{
		Parameters:     map[string]Parameter{},
		Conditions:     asMap(doc["Conditions"]),
		GlobalFunction: asMap(asMap(doc["Globals"])["Function"]),
		Resources:      map[string]Resource{},
	}
	for name, p := range asMap(doc["Parameters"]) {
		pm := asMap(p)
		t.Parameters[name] = Parameter{Type: str(pm["Type"]), Default: pm["Default"]}
	}
	for id, r := range asMap(doc["Resources"]) {
		rm := asMap(r)
		t.Resources[id] = Resource{
			LogicalID:  id,
			Type:       str(rm["Type"]),
			Properties: asMap(rm["Properties"]),
			Metadata:   asMap(rm["Metadata"]),
		}
	}
	return t, nil
}

var shortForms = map[string]string{
	"!Ref": "Ref", "!Condition": "Condition", "!Sub": "Fn::Sub", "!GetAtt": "Fn::GetAtt",
	"!Join": "Fn::Join", "!If": "Fn::If", "!Equals": "Fn::Equals", "!Not": "Fn::Not",
	"!And": "Fn::And", "!Or": "Fn::Or", "!Select": "Fn::Select", "!Split": "Fn::Split",
	"!FindInMap": "Fn::FindInMap", "!ImportValue": "Fn::ImportValue", "!GetAZs": "Fn::GetAZs",
	"!Base64": "Fn::Base64", "!Cidr": "Fn::Cidr",
}

func toValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return toValue(n.Content[0])
	case yaml.AliasNode:
		return toValue(n.Alias)
	}
	if name, ok := shortForms[n.Tag]; ok {
		var arg any
		var err error
		if n.Kind == yaml.ScalarNode {
			arg = n.Value
			if name == "Fn::GetAtt" {
				arg = toAnySlice(strings.SplitN(n.Value, ".", 2))
			}
		} else {
			c := *n
			c.Tag = ""
			arg, err = toValue(&c)
		}
		return Intrinsic{Name: name, Arg: arg}, err
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := toValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		if len(m) == 1 {
			for k, v := range m {
				if k == "Ref" || k == "Condition" || strings.HasPrefix(k, "Fn::") {
					return Intrinsic{Name: k, Arg: v}, nil
				}
			}
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := toValue(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	default:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return v, nil
	}
}

// Function is an AWS::Serverless::Function with Globals.Function applied.
type Function struct {
	LogicalID string
	// CodeURI is the function's source folder relative to the template, without a trailing slash.
	CodeURI string
	Handler string
	Runtime string
	// Timeout and MemorySize may be intrinsics; use Resolve.
	Timeout    any
	MemorySize any
	// Environment is Globals.Function's variables overridden by the function's own.
	Environment map[string]any
	Events      []Event
}

// Event is one entry of a function's Events.
type Event struct {
	Name       string
	Type       string
	Properties map[string]any
}

// Route is an HttpApi event: METHOD and Path as in the template ("ANY" and "$default" allowed).
type Route struct {
	Function string
	Event    string
	Method   string
	Path     string
	APIID    any
}

// Functions returns every AWS::Serverless::Function, sorted by logical ID.
func (t *Template) Functions() []Function {
	var fns []Function
	for _, id := range t.sortedIDs("AWS::Serverless::Function") {
		r := t.Resources[id]
		p := merged(t.GlobalFunction, r.Properties)
		f := Function{
			LogicalID:   id,
			CodeURI:     path.Clean(strings.TrimSuffix(str(p["CodeUri"]), "/")),
			Handler:     str(p["Handler"]),
			Runtime:     str(p["Runtime"]),
			Timeout:     p["Timeout"],
			MemorySize:  p["MemorySize"],
			Environment: merged(envVars(t.GlobalFunction), envVars(r.Properties)),
		}
		events := asMap(r.Properties["Events"])
		names := make([]string, 0, len(events))
		for name := range events {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			em := asMap(events[name])
			f.Events = append(f.Events, Event{Name: name, Type: str(em["Type"]), Properties: asMap(em["Properties"])})
		}
		fns = append(fns, f)
	}
	return fns
}

// Routes returns every HttpApi event of every function.
func (t *Template) Routes() []Route {
	var routes []Route
	for _, f := range t.Functions() {
		for _, e := range f.Events {
			if e.Type != "HttpApi" {
				continue
			}
			method := strings.ToUpper(str(e.Properties["Method"]))
			if method == "" {
				method = "ANY"
			}
			p := str(e.Properties["Path"])
			if p == "" {
				p = "$default"
			}
			routes = append(routes, Route{Function: f.LogicalID, Event: e.Name, Method: method, Path: p, APIID: e.Properties["ApiId"]})
		}
	}
	return routes
}

// Cors is an HttpApi CorsConfiguration after resolution.
type Cors struct {
	AllowOrigins     []string
	AllowMethods     []string
	AllowHeaders     []string
	ExposeHeaders    []string
	MaxAge           int
	AllowCredentials bool
}

// HTTPAPICors returns the CorsConfiguration of the template's AWS::Serverless::HttpApi, resolved
// against env; nil when the API has none.
func (t *Template) HTTPAPICors(env Env) (*Cors, error) {
	for _, id := range t.sortedIDs("AWS::Serverless::HttpApi") {
		raw, ok := t.Resources[id].Properties["CorsConfiguration"]
		if !ok {
			continue
		}
		v, err := t.Resolve(raw, env)
		if err != nil {
			return nil, fmt.Errorf("%s CorsConfiguration: %w", id, err)
		}
		m := asMap(v)
		c := &Cors{
			AllowOrigins:     strs(m["AllowOrigins"]),
			AllowMethods:     strs(m["AllowMethods"]),
			AllowHeaders:     strs(m["AllowHeaders"]),
			ExposeHeaders:    strs(m["ExposeHeaders"]),
			AllowCredentials: m["AllowCredentials"] == true,
		}
		if age, err := strconv.Atoi(scalarString(m["MaxAge"])); err == nil {
			c.MaxAge = age
		}
		return c, nil
	}
	return nil, nil
}

// Table is an AWS::DynamoDB::Table's key and index definition.
type Table struct {
	LogicalID              string
	AttributeDefinitions   []Attribute
	KeySchema              []Key
	GlobalSecondaryIndexes []Index
	LocalSecondaryIndexes  []Index
	// TTLAttribute is empty when TTL is not enabled.
	TTLAttribute string
}

// Attribute is an attribute definition (Type is S, N or B).
type Attribute struct{ Name, Type string }

// Key is a key schema element (KeyType is HASH or RANGE).
type Key struct{ Name, KeyType string }

// Index is a secondary index.
type Index struct {
	Name             string
	KeySchema        []Key
	ProjectionType   string
	NonKeyAttributes []string
}

// Tables returns every AWS::DynamoDB::Table, sorted by logical ID.
func (t *Template) Tables() []Table {
	var tables []Table
	for _, id := range t.sortedIDs("AWS::DynamoDB::Table") {
		p := t.Resources[id].Properties
		tb := Table{LogicalID: id}
		for _, a := range asSlice(p["AttributeDefinitions"]) {
			am := asMap(a)
			tb.AttributeDefinitions = append(tb.AttributeDefinitions, Attribute{Name: str(am["AttributeName"]), Type: str(am["AttributeType"])})
		}
		tb.KeySchema = keys(p["KeySchema"])
		tb.GlobalSecondaryIndexes = indexes(p["GlobalSecondaryIndexes"])
		tb.LocalSecondaryIndexes = indexes(p["LocalSecondaryIndexes"])
		if ttl := asMap(p["TimeToLiveSpecification"]); ttl["Enabled"] == true {
			tb.TTLAttribute = str(ttl["AttributeName"])
		}
		tables = append(tables, tb)
	}
	return tables
}

func keys(v any) []Key {
	var ks []Key
	for _, k := range asSlice(v) {
		km := asMap(k)
		ks = append(ks, Key{Name: str(km["AttributeName"]), KeyType: str(km["KeyType"])})
	}
	return ks
}

func indexes(v any) []Index {
	var out []Index
	for _, i := range asSlice(v) {
		im := asMap(i)
		proj := asMap(im["Projection"])
		out = append(out, Index{
			Name:             str(im["IndexName"]),
			KeySchema:        keys(im["KeySchema"]),
			ProjectionType:   str(proj["ProjectionType"]),
			NonKeyAttributes: strs(proj["NonKeyAttributes"]),
		})
	}
	return out
}

func (t *Template) sortedIDs(resourceType string) []string {
	var ids []string
	for id, r := range t.Resources {
		if r.Type == resourceType {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

func envVars(props map[string]any) map[string]any {
	return asMap(asMap(props["Environment"])["Variables"])
}

func merged(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func strs(v any) []string {
	var out []string
	for _, e := range asSlice(v) {
		out = append(out, scalarString(e))
	}
	return out
}

func toAnySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
