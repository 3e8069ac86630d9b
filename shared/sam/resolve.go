package sam

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Env is what intrinsic functions resolve against outside CloudFormation.
type Env struct {
	// Parameters override the template's parameter defaults.
	Parameters map[string]string
	// Resources maps a logical ID to the physical name that !Ref yields (e.g. a local table name).
	// A resource without an entry resolves to its logical ID.
	Resources map[string]string
	Region    string
	AccountID string
}

// Resolve evaluates every intrinsic function inside v. Ref, Condition, Fn::Sub, Fn::GetAtt,
// Fn::Join, Fn::If, Fn::Equals, Fn::Not, Fn::And, Fn::Or, Fn::Select and Fn::Split are supported;
// anything else is an error naming it.
func (t *Template) Resolve(v any, env Env) (any, error) {
	switch x := v.(type) {
	case Intrinsic:
		return t.intrinsic(x, env)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := t.Resolve(e, env)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			if r != noValue {
				out[k] = r
			}
		}
		return out, nil
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			r, err := t.Resolve(e, env)
			if err != nil {
				return nil, err
			}
			if r != noValue {
				out = append(out, r)
			}
		}
		return out, nil
	default:
		return v, nil
	}
}

// ResolveString resolves v and renders the scalar result as a string (numbers and booleans the
// way CloudFormation passes them to environment variables).
func (t *Template) ResolveString(v any, env Env) (string, error) {
	r, err := t.Resolve(v, env)
	if err != nil {
		return "", err
	}
	return renderString(r), nil
}

// ResolveEnvironment resolves a function's environment variables to strings. A variable that
// resolves to AWS::NoValue is left out, as CloudFormation does.
func (t *Template) ResolveEnvironment(f Function, env Env) (map[string]string, error) {
	out := make(map[string]string, len(f.Environment))
	for k, v := range f.Environment {
		r, err := t.Resolve(v, env)
		if err != nil {
			return nil, fmt.Errorf("%s environment %s: %w", f.LogicalID, k, err)
		}
		if r != noValue {
			out[k] = renderString(r)
		}
	}
	return out, nil
}

func renderString(r any) string {
	if s, ok := r.([]any); ok {
		return strings.Join(strs(s), ",")
	}
	if r == noValue {
		return ""
	}
	return scalarString(r)
}

type noValueType struct{}

// noValue is what AWS::NoValue resolves to: the enclosing key or element is dropped.
var noValue = noValueType{}

func (t *Template) intrinsic(x Intrinsic, env Env) (any, error) {
	switch x.Name {
	case "Ref":
		return t.ref(str(x.Arg), env)
	case "Condition":
		return t.condition(str(x.Arg), env)
	case "Fn::GetAtt":
		parts := strs(x.Arg)
		if len(parts) != 2 {
			return nil, fmt.Errorf("Fn::GetAtt wants [resource, attribute], got %v", x.Arg)
		}
		name, err := t.ref(parts[0], env)
		if err != nil {
			return nil, err
		}
		if parts[1] == "Arn" {
			return arn(t.Resources[parts[0]].Type, fmt.Sprint(name), env), nil
		}
		return fmt.Sprintf("%s.%s", name, parts[1]), nil
	case "Fn::Sub":
		return t.sub(x.Arg, env)
	case "Fn::Join":
		args := asSlice(x.Arg)
		if len(args) != 2 {
			return nil, fmt.Errorf("Fn::Join wants [delimiter, list]")
		}
		list, err := t.Resolve(args[1], env)
		if err != nil {
			return nil, err
		}
		return strings.Join(strs(list), str(args[0])), nil
	case "Fn::Select":
		args := asSlice(x.Arg)
		if len(args) != 2 {
			return nil, fmt.Errorf("Fn::Select wants [index, list]")
		}
		idx, err := t.ResolveString(args[0], env)
		if err != nil {
			return nil, err
		}
		list, err := t.Resolve(args[1], env)
		if err != nil {
			return nil, err
		}
		i, err := strconv.Atoi(idx)
		items := asSlice(list)
		if err != nil || i < 0 || i >= len(items) {
			return nil, fmt.Errorf("Fn::Select index %q out of range", idx)
		}
		return items[i], nil
	case "Fn::Split":
		args := asSlice(x.Arg)
		if len(args) != 2 {
			return nil, fmt.Errorf("Fn::Split wants [delimiter, string]")
		}
		s, err := t.ResolveString(args[1], env)
		if err != nil {
			return nil, err
		}
		return toAnySlice(strings.Split(s, str(args[0]))), nil
	case "Fn::If":
		args := asSlice(x.Arg)
		if len(args) != 3 {
			return nil, fmt.Errorf("Fn::If wants [condition, then, else]")
		}
		ok, err := t.condition(str(args[0]), env)
		if err != nil {
			return nil, err
		}
		if ok {
			return t.Resolve(args[1], env)
		}
		return t.Resolve(args[2], env)
	case "Fn::Equals":
		args := asSlice(x.Arg)
		if len(args) != 2 {
			return nil, fmt.Errorf("Fn::Equals wants two values")
		}
		a, err := t.ResolveString(args[0], env)
		if err != nil {
			return nil, err
		}
		b, err := t.ResolveString(args[1], env)
		if err != nil {
			return nil, err
		}
		return a == b, nil
	case "Fn::Not", "Fn::And", "Fn::Or":
		var vals []bool
		for _, a := range asSlice(x.Arg) {
			r, err := t.Resolve(a, env)
			if err != nil {
				return nil, err
			}
			b, ok := r.(bool)
			if !ok {
				return nil, fmt.Errorf("%s operand is not a condition", x.Name)
			}
			vals = append(vals, b)
		}
		switch x.Name {
		case "Fn::Not":
			if len(vals) != 1 {
				return nil, fmt.Errorf("Fn::Not wants one condition")
			}
			return !vals[0], nil
		case "Fn::And":
			for _, b := range vals {
				if !b {
					return false, nil
				}
			}
			return true, nil
		default:
			for _, b := range vals {
				if b {
					return true, nil
				}
			}
			return false, nil
		}
	}
	return nil, fmt.Errorf("intrinsic function %s is not supported outside CloudFormation", x.Name)
}

