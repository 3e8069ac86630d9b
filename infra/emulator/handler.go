package emulator

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"time"
)

// maxRequestBody is HTTP API's payload limit.
const maxRequestBody = 10 << 20

var errTooLarge = errors.New("request body too large")

// Handler serves the template's HttpApi routes as HTTP API does.
func (e *Emulator) Handler() http.Handler {
	return http.HandlerFunc(e.serveHTTP)
}

func (e *Emulator) serveHTTP(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	id := newAPIRequestID()
	res, function := e.respond(r, id, received)
	h := w.Header()
	maps.Copy(h, res.header)
	h.Set("Apigw-Requestid", id)
	if h.Get("Content-Type") == "" {
		h["Content-Type"] = nil // API Gateway sends none; net/http would guess one
	}
	w.WriteHeader(res.status)
	w.Write(res.body)
	e.log.Info("request", "method", r.Method, "path", r.URL.Path, "function", function,
		"status", res.status, "durationMs", time.Since(received).Milliseconds(), "requestId", id)
}

// respond answers preflights itself and everything else through a route, with the API's CORS
// headers in place of any the function set.
func (e *Emulator) respond(r *http.Request, id string, received time.Time) (httpResponse, string) {
	origin := r.Header.Get("Origin")
	if e.cors != nil && isPreflight(r) {
		h := http.Header{}
		e.cors.preflight(h, origin)
		return httpResponse{status: http.StatusNoContent, header: h}, ""
	}
	res, function := e.route(r, id, received)
	if e.cors != nil {
		e.cors.apply(res.header, origin)
	}
	return res, function
}

// route invokes the function of the request's route and returns the function's logical ID.
func (e *Emulator) route(r *http.Request, id string, received time.Time) (httpResponse, string) {
	rt, params, ok := e.routes.match(r.Method, r.URL.EscapedPath())
	if !ok {
		return gatewayError(http.StatusNotFound, "Not Found"), ""
	}
	var caller *iamCaller
	if rt.iam {
		if caller = sigV4Caller(r.Header.Get("Authorization"), e.accountID); caller == nil {
			return gatewayError(http.StatusForbidden, "Forbidden"), rt.function
		}
	}
	body, err := readBody(r)
	switch {
	case errors.Is(err, errTooLarge):
		return gatewayError(http.StatusRequestEntityTooLarge, "Request Entity Too Large"), rt.function
	case err != nil:
		return gatewayError(http.StatusBadRequest, "Bad Request"), rt.function
	}
	traceRoot := newTraceRoot(received)
	// Marshal can't fail: the event holds only strings, maps of strings and numbers.
	event, _ := json.Marshal(newHTTPEvent(r, request{
		route:     rt,
		params:    params,
		body:      body,
		id:        id,
		traceRoot: traceRoot,
		accountID: e.accountID,
		received:  received,
		iam:       caller,
	}))
	out, err := e.invoke(r.Context(), e.functions[rt.function], event, traceRoot)
	switch {
	case errors.Is(err, ErrTimeout):
		return gatewayError(http.StatusGatewayTimeout, "Endpoint request timed out"), rt.function
	case err != nil:
		return gatewayError(http.StatusBadGateway, "Internal Server Error"), rt.function
	}
	res, err := decodeResponse(out)
	if err != nil {
		e.log.Error("malformed function response", "function", rt.function, "error", err)
		return gatewayError(http.StatusBadGateway, "Internal Server Error"), rt.function
	}
	return res, rt.function
}

func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > maxRequestBody {
		return nil, errTooLarge
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxRequestBody {
		return nil, errTooLarge
	}
	return body, nil
}

// gatewayError is an answer of API Gateway itself.
func gatewayError(status int, message string) httpResponse {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	body, _ := json.Marshal(map[string]string{"message": message})
	return httpResponse{status: status, header: h, body: body}
}
