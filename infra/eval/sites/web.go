package sites

import "github.com/screenagent/backend/shared/search/searchtest"

// QuizQuestion is the people site's quiz question. Its answer is on no scenario site: only the
// open web (Web) holds it.
const QuizQuestion = "In which year did Ada Lovelace publish her notes on the Analytical Engine?"

// QuizAnswer is the year the web's answer gives.
const QuizAnswer = "1843"

// Web is the open web as the proving ground's fake search engine knows it: results by query.
// The fake answers only these queries, and filters them by domain as Tavily does, so a search
// restricted to the page's own site finds nothing and the engine has to widen it.
var Web = searchtest.Script{
	{Query: QuizQuestion, Results: []searchtest.Result{
		{Title: "Ada Lovelace — Encyclopedia of Computing", URL: "https://encyclopedia.example/ada-lovelace", Score: 0.91,
			Content: "Ada Lovelace was born in London in 1815, the daughter of Lord Byron. In " + QuizAnswer + " she published her notes on the Analytical Engine, appended to her translation of Menabrea's article; Note G describes an algorithm for the engine."},
		{Title: "Charles Babbage and the Analytical Engine", URL: "https://history.example/babbage", Score: 0.77,
			Content: "Babbage first described the Analytical Engine in 1837. It was never completed."},
		{Title: "Lovelace Day", URL: "https://events.example/lovelace-day", Score: 0.52,
			Content: "Ada Lovelace Day has been held every October since 2009."},
	}},
}
