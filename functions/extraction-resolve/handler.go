package main

import (
	"context"
	"log/slog"
	"net/http"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/knowledge/extraction"
)

type source interface {
	Retrieve(ctx context.Context, r knowledge.Request) (knowledge.Retrieval, error)
}

// newHandler implements the contract exactly: 200 {context, citations}; 400, 401 and 500 with
// {error, detail}. The tenant is the X-Tenant-ID header, which only IAM-authorized callers can
// send; the allowed-domain filter is the caller's business (§5 of the schema), so every
// knowledge stored for the URL's host is searched.
func newHandler(src source, authorized func(*http.Request) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			fail(w, http.StatusUnauthorized, "Unauthorized", "IAM authorization is required")
			return
		}
		tenantID := r.Header.Get(extraction.TenantHeader)
		if tenantID == "" {
			fail(w, http.StatusUnauthorized, "Unauthorized", "X-Tenant-ID header is required")
			return
		}
		if !knowledge.ValidTenantID(tenantID) {
			fail(w, http.StatusUnauthorized, "Unauthorized", "X-Tenant-ID must be 1 to 128 letters, digits or -_.:@")
			return
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("tenantId", tenantID))
		q := r.URL.Query()
		rawURL, query := q.Get("url"), q.Get("query")
		host, err := knowledge.HostOf(rawURL)
		if err != nil {
			fail(w, http.StatusBadRequest, "Invalid url", err.Error())
			return
		}
		if utf8.RuneCountInString(query) > knowledge.MaxQueryLength {
			fail(w, http.StatusBadRequest, "Invalid query", "query must be at most 10000 characters")
			return
		}
		res, err := src.Retrieve(r.Context(), knowledge.Request{TenantID: tenantID, URL: rawURL, Host: host, Query: query})
		if err != nil {
			httpapi.AddLogAttrs(r.Context(), slog.String("error", err.Error()))
			fail(w, http.StatusInternalServerError, "Internal error", "knowledge retrieval failed")
			return
		}
		httpapi.AddLogAttrs(r.Context(), slog.Group("knowledge",
			slog.String("domain", host), slog.Int("chunkCount", len(res.Chunks)), slog.Int("chunksConsidered", res.Considered)))
		body := extraction.Response{Context: res.Chunks, Citations: res.Citations}
		if body.Context == nil {
			body.Context = []knowledge.Chunk{}
		}
		if body.Citations == nil {
			body.Citations = []knowledge.Citation{}
		}
		httpapi.WriteJSON(w, http.StatusOK, body)
	})
}

func fail(w http.ResponseWriter, status int, msg, detail string) {
	httpapi.WriteJSON(w, status, extraction.ErrorBody{Error: msg, Detail: detail})
}
