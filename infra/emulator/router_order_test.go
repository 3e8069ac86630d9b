package emulator

import (
	"testing"

	"github.com/screenagent/backend/shared/sam"
)

// Routes of different lengths that agree on their common segments used to compare equal, which
// made the sort's result depend on the template's order and could put /echo/{id} before
// /echo/special.
func TestRouterOrderIsTotal(t *testing.T) {
	routes := []sam.Route{
		{Function: "Var", Method: "GET", Path: "/echo/{id}"},
		{Function: "One", Method: "GET", Path: "/signed"},
		{Function: "Lit", Method: "GET", Path: "/echo/special"},
		{Function: "Deep", Method: "GET", Path: "/api/knowledge/resolve"},
		{Function: "Proxy", Method: "ANY", Path: "/echo/{proxy+}"},
	}
	var permute func(k int)
	permute = func(k int) {
		if k == len(routes) {
			rs := append([]sam.Route(nil), routes...)
			rt, _, ok := newRouter(rs).match("GET", "/echo/special")
			if !ok || rt.function != "Lit" {
				t.Fatalf("routes in order %v: GET /echo/special matched %+v, want /echo/special", rs, rt)
			}
			return
		}
		for i := k; i < len(routes); i++ {
			routes[k], routes[i] = routes[i], routes[k]
			permute(k + 1)
			routes[k], routes[i] = routes[i], routes[k]
		}
	}
	permute(0)
}
