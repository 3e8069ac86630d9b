package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/knowledge"
)

func parseFile(t *testing.T, name string) knowledge.Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(name, data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return doc
}

func TestParseMarkdown(t *testing.T) {
	doc := parseFile(t, "expense-policy.md")
	if doc.Title != "Expense Policy" || doc.Format != Markdown || doc.Source != "expense-policy.md" || doc.ChunkCount != 4 {
		t.Errorf("got title %q format %q source %q chunks %d, want Expense Policy, markdown, expense-policy.md, 4",
			doc.Title, doc.Format, doc.Source, doc.ChunkCount)
	}
	want := []knowledge.DocChunk{
		{Section: "Expense Policy", Position: 1, Content: "Applies to every employee."},
		{Section: "Submission", Position: 2, Content: "To submit an expense, go to Finance > Submit.\nAttach the receipt as a PDF."},
		{Section: "Limits", Position: 3, Content: "Meals up to 50 euros a day.\n\n```\n# not a heading, code\n```"},
		{Section: "Travel", Position: 4, Content: "Book flights through the travel portal."},
	}
	if !reflect.DeepEqual(doc.Chunks, want) {
		t.Errorf("got chunks\n%#v\nwant\n%#v", doc.Chunks, want)
	}
}

func TestParseMarkdownTitleFallbacks(t *testing.T) {
	doc, err := Parse("notes.md", []byte("---\ntitle: 'Team Notes'\n---\n## Only a subheading\n\ntext\n"))
	if err != nil || doc.Title != "Team Notes" {
		t.Errorf("title = %q, %v; want the front matter's Team Notes", doc.Title, err)
	}
	doc, err = Parse("plain-notes.markdown", []byte("just text\n"))
	if err != nil || doc.Title != "plain-notes" || doc.Chunks[0].Section != "" {
		t.Errorf("title = %q section %q, %v; want the file name and no section", doc.Title, doc.Chunks[0].Section, err)
	}
}

func TestParseHTML(t *testing.T) {
	doc := parseFile(t, "handbook.html")
	if doc.Title != "Employee Handbook" || doc.Format != HTML {
		t.Errorf("got title %q format %q, want Employee Handbook, html", doc.Title, doc.Format)
	}
	want := []knowledge.DocChunk{
		{Section: "", Position: 1, Content: "Home | About"},
		{Section: "Welcome", Position: 2, Content: "Hello and welcome & enjoy."},
		{Section: "Vacation days", Position: 3, Content: "- 25 days a year\n\n- Ask your manager\n\nline 1\n  line 2\n\nStart 9:00\n\nLine\nbreak"},
	}
	if !reflect.DeepEqual(doc.Chunks, want) {
		t.Errorf("got chunks\n%#v\nwant\n%#v", doc.Chunks, want)
	}
	for _, c := range doc.Chunks {
		for _, hidden := range []string{"secret", "color", "JavaScript", "chart label"} {
			if strings.Contains(c.Content, hidden) {
				t.Errorf("chunk %d has %q from a script, style, noscript or svg element", c.Position, hidden)
			}
		}
	}
}

func TestParseHTMLTitleFromH1(t *testing.T) {
	doc, err := Parse("page.htm", []byte("<h1>Refund <b>rules</b></h1><p>Within 30 days.</p>"))
	if err != nil || doc.Title != "Refund rules" || doc.Chunks[0].Section != "Refund rules" {
		t.Errorf("got title %q chunks %+v, %v; want Refund rules", doc.Title, doc.Chunks, err)
	}
}

func TestParseTextPages(t *testing.T) {
	doc := parseFile(t, "report.txt")
	want := []knowledge.DocChunk{
		{Page: 1, Position: 1, Content: "Page one text.\n\nSecond paragraph."},
		{Page: 2, Position: 2, Content: "Page two text."},
		{Page: 4, Position: 3, Content: "Page four."},
	}
	if doc.Title != "report" || !reflect.DeepEqual(doc.Chunks, want) {
		t.Errorf("got title %q chunks %#v, want report and %#v", doc.Title, doc.Chunks, want)
	}
	doc, err := Parse("flat.txt", []byte("no pages here"))
	if err != nil || doc.Chunks[0].Page != 0 {
		t.Errorf("text without form feeds: page %d, %v; want 0", doc.Chunks[0].Page, err)
	}
}

