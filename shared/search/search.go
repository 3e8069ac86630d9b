// Package search gives the agent web search (SERVER_SIDE_AGENT_ARCH.md §4.7): a client of
// Tavily's search API, and the Searcher the engines call, which restricts a search to the
// page's registrable domain first, widens it to the open web when that finds fewer than
// MinDomainResults results, and caches results per tenant for a short while. Summarize turns
// results into prompt text within a token budget, delimited as untrusted web content.
package search

import (
	"errors"
	"fmt"
)

// Scope says where a search looked.
type Scope string

// Scopes of Results.
const (
	// ScopeDomain: restricted to the page's registrable domain.
	ScopeDomain Scope = "domain"
	// ScopeWeb: the open web, either because the page has no domain to restrict to or because
	// the domain gave fewer than MinDomainResults results.
	ScopeWeb Scope = "web"
)

// Request is one search the engine asks for.
type Request struct {
	// TenantID scopes the cache; TaskID names the task in log lines.
	TenantID string
	TaskID   string
	Query    string
	// PageURL is the page the task is on; its registrable domain restricts the first search.
	PageURL string
	// MaxResults is 1 to MaxResultsLimit; 0 means DefaultMaxResults.
	MaxResults int
}

// Item is one search result.
type Item struct {
	Title   string  `json:"title"`
	URL     string  `json:"url"`
	Content string  `json:"content"`
	Score   float64 `json:"score"`
}

// Results is what a search found. Domain is the registrable domain the search was first
// restricted to ("" when the page had none); Scope is where the Items come from. Widened
// results list the domain's own results first.
type Results struct {
	Query  string `json:"query"`
	Scope  Scope  `json:"scope"`
	Domain string `json:"domain,omitempty"`
	Items  []Item `json:"items"`
	// Cached is true when the results came from the cache rather than the search service.
	Cached bool `json:"cached"`
}

// ErrUnavailable is matched (errors.Is) by every error a search returns because the search
// service gave no results: not configured, down, refusing, or out of time. The engine logs it
// and tells the model the search failed; it never fails the step.
var ErrUnavailable = errors.New("web search unavailable")

// ErrNotConfigured is matched when no search API key is configured.
var ErrNotConfigured = errors.New("web search not configured")

// ErrInvalidQuery is matched when a request has no query (or no tenant) to search for.
var ErrInvalidQuery = errors.New("invalid search request")

// Error is a failed call of the search service. Its text never holds the API key, nor more of
// a response than the service's short error message.
type Error struct {
	// StatusCode is the last HTTP status received, 0 when no response came.
	StatusCode int
	// Attempts counts the HTTP calls made.
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	msg := "web search failed"
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap makes every Error match ErrUnavailable, and its cause.
func (e *Error) Unwrap() []error { return []error{ErrUnavailable, e.Err} }
