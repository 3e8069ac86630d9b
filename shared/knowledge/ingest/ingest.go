// Package ingest turns a Markdown, plain-text or HTML file into a knowledge document: a title
// and chunks of text, each under the nearest heading and at most knowledge.MaxChunkRunes long.
//
// Chunks follow the document's structure: every heading starts a new chunk (its text becomes
// the chunk's section), and a section longer than the cap is cut between paragraphs, else
// between sentences, else between words. In plain text a form feed (which pdftotext writes
// between pages) starts a new page, and chunks then carry their page number.
package ingest

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/knowledge"
)

// The formats, named by file extension.
const (
	Markdown = "markdown"
	Text     = "text"
	HTML     = "html"
)

// MaxFileBytes bounds one file: beyond it a document would break the per-domain chunk cap anyway.
const MaxFileBytes = 5 << 20

var formats = map[string]string{
	".md": Markdown, ".markdown": Markdown,
	".txt": Text, ".text": Text,
	".html": HTML, ".htm": HTML,
}

// FormatOf returns the format of a file by its extension.
func FormatOf(name string) (string, error) {
	if f, ok := formats[strings.ToLower(path.Ext(name))]; ok {
		return f, nil
	}
	return "", fmt.Errorf("%s: unsupported file type: use .md, .markdown, .txt, .text, .html or .htm", name)
}

// Parse reads a file's content into a Document with Title, Source (name), Format, Bytes and
// Chunks set; ID and Domain are the caller's. The file must be UTF-8 text.
func Parse(name string, data []byte) (knowledge.Document, error) {
	format, err := FormatOf(name)
	if err != nil {
		return knowledge.Document{}, err
	}
	switch {
	case len(data) > MaxFileBytes:
		return knowledge.Document{}, fmt.Errorf("%s: file is larger than %d MiB", name, MaxFileBytes>>20)
	case !utf8.Valid(data):
		return knowledge.Document{}, fmt.Errorf("%s: not UTF-8 text (convert it first, e.g. with iconv)", name)
	case bytes.IndexByte(data, 0) >= 0:
		return knowledge.Document{}, fmt.Errorf("%s: contains NUL bytes, which text files don't", name)
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	var (
		title  string
		blocks []block
		paged  bool
	)
	switch format {
	case Markdown:
		title, blocks = markdownBlocks(text)
	case Text:
		blocks, paged = textBlocks(text)
	case HTML:
		title, blocks = htmlBlocks(text)
	}
	if title == "" {
		title = strings.TrimSuffix(name, path.Ext(name))
	}
	chunks := chunk(blocks, knowledge.MaxChunkRunes, paged)
	if len(chunks) == 0 {
		return knowledge.Document{}, fmt.Errorf("%s: no text to ingest", name)
	}
	return knowledge.Document{
		Title:      title,
		Source:     name,
		Format:     format,
		Bytes:      len(data),
		Chunks:     chunks,
		ChunkCount: len(chunks),
	}, nil
}

// block is a unit of a document before chunking.
type block struct {
	kind  int
	level int    // of a heading, 1 to 6
	text  string // of a heading or a paragraph
}

const (
	paragraph = iota
	heading
	pageBreak
)

// textBlocks splits plain text into paragraphs at blank lines and pages at form feeds. paged
// says whether there was any form feed, i.e. whether page numbers mean anything.
func textBlocks(text string) (blocks []block, paged bool) {
	for i, page := range strings.Split(text, "\f") {
		if i > 0 {
			blocks = append(blocks, block{kind: pageBreak})
			paged = true
		}
		blocks = append(blocks, paragraphs(page)...)
	}
	return blocks, paged
}

// paragraphs splits text at blank lines.
func paragraphs(text string) []block {
	var blocks []block
	for p := range strings.SplitSeq(text, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			blocks = append(blocks, block{kind: paragraph, text: p})
		}
	}
	return blocks
}