func TestChunksRespectTheCap(t *testing.T) {
	sentence := "This sentence is about expense reports and takes some room. "
	long := strings.Repeat(sentence, 60) // ~3,700 characters in one paragraph
	word := strings.Repeat("x", 3000)    // no place to cut at all
	doc, err := Parse("long.md", []byte("# Long\n\n"+long+"\n\nshort tail\n\n"+word))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, c := range doc.Chunks {
		n := utf8.RuneCountInString(c.Content)
		if n > knowledge.MaxChunkRunes || n == 0 {
			t.Errorf("chunk %d has %d characters, want 1 to %d", i+1, n, knowledge.MaxChunkRunes)
		}
		if c.Position != i+1 || c.Section != "Long" {
			t.Errorf("chunk %d: position %d section %q, want %d and Long", i+1, c.Position, c.Section, i+1)
		}
		total += strings.Count(c.Content, "expense")
	}
	if total != 60 {
		t.Errorf("chunks hold %d of the 60 sentences, want all", total)
	}
	// Sentence-long pieces: every chunk of the long paragraph ends at a sentence end.
	if first := doc.Chunks[0].Content; !strings.HasSuffix(first, "room.") {
		t.Errorf("first chunk ends %q, want a sentence end", first[len(first)-20:])
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"a.pdf", []byte("%PDF"), "a.pdf: unsupported file type"},
		{"a.md", []byte{0xff, 0xfe, 'x'}, "a.md: not UTF-8 text"},
		{"a.txt", []byte("a\x00b"), "a.txt: contains NUL bytes"},
		{"a.md", []byte("# Only a heading\n\n   \n"), "a.md: no text to ingest"},
		{"a.html", []byte("<script>x()</script>"), "a.html: no text to ingest"},
		{"a.txt", make([]byte, MaxFileBytes+1), "a.txt: file is larger than 5 MiB"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.name, tt.data)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%s) error = %v, want %q...", tt.name, err, tt.want)
		}
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]string{"a.md": Markdown, "A.MARKDOWN": Markdown, "b.txt": Text, "c.text": Text, "d.HTML": HTML, "e.htm": HTML} {
		if got, err := FormatOf(name); err != nil || got != want {
			t.Errorf("FormatOf(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
}

// checkChunks is what every parse must give: chunks of 1 to MaxChunkRunes characters of valid
// UTF-8 without surrounding space, numbered from 1.
func checkChunks(t *testing.T, doc knowledge.Document) {
	t.Helper()
	for i, c := range doc.Chunks {
		n := utf8.RuneCountInString(c.Content)
		switch {
		case n == 0 || n > knowledge.MaxChunkRunes:
			t.Fatalf("chunk %d has %d characters", i+1, n)
		case !utf8.ValidString(c.Content):
			t.Fatalf("chunk %d is not valid UTF-8", i+1)
		case strings.TrimSpace(c.Content) != c.Content:
			t.Fatalf("chunk %d has surrounding space: %q", i+1, c.Content)
		case c.Position != i+1:
			t.Fatalf("chunk %d has position %d", i+1, c.Position)
		}
	}
	if doc.ChunkCount != len(doc.Chunks) || doc.Title == "" {
		t.Fatalf("ChunkCount %d for %d chunks, title %q", doc.ChunkCount, len(doc.Chunks), doc.Title)
	}
}

func FuzzParseHTML(f *testing.F) {
	for _, s := range []string{"<h1>T</h1><p>x</p>", "<pre> a\n b</pre>", "<script>x", "<svg><p>a</svg>b", "<title>t</title><li>a<li>b", "a<br>b&amp;c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		doc, err := Parse("f.html", []byte(src))
		if err != nil {
			return
		}
		checkChunks(t, doc)
	})
}

func FuzzParseMarkdown(f *testing.F) {
	for _, s := range []string{"# A\n\ntext", "A\n===\nb", "```\n# x\n```", "---\ntitle: x\n---\nbody", strings.Repeat("word ", 400), "a\fb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, name := range []string{"f.md", "f.txt"} {
			doc, err := Parse(name, []byte(src))
			if err != nil {
				continue
			}
			checkChunks(t, doc)
		}
	})
}
