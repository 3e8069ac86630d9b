package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/search"
	"github.com/screenagent/backend/shared/search/searchtest"
	"github.com/screenagent/backend/shared/tasks"
)

func withSearch(t *testing.T, f *fixture) *searchtest.Server {
	t.Helper()
	fake := searchtest.New(t)
	client, err := search.NewClient(search.Options{BaseURL: fake.URL(), APIKey: searchtest.Key, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.engine.Search = search.NewSearcher(client, nil, nil)
	return fake
}

func TestGoogleSearchRunsOnTheServerWithinTheStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fake := withSearch(t, f)
	fake.Add("Dune first edition year",
		searchtest.Result{Title: "Dune (novel)", URL: "https://en.wikipedia.org/wiki/Dune_(novel)", Content: "Dune was first published in 1965 by Chilton Books.", Score: 0.9})
	f.llm.Reply(reply("I need the year of the first edition.", `googleSearch("Dune first edition year")`))
	f.llm.Reply(reply("It was 1965.", `finish("Dune was first published in 1965")`))

	r := f.step(t, Request{Query: "When was Dune first published?"})
	if r.Action != `finish("Dune was first published in 1965")` || r.ToolAction.ToolType != "DOM" || f.llm.Calls() != 2 {
		t.Fatalf("step = %s (%s) after %d LLM calls; want the finish within one request and 2 calls", r.Action, r.ToolAction.ToolType, f.llm.Calls())
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || len(reqs[0].IncludeDomains) != 1 || reqs[0].IncludeDomains[0] != "shop.example" || len(reqs[1].IncludeDomains) != 0 {
		t.Errorf("search requests = %+v; want the page's domain first, then the open web (fewer than 3 results)", reqs)
	}
	second := f.llm.Requests()[1].Messages
	if got := second[len(second)-1].Content; !strings.Contains(got, "SERVER TOOL RESULT:") || !strings.Contains(got, "first published in 1965") {
		t.Errorf("the second call lacks the results: %q", got)
	}
}

func TestAFailedSearchNeverFailsTheStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fake := withSearch(t, f)
	fake.Fail(500)
	fake.Fail(500)
	fake.Fail(500)
	f.llm.Reply(reply("Let me look it up.", `googleSearch("Dune first edition year")`))
	f.llm.Reply(reply("The search failed; I'll ask.", `askUser("Do you know the year?")`))
	r := f.step(t, Request{Query: "When was Dune first published?"})
	if r.Status != StatusNeedsUserInput {
		t.Fatalf("status = %s, want the step to go on to the model's question", r.Status)
	}
	second := f.llm.Requests()[1].Messages
	if got := second[len(second)-1].Content; !strings.Contains(got, "the web search failed") {
		t.Errorf("the model was not told the search failed: %q", got)
	}
}

func TestSearchResultsStayInTheTasksContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fake := withSearch(t, f)
	fake.Add("wool sock sizes", searchtest.Result{Title: "Size chart", URL: "https://shop.example/sizes", Content: "EU 42 is size L.", Score: 0.8})
	f.llm.Reply(reply("Checking sizes.", `googleSearch("wool sock sizes")`))
	f.llm.Reply("<Missing>\nyour shoe size\n</Missing>\n" + reply("I need your size.", `askUser("What is your shoe size?")`))
	r := f.step(t, Request{})
	if len(r.MissingInformation) != 1 || r.MissingInformation[0] != "your shoe size" {
		t.Errorf("missingInformation = %q, want the <Missing> line", r.MissingInformation)
	}
	f.llm.Reply(reply("Size L.", "click(2)"))
	f.step(t, Request{TaskID: r.TaskID, Query: "42", Report: &tasks.Report{Status: "success"}})
	if p := f.llm.Requests()[2].User(); !strings.Contains(p, `Web search "wool sock sizes"`) || !strings.Contains(p, "EU 42 is size L.") {
		t.Errorf("the next step's prompt lacks the search results:\n%s", p)
	}
}
