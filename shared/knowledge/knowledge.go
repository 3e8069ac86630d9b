// Package knowledge is the retrieval of organization knowledge for the page a user is on
// (SERVER_SIDE_AGENT_ARCH.md §1.4, §4.5, §5): the tenant's allowed domains decide whether org
// knowledge is looked up at all, and a Source (the built-in store or an external extraction
// service) returns the chunks. GET /api/knowledge/resolve and POST /api/agent/interact both go
// through Service.Resolve.
//
// Allowed domains are a filter, never an access check: a URL whose host matches none of the
// tenant's patterns gets public-only knowledge (no org lookup, HasOrgKnowledge false), not an
// error.
package knowledge

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/validation"
)

// Chunk is a piece of knowledge as the wire contracts carry it (BROWSER_AUTOMATION_RESOLVE_SCHEMA.md
// §3.2): the resolve route's context and the extraction service's.
type Chunk struct {
	ID            string         `json:"id"`
	Content       string         `json:"content"`
	DocumentTitle string         `json:"documentTitle"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// Citation names where a chunk came from (BROWSER_AUTOMATION_RESOLVE_SCHEMA.md §3.3). Page is
// omitted when unknown; pages count from 1.
type Citation struct {
	DocumentID    string `json:"documentId"`
	DocumentTitle string `json:"documentTitle"`
	Section       string `json:"section,omitempty"`
	Page          int    `json:"page,omitempty"`
}

// Document is a file ingested into the built-in store for one domain pattern of a tenant.
// Within its domain a document is identified by its source file name, so ingesting a file of
// the same name again replaces it.
type Document struct {
	ID     string
	Domain string // a Pattern in canonical form: the knowledge applies to the hosts it matches
	Title  string
	Source string // the file name it was ingested from
	Format string
	Bytes  int
	// Chunks are the document's text; listings leave them out and give ChunkCount only.
	Chunks     []DocChunk
	ChunkCount int
	IngestedAt time.Time
}

// DocChunk is one chunk of a document: a heading's text up to the chunk size cap.
type DocChunk struct {
	Section  string // the nearest heading above the text, if any
	Page     int    // from 1 where the source has pages (form feeds in plain text), else 0
	Position int    // the chunk's place in the document, from 1
	Content  string
}

// StoredChunk is a chunk as the built-in store returns it for ranking.
type StoredChunk struct {
	DocumentID    string
	DocumentTitle string
	Source        string
	DocChunk
}

// ID is the chunk's stable identifier: the document's ID and the chunk's position.
func (c StoredChunk) ID() string {
	return c.DocumentID + "_c" + strconv.Itoa(c.Position)
}

// DocumentID is the ID of the document ingested from a file of that name into domain: a hash,
// so that ingesting the same file again finds the same document.
func DocumentID(domain, source string) string {
	sum := sha256.Sum256([]byte(domain + "\n" + source))
	return "doc_" + hex.EncodeToString(sum[:8])
}

// Limits of the built-in store. A lookup loads every chunk of the matching domain patterns and
// ranks them in memory, which suits small corpora: at the cap, 2,000 chunks of 1,200 characters
// are about 2.4 MB read (some 300 read units) and 50 ms of ranking on one core, a few times that
// on a 512 MB Lambda (BenchmarkRankDomainCap). Larger corpora belong in an external extraction
// service (KNOWLEDGE_SERVICE_URL).
const (
	// MaxChunkRunes caps a chunk's length in characters.
	MaxChunkRunes = 1200
	// MaxChunksPerDomain caps the chunks of all documents of one domain pattern of a tenant.
	MaxChunksPerDomain = 2000
	// DefaultTopK is how many chunks a lookup returns.
	DefaultTopK = 5
	// MaxQueryLength is the longest query accepted (DESIGN.md "Limits").
	MaxQueryLength = 10000
	// MaxURLLength is the longest URL accepted.
	MaxURLLength = 8192
)

// Sentinel errors of the stores.
var (
	ErrNotFound      = errors.New("knowledge: not found")
	ErrDomainExists  = errors.New("knowledge: domain pattern already allowed")
	ErrTooManyChunks = errors.New("knowledge: too many chunks for one domain")
	ErrConflict      = errors.New("knowledge: document changed concurrently")
)

// ValidationError is the package's input rejection (validation.Error): it names the field and
// why, and maps to 400 VALIDATION_ERROR at the HTTP edge.
type ValidationError = validation.Error

func invalid(field, reason string) error {
	return &ValidationError{Field: field, Reason: reason}
}

// maxTenantIDLength bounds a tenant ID from outside (the extraction route's X-Tenant-ID).
const maxTenantIDLength = 128

// ValidTenantID reports whether id can scope keys: 1 to 128 ASCII letters, digits and
// "-_.:@". Keys join their parts with "#", so a tenant ID must never contain one.
func ValidTenantID(id string) bool {
	if id == "" || len(id) > maxTenantIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:@", c) >= 0) {
			return false
		}
	}
	return true
}
