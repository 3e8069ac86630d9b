package ingest

import (
	"regexp"
	"strings"
)

var (
	atxHeading    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextH1      = regexp.MustCompile(`^ {0,3}=+[ \t]*$`)
	setextH2      = regexp.MustCompile(`^ {0,3}-+[ \t]*$`)
	fence         = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	frontMatterKV = regexp.MustCompile(`^title:[ \t]*(.*?)[ \t]*$`)
)

// markdownBlocks reads Markdown's headings (ATX "# Title" and setext underlines) and its
// paragraphs, which keep their Markdown. Lines inside fenced code blocks are never headings.
// The title is the first level-1 heading, else a YAML front matter "title:", else empty.
func markdownBlocks(text string) (title string, blocks []block) {
	lines := strings.Split(text, "\n")
	lines, fmTitle := frontMatter(lines)
	var para []string
	flush := func() {
		if p := strings.TrimSpace(strings.Join(para, "\n")); p != "" {
			blocks = append(blocks, block{kind: paragraph, text: p})
		}
		para = para[:0]
	}
	addHeading := func(level int, text string) {
		flush()
		if text = strings.TrimSpace(text); text == "" {
			return
		}
		if level == 1 && title == "" {
			title = text
		}
		blocks = append(blocks, block{kind: heading, level: level, text: text})
	}
	inFence := ""
	for _, line := range lines {
		if m := fence.FindStringSubmatch(line); m != nil {
			marker := m[1][:3]
			switch {
			case inFence == "":
				inFence = marker
			case marker == inFence:
				inFence = ""
			}
			para = append(para, line)
			continue
		}
		if inFence != "" {
			para = append(para, line)
			continue
		}
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			addHeading(len(m[1]), m[2])
			continue
		}
		// A setext underline turns the paragraph's last line into a heading; "---" after a
		// blank line is a thematic break instead, and simply ends the paragraph.
		if (setextH1.MatchString(line) || setextH2.MatchString(line)) && len(para) > 0 && strings.TrimSpace(para[len(para)-1]) != "" {
			text := para[len(para)-1]
			para = para[:len(para)-1]
			level := 2
			if setextH1.MatchString(line) {
				level = 1
			}
			addHeading(level, text)
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		para = append(para, line)
	}
	flush()
	if title == "" {
		title = fmTitle
	}
	return title, blocks
}

// frontMatter removes a leading YAML front matter block and returns its title, if any.
func frontMatter(lines []string) (rest []string, title string) {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return lines, ""
	}
	for i := 1; i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
			for _, l := range lines[1:i] {
				if m := frontMatterKV.FindStringSubmatch(l); m != nil {
					title = strings.Trim(m[1], `"'`)
				}
			}
			return lines[i+1:], title
		}
	}
	return lines, ""
}
