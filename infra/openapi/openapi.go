// Package openapi holds the API's contract, an OpenAPI 3.1 document (openapi.yaml beside this
// file), and checks HTTP answers against it. Integration tests run every response they receive
// through a Validator (infra/stacktest does it for them), so a handler that drifts from the
// document fails a test.
package openapi

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

//go:embed openapi.yaml
var document []byte

// Document is the contract as it is served (e.g. to an API viewer).
func Document() []byte { return bytes.Clone(document) }

// Load parses and validates the contract, examples included.
func Load(ctx context.Context) (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(document)
	if err != nil {
		return nil, fmt.Errorf("openapi: parse: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("openapi: invalid document: %w", err)
	}
	return doc, nil
}

// Validator checks answers against the contract.
type Validator struct {
	router routers.Router
}

// NewValidator loads the contract. Its servers are dropped so that requests match by path alone,
// whatever host and port a test server listens on.
func NewValidator(ctx context.Context) (*Validator, error) {
	doc, err := Load(ctx)
	if err != nil {
		return nil, err
	}
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: router: %w", err)
	}
	return &Validator{router: router}, nil
}

// CheckResponse returns an error when the answer to req (status, content type, headers the
// contract requires, body schema) is not one the contract allows for req's route. A status the
// route does not list is an error too. Requests to no route of the contract must have API
// Gateway's own answers: 404 {"message"} for an unknown route, 204 for a CORS preflight.
func (v *Validator) CheckResponse(ctx context.Context, req *http.Request, status int, header http.Header, body []byte) error {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return gatewayAnswer(req, status, body, err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		return fmt.Errorf("%s %s answered %d, which the contract does not allow: %w\nbody: %s",
			req.Method, req.URL.Path, status, err, clip(body))
	}
	if status == http.StatusNoContent && len(body) > 0 {
		return fmt.Errorf("%s %s answered 204 with a body: %s", req.Method, req.URL.Path, clip(body))
	}
	return nil
}

func gatewayAnswer(req *http.Request, status int, body []byte, routeErr error) error {
	if req.Method == http.MethodOptions && status == http.StatusNoContent {
		return nil
	}
	var gw struct {
		Message *string `json:"message"`
	}
	if errors.Is(routeErr, routers.ErrPathNotFound) || errors.Is(routeErr, routers.ErrMethodNotAllowed) {
		if status == http.StatusNotFound && json.Unmarshal(body, &gw) == nil && gw.Message != nil {
			return nil
		}
	}
	return fmt.Errorf("%s %s is no route of the contract (%v), yet it answered %d: %s",
		req.Method, req.URL.Path, routeErr, status, clip(body))
}

func clip(b []byte) string {
	const max = 600
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
