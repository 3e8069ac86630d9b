package emulator

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// functionResponse is payload format 2.0's structured response.
type functionResponse struct {
	StatusCode        int                 `json:"statusCode"`
	Headers           map[string]string   `json:"headers"`
	MultiValueHeaders map[string][]string `json:"multiValueHeaders"`
	Cookies           []string            `json:"cookies"`
	Body              string              `json:"body"`
	IsBase64Encoded   bool                `json:"isBase64Encoded"`
}

// httpResponse is what goes back to the client.
type httpResponse struct {
	status int
	header http.Header
	body   []byte
}

// decodeResponse turns a function's output into the HTTP response HTTP API would send. Output
// without a statusCode is, as HTTP API assumes, a 200 JSON body as it stands.
func decodeResponse(out []byte) (httpResponse, error) {
	if !json.Valid(out) {
		return httpResponse{}, errors.New("function output is not JSON")
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(out, &probe) != nil || probe["statusCode"] == nil {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		return httpResponse{status: http.StatusOK, header: h, body: out}, nil
	}
	var fr functionResponse
	if err := json.Unmarshal(out, &fr); err != nil {
		return httpResponse{}, fmt.Errorf("function response: %w", err)
	}
	if fr.StatusCode < 100 || fr.StatusCode > 599 {
		return httpResponse{}, fmt.Errorf("function response: statusCode %d", fr.StatusCode)
	}
	body := []byte(fr.Body)
	if fr.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(fr.Body); err != nil {
			return httpResponse{}, fmt.Errorf("function response body: %w", err)
		}
	}
	h := http.Header{}
	for k, vs := range fr.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for k, v := range fr.Headers {
		h.Add(k, v)
	}
	for _, c := range fr.Cookies {
		h.Add("Set-Cookie", c)
	}
	return httpResponse{status: fr.StatusCode, header: h, body: body}, nil
}
