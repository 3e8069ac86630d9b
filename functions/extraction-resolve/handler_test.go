package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/knowledge"
)

// failingSource stands for a store that is down.
type failingSource struct{}

func (failingSource) Retrieve(context.Context, knowledge.Request) (knowledge.Retrieval, error) {
	return knowledge.Retrieval{}, errors.New("dynamodb: connection refused to 10.0.0.7")
}

func serve(h http.Handler, tenant string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/internal/api/knowledge/resolve?url=https%3A%2F%2Fapp.example.com%2F", nil)
	if tenant != "" {
		req.Header.Set("X-Tenant-ID", tenant)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestRefusesWithoutIAMAuthorization(t *testing.T) {
	rec := serve(newHandler(failingSource{}, func(*http.Request) bool { return false }), "tenant-a")
	if want := `{"error":"Unauthorized","detail":"IAM authorization is required"}`; rec.Code != 401 || rec.Body.String() != want {
		t.Errorf("got %d %s, want 401 %s", rec.Code, rec.Body, want)
	}
}

func TestIAMCallerNeedsTheGatewayContext(t *testing.T) {
	if iamCaller(httptest.NewRequest(http.MethodGet, "/", nil)) {
		t.Error("a request without API Gateway's IAM authorizer context counted as authorized")
	}
}

func TestStoreFailureIs500WithoutInternals(t *testing.T) {
	rec := serve(newHandler(failingSource{}, func(*http.Request) bool { return true }), "tenant-a")
	if want := `{"error":"Internal error","detail":"knowledge retrieval failed"}`; rec.Code != 500 || rec.Body.String() != want {
		t.Errorf("got %d %s, want 500 %s", rec.Code, rec.Body, want)
	}
	if strings.Contains(rec.Body.String(), "10.0.0.7") {
		t.Error("the body leaks the cause")
	}
}
