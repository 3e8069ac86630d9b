package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// MaxBodyBytes caps every request body (1 MiB).
const MaxBodyBytes = 1 << 20

// ReadBody reads the request body up to MaxBodyBytes; a larger body is 413 PAYLOAD_TOO_LARGE.
func ReadBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, Wrap(CodeInvalidRequest, "The request body could not be read.", err)
	}
	if len(body) > MaxBodyBytes {
		return nil, &Error{
			Code:    CodePayloadTooLarge,
			Message: fmt.Sprintf("The request body exceeds %d bytes.", MaxBodyBytes),
			Details: map[string]any{"field": "body", "reason": fmt.Sprintf("larger than %d bytes", MaxBodyBytes)},
		}
	}
	return body, nil
}

// DecodeJSON reads a JSON object body into dst. Bad JSON, a wrong type or trailing data are
// 400 VALIDATION_ERROR naming the field; a non-JSON content type is 415; an oversized body is 413.
// Unknown fields are ignored, as clients may send more than a route reads.
func DecodeJSON(r *http.Request, dst any) error {
	body, err := ReadJSONBody(r)
	if err != nil {
		return err
	}
	return Unmarshal(body, dst)
}

// ReadJSONBody checks the content type (JSON or none) and reads the body with ReadBody, for
// routes that decode the bytes themselves.
func ReadJSONBody(r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
			return nil, NewError(CodeUnsupportedMediaType, "The request body must be application/json.")
		}
	}
	return ReadBody(r)
}

// Unmarshal decodes one JSON value from body into dst with the errors of DecodeJSON.
func Unmarshal(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return Validation("body", "is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Validation("body", "must contain a single JSON value")
	}
	return nil
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return Validation(field, fmt.Sprintf("must be %s", jsonTypeName(typeErr.Type.Kind().String())))
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return Validation("body", "is not valid JSON")
	default:
		return Validation("body", "is not valid JSON")
	}
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	}
	return "of another type"
}

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 255

// IdempotencyKey reads the optional Idempotency-Key header and hashes the body's canonical JSON
// (CanonicalJSON), so that a retried request with the same key and the same content gets the
// stored response even when its client serialized it differently, and a different body under the
// same key can be refused.
func IdempotencyKey(r *http.Request, body []byte) (key, hash string, err error) {
	key = r.Header.Get("Idempotency-Key")
	if key == "" {
		return "", "", nil
	}
	if len(key) > maxIdempotencyKey || !printableASCII(key) {
		return "", "", Validation("Idempotency-Key", "must be at most 255 printable ASCII characters")
	}
	sum := sha256.Sum256(CanonicalJSON(body))
	return key, hex.EncodeToString(sum[:]), nil
}

// CanonicalJSON is body re-encoded with object keys sorted, insignificant white space removed and
// strings in one escaping, so that two encodings of the same JSON value are equal. Numbers keep
// their literal text. A body that is not one JSON value is returned as it is: it compares by its
// bytes (and its route has refused it anyway).
func CanonicalJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body
	}
	if _, err := dec.Token(); err != io.EOF {
		return body
	}
	// encoding/json writes map keys sorted.
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
