package chat

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sizes of what a message keeps of its page.
const (
	// SnapshotMinRunes: pages of at most this many characters get no snapshot; their summary is enough.
	SnapshotMinRunes = 1000
	// SummaryMaxRunes bounds Message.DOMSummary.
	SummaryMaxRunes = 200
	// maxDOMBytes bounds decompression: the API accepts 500,000 characters, at most 4 bytes each.
	maxDOMBytes = 4 * 500_000
)

// Snapshot is a stored page: gzip-compressed, named by the SHA-256 of its text so that a page
// seen twice in a session is stored once.
type Snapshot struct {
	// ID is the lower-case hex SHA-256 of the page's UTF-8 text.
	ID   string
	Gzip []byte
	// Length is the page's length in characters.
	Length int
}

// DOMCapture is what a message keeps of the page it was written on.
type DOMCapture struct {
	Summary string
	Length  int
	// SnapshotID names the page's snapshot; it is empty for small pages and for pages too large
	// to store (Omitted says so).
	SnapshotID string
	Omitted    string
	// Snapshot is the snapshot still to be written, nil when there is none or it is stored already.
	Snapshot *Snapshot
}

// CaptureDOM summarizes a page and, when it is over SnapshotMinRunes characters, compresses it
// into a Snapshot; a compressed page over maxCompressed bytes is not kept (Omitted).
func CaptureDOM(dom string, maxCompressed int) (DOMCapture, error) {
	c := DOMCapture{Summary: SummarizeDOM(dom), Length: utf8.RuneCountInString(dom)}
	if c.Length <= SnapshotMinRunes {
		return c, nil
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := io.WriteString(zw, dom); err != nil {
		return DOMCapture{}, fmt.Errorf("compress page: %w", err)
	}
	if err := zw.Close(); err != nil {
		return DOMCapture{}, fmt.Errorf("compress page: %w", err)
	}
	if buf.Len() > maxCompressed {
		c.Omitted = OmittedTooLarge
		return c, nil
	}
	sum := sha256.Sum256([]byte(dom))
	c.SnapshotID = hex.EncodeToString(sum[:])
	c.Snapshot = &Snapshot{ID: c.SnapshotID, Gzip: buf.Bytes(), Length: c.Length}
	return c, nil
}

// DOM decompresses the snapshot and checks it against its ID.
func (s Snapshot) DOM() (string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(s.Gzip))
	if err != nil {
		return "", fmt.Errorf("decompress snapshot %s: %w", s.ID, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxDOMBytes+1))
	if err != nil {
		return "", fmt.Errorf("decompress snapshot %s: %w", s.ID, err)
	}
	if len(data) > maxDOMBytes {
		return "", fmt.Errorf("decompress snapshot %s: over %d bytes", s.ID, maxDOMBytes)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != s.ID {
		return "", fmt.Errorf("decompress snapshot %s: %w", s.ID, errors.New("content does not match its hash"))
	}
	return string(data), nil
}

// summaryScanRunes bounds how much of a page SummarizeDOM reads: enough text for a summary
// even when markup dominates, without walking a 500,000-character page.
const summaryScanRunes = 64 * SummaryMaxRunes

// SummarizeDOM returns the start of the page's text, markup removed, white space collapsed, at
// most SummaryMaxRunes characters.
func SummarizeDOM(dom string) string {
	var b strings.Builder
	inTag, scanned, text := false, 0, 0
	for _, r := range dom {
		if scanned++; scanned > summaryScanRunes || text > SummaryMaxRunes {
			break
		}
		switch {
		case r == '<':
			inTag = true
			b.WriteByte(' ')
		case r == '>' && inTag:
			inTag = false
		case !inTag:
			b.WriteRune(r)
			if !unicode.IsSpace(r) {
				text++
			}
		}
	}
	if s := Shorten(b.String(), SummaryMaxRunes); s != "" {
		return s
	}
	// Markup only: its start says more than nothing.
	return Shorten(dom[:min(len(dom), 4*summaryScanRunes)], SummaryMaxRunes)
}

// ValidSnapshotID reports whether id has the shape of a Snapshot.ID.
func ValidSnapshotID(id string) bool {
	if len(id) != 2*sha256.Size {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
