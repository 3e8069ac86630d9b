package ingest

import (
	"strings"

	"golang.org/x/net/html"
)

// skipped elements hold no readable text: code, styles, embedded media and templates. <head>
// is not among them, because its end tag is optional and often left out; what it holds is
// skipped anyway (scripts, styles) or is the title.
var skipped = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "svg": true, "math": true,
	"iframe": true, "object": true, "canvas": true,
}

// blockElements end the paragraph they appear in.
var blockElements = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true,
	"footer": true, "nav": true, "aside": true, "blockquote": true, "pre": true, "ul": true,
	"ol": true, "li": true, "dl": true, "dt": true, "dd": true, "table": true, "thead": true,
	"tbody": true, "tfoot": true, "tr": true, "figure": true, "figcaption": true, "form": true,
	"fieldset": true, "address": true, "details": true, "summary": true, "hr": true, "body": true,
}

var headingLevels = map[string]int{"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}

// htmlBlocks turns HTML into headings and paragraphs of plain text with the x/net/html
// tokenizer: script, style and similar elements are dropped, whitespace is collapsed except in
// <pre>, list items start with "- " and <br> breaks a line. The title is <title>, else the
// first <h1>.
func htmlBlocks(src string) (title string, blocks []block) {
	z := html.NewTokenizer(strings.NewReader(src))
	var (
		buf        strings.Builder
		skipDepth  int
		preDepth   int
		inTitle    bool
		docTitle   strings.Builder
		headLevel  int
		firstH1    string
		paraBlocks []block
	)
	flush := func() {
		text := strings.TrimSpace(buf.String())
		buf.Reset()
		if text == "" {
			return
		}
		if headLevel > 0 {
			text = strings.Join(strings.Fields(text), " ")
			if headLevel == 1 && firstH1 == "" {
				firstH1 = text
			}
			paraBlocks = append(paraBlocks, block{kind: heading, level: headLevel, text: text})
			return
		}
		if preDepth == 0 {
			text = collapseLines(text)
		}
		paraBlocks = append(paraBlocks, block{kind: paragraph, text: text})
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		name, _ := z.TagName()
		tag := string(name)
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			switch {
			case tag == "title":
				inTitle = tt == html.StartTagToken
			case skipped[tag]:
				if tt == html.StartTagToken {
					skipDepth++
				}
			case skipDepth > 0:
			case headingLevels[tag] > 0:
				flush()
				headLevel = headingLevels[tag]
			case tag == "br":
				buf.WriteString("\n")
			case tag == "td" || tag == "th":
				buf.WriteString(" ")
			case blockElements[tag]:
				flush()
				if tag == "pre" && tt == html.StartTagToken {
					preDepth++
				}
				if tag == "li" {
					buf.WriteString("- ")
				}
			}
		case html.EndTagToken:
			switch {
			case tag == "title":
				inTitle = false
			case skipped[tag]:
				skipDepth = max(skipDepth-1, 0)
			case skipDepth > 0:
			case headingLevels[tag] > 0 && headLevel > 0:
				flush()
				headLevel = 0
			case blockElements[tag]:
				flush()
				if tag == "pre" {
					preDepth = max(preDepth-1, 0)
				}
			}
		case html.TextToken:
			text := string(z.Text())
			switch {
			case inTitle:
				docTitle.WriteString(text)
			case skipDepth > 0:
			case preDepth > 0:
				buf.WriteString(text)
			default:
				writeCollapsed(&buf, text)
			}
		}
	}
	flush()
	title = strings.Join(strings.Fields(docTitle.String()), " ")
	if title == "" {
		title = firstH1
	}
	return title, paraBlocks
}

// writeCollapsed writes text with each run of whitespace as one space, as a browser shows it.
func writeCollapsed(b *strings.Builder, text string) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		if text != "" {
			b.WriteString(" ")
		}
		return
	}
	if isSpace(text[0]) {
		b.WriteString(" ")
	}
	b.WriteString(strings.Join(fields, " "))
	if isSpace(text[len(text)-1]) {
		b.WriteString(" ")
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// collapseLines leaves one space between words and drops empty lines: text from adjacent
// tokens can meet with a space on each side.
func collapseLines(text string) string {
	var lines []string
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}