func (t *Template) condition(name string, env Env) (bool, error) {
	c, ok := t.Conditions[name]
	if !ok {
		return false, fmt.Errorf("unknown condition %q", name)
	}
	r, err := t.Resolve(c, env)
	if err != nil {
		return false, fmt.Errorf("condition %s: %w", name, err)
	}
	b, ok := r.(bool)
	if !ok {
		return false, fmt.Errorf("condition %s is not boolean", name)
	}
	return b, nil
}

func (t *Template) ref(name string, env Env) (any, error) {
	switch name {
	case "AWS::Region":
		return env.region(), nil
	case "AWS::AccountId":
		return env.account(), nil
	case "AWS::StackName":
		return "local", nil
	case "AWS::Partition":
		return "aws", nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::NoValue":
		return noValue, nil
	}
	if p, ok := t.Parameters[name]; ok {
		raw, overridden := env.Parameters[name]
		if !overridden {
			raw = scalarString(p.Default)
		}
		if strings.HasPrefix(p.Type, "CommaDelimitedList") || strings.HasPrefix(p.Type, "List<") {
			items := strings.Split(raw, ",")
			for i := range items {
				items[i] = strings.TrimSpace(items[i])
			}
			return toAnySlice(items), nil
		}
		return raw, nil
	}
	if _, ok := t.Resources[name]; ok {
		if physical, ok := env.Resources[name]; ok {
			return physical, nil
		}
		return name, nil
	}
	return nil, fmt.Errorf("Ref to unknown name %q", name)
}

var subVar = regexp.MustCompile(`\$\{([^}!][^}]*)\}`)

func (t *Template) sub(arg any, env Env) (any, error) {
	tmpl, vars := "", map[string]any{}
	switch a := arg.(type) {
	case string:
		tmpl = a
	case []any:
		if len(a) != 2 {
			return nil, fmt.Errorf("Fn::Sub wants a string or [string, variables]")
		}
		tmpl, vars = str(a[0]), asMap(a[1])
	default:
		return nil, fmt.Errorf("Fn::Sub wants a string or [string, variables]")
	}
	var firstErr error
	out := subVar.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := m[2 : len(m)-1]
		var v any
		var err error
		if local, ok := vars[name]; ok {
			v, err = t.ResolveString(local, env)
		} else if res, attr, ok := strings.Cut(name, "."); ok {
			v, err = t.ResolveString(Intrinsic{Name: "Fn::GetAtt", Arg: []any{res, attr}}, env)
		} else {
			v, err = t.ResolveString(Intrinsic{Name: "Ref", Arg: name}, env)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return scalarString(v)
	})
	if firstErr != nil {
		return nil, firstErr
	}
	// ${!Literal} renders as ${Literal}.
	return strings.ReplaceAll(out, "${!", "${"), nil
}

// arn builds a plausible ARN for a resource outside AWS; only its shape matters locally.
func arn(resourceType, name string, env Env) string {
	if resourceType == "AWS::DynamoDB::Table" {
		return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", env.region(), env.account(), name)
	}
	service := "unknown"
	if parts := strings.Split(resourceType, "::"); len(parts) > 1 {
		service = strings.ToLower(parts[1])
	}
	return fmt.Sprintf("arn:aws:%s:%s:%s:%s", service, env.region(), env.account(), name)
}

func (e Env) region() string {
	if e.Region != "" {
		return e.Region
	}
	return "us-east-1"
}

func (e Env) account() string {
	if e.AccountID != "" {
		return e.AccountID
	}
	return "000000000000"
}

func scalarString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}
