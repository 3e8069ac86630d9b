package emulator

import (
	"maps"
	"testing"

	"github.com/screenagent/backend/shared/sam"
)

func TestRouterMatch(t *testing.T) {
	routes := []sam.Route{
		{Function: "Default", Method: "ANY", Path: "$default"},
		{Function: "Proxy", Method: "ANY", Path: "/items/{proxy+}"},
		{Function: "AnyItem", Method: "ANY", Path: "/items/{id}"},
		{Function: "Item", Method: "GET", Path: "/items/{id}"},
		{Function: "Special", Method: "GET", Path: "/items/special"},
		{Function: "Part", Method: "GET", Path: "/items/{id}/parts/{part}"},
		{Function: "Root", Method: "GET", Path: "/"},
	}
	tests := []struct {
		method, path string
		wantFunction string
		wantKey      string
		wantParams   map[string]string
	}{
		{"GET", "/items/special", "Special", "GET /items/special", nil},
		{"GET", "/items/42", "Item", "GET /items/{id}", map[string]string{"id": "42"}},
		{"POST", "/items/42", "AnyItem", "ANY /items/{id}", map[string]string{"id": "42"}},
		{"GET", "/items/42/parts/7", "Part", "GET /items/{id}/parts/{part}", map[string]string{"id": "42", "part": "7"}},
		{"POST", "/items/42/parts/7", "Proxy", "ANY /items/{proxy+}", map[string]string{"proxy": "42/parts/7"}},
		{"DELETE", "/items/a/b/c", "Proxy", "ANY /items/{proxy+}", map[string]string{"proxy": "a/b/c"}},
		{"GET", "/items/a%2Fb", "Item", "GET /items/{id}", map[string]string{"id": "a/b"}},
		{"GET", "/items/caf%C3%A9", "Item", "GET /items/{id}", map[string]string{"id": "café"}},
		{"GET", "/", "Root", "GET /", nil},
		{"GET", "/items", "Default", "$default", nil},
		{"PUT", "/elsewhere", "Default", "$default", nil},
	}
	r := newRouter(routes)
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rt, params, ok := r.match(tt.method, tt.path)
			if !ok {
				t.Fatalf("got no route, want %s", tt.wantKey)
			}
			if rt.function != tt.wantFunction || rt.key != tt.wantKey {
				t.Errorf("got %s (%s), want %s (%s)", rt.function, rt.key, tt.wantFunction, tt.wantKey)
			}
			if !maps.Equal(params, tt.wantParams) {
				t.Errorf("got params %v, want %v", params, tt.wantParams)
			}
		})
	}
}

func TestRouterNoMatch(t *testing.T) {
	r := newRouter([]sam.Route{
		{Function: "Item", Method: "GET", Path: "/items/{id}"},
		{Function: "Proxy", Method: "GET", Path: "/files/{proxy+}"},
	})
	tests := []struct{ method, path string }{
		{"POST", "/items/1"},
		{"GET", "/items"},
		{"GET", "/items/"},
		{"GET", "/items/1/2"},
		{"GET", "/files"},
		{"GET", "/files/"},
		{"GET", "/other"},
	}
	for _, tt := range tests {
		if rt, _, ok := r.match(tt.method, tt.path); ok {
			t.Errorf("%s %s: got route %s, want none", tt.method, tt.path, rt.key)
		}
	}
}
