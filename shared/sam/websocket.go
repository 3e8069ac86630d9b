package sam

import (
	"regexp"
	"sort"
)

// WebSocketAPI is an AWS::ApiGatewayV2::Api of protocol WEBSOCKET with its routes.
type WebSocketAPI struct {
	LogicalID string
	// RouteSelection is the RouteSelectionExpression, e.g. "$request.body.action".
	RouteSelection string
	Routes         []WebSocketRoute
}

// WebSocketRoute is an AWS::ApiGatewayV2::Route of such an API and the function its Lambda proxy
// integration invokes.
type WebSocketRoute struct {
	LogicalID string
	Key       string // "$connect", "$disconnect", "$default" or a selection value
	Function  string
}

// WebSocketAPIs returns the template's WebSocket APIs, sorted by logical ID, each with the routes
// whose Target names an integration whose IntegrationUri names a function of the template.
func (t *Template) WebSocketAPIs() []WebSocketAPI {
	var apis []WebSocketAPI
	for _, id := range t.sortedIDs("AWS::ApiGatewayV2::Api") {
		p := t.Resources[id].Properties
		if str(p["ProtocolType"]) != "WEBSOCKET" {
			continue
		}
		api := WebSocketAPI{LogicalID: id, RouteSelection: str(p["RouteSelectionExpression"])}
		for _, rid := range t.sortedIDs("AWS::ApiGatewayV2::Route") {
			rp := t.Resources[rid].Properties
			if !contains(t.refs(rp["ApiId"]), id) {
				continue
			}
			for _, integ := range t.refs(rp["Target"]) {
				if t.Resources[integ].Type != "AWS::ApiGatewayV2::Integration" {
					continue
				}
				for _, fn := range t.refs(t.Resources[integ].Properties["IntegrationUri"]) {
					if t.Resources[fn].Type == "AWS::Serverless::Function" {
						api.Routes = append(api.Routes, WebSocketRoute{LogicalID: rid, Key: str(rp["RouteKey"]), Function: fn})
					}
				}
			}
		}
		sort.Slice(api.Routes, func(i, j int) bool { return api.Routes[i].Key < api.Routes[j].Key })
		apis = append(apis, api)
	}
	return apis
}

// subRef finds ${Name} and ${Name.Attribute} in an Fn::Sub string.
var subRef = regexp.MustCompile(`\$\{([A-Za-z0-9]+)(?:\.[A-Za-z0-9.]+)?\}`)

// refs returns the logical IDs of resources that v refers to through Ref, Fn::GetAtt or Fn::Sub.
func (t *Template) refs(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case Intrinsic:
			switch x.Name {
			case "Ref":
				out = append(out, str(x.Arg))
			case "Fn::GetAtt":
				if parts := strs(x.Arg); len(parts) > 0 {
					out = append(out, parts[0])
				}
			case "Fn::Sub":
				text := str(x.Arg)
				if args := asSlice(x.Arg); len(args) > 0 {
					text = str(args[0])
				}
				for _, m := range subRef.FindAllStringSubmatch(text, -1) {
					out = append(out, m[1])
				}
			default:
				walk(x.Arg)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	kept := out[:0]
	for _, id := range out {
		if _, ok := t.Resources[id]; ok {
			kept = append(kept, id)
		}
	}
	return kept
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
