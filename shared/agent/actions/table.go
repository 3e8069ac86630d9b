package actions

import (
	"time"

	"github.com/screenagent/backend/shared/actionbatch"
)

// table is the action grammar. Everything else in the package derives from it; a new action,
// such as another server-side tool, is one more entry (and its case in the engine's runServerTool).
var table = []Spec{
	{Name: "click", Args: []ArgSpec{elementID}, Handler: DOM, Batch: actionbatch.Leaves, ToggleInPage: true, Description: "Click the element with this id."},
	{Name: "setValue", Args: []ArgSpec{elementID, {Name: "text", Kind: KindText, AllowEmpty: true}}, Handler: DOM, Batch: actionbatch.InPage, Description: `Replace the value of the input, textarea or select with this id by the text ("" clears it), firing input and change events; a select takes an option's text.`},
	{Name: "search", Args: []ArgSpec{text("query")}, Handler: DOM, Description: "Type the query into the page's search box and submit it."},
	{Name: "scroll", Args: []ArgSpec{{Name: "direction", Kind: KindChoice, Choices: []string{"up", "down"}}}, Handler: DOM, Description: "Scroll the page by one screen."},
	{Name: "navigate", Args: []ArgSpec{{Name: "url", Kind: KindURL}}, Handler: DOM, Description: "Open the URL in the current tab."},
	{Name: "pressKey", Args: []ArgSpec{{Name: "key", Kind: KindChoice, Choices: keys}}, Handler: DOM, Batch: actionbatch.Leaves, Description: "Press a key on the focused element."},
	{Name: "dismissDialog", Handler: DOM, Description: "Dismiss the browser's own alert, confirm or prompt dialog that blocks the page (for dialogs drawn by the page, click their close button)."},
	{Name: "wait", Args: []ArgSpec{{Name: "seconds", Kind: KindSeconds, Min: 500 * time.Millisecond, Max: 30 * time.Second}}, Handler: DOM, Description: "Wait for the page to load or change."},
	{Name: "askUser", Args: []ArgSpec{text("question")}, Handler: DOM, Effect: AsksUser, Description: "Ask the user for something only they know (a missing detail, a choice, credentials); the task pauses until they answer."},
	// verifySuccess goes to the extension as a checkpoint that changes nothing on the page: the next
	// request brings the fresh page, on which the model confirms success before finish().
	{Name: "verifySuccess", Args: []ArgSpec{text("description")}, Handler: DOM, Description: "Check on the current page that the task succeeded as described; required before finish() when an earlier step failed and none was verified since."},
	// extractValue runs on the server: the value is kept with the task and the model is asked
	// again within the same request.
	{Name: "extractValue", Args: []ArgSpec{text("key"), {Name: "value", Kind: KindText, AllowEmpty: true}}, Handler: Server, Description: `Remember a value read on the page for later steps (runs on the server, then you choose the next action); an action uses it as useVariable("key") in place of a string, e.g. setValue(4, useVariable("title")).`},
	// googleSearch runs on the server (Tavily): the results come back to the model within the
	// same request.
	{Name: "googleSearch", Args: []ArgSpec{text("query")}, Handler: Server, Description: `Search the web for facts neither the page nor the task gives, with a precise query (names, terms; not "how to …"); runs on the server, then you choose the next action with its results.`},
	{Name: "finish", Args: []ArgSpec{optional(text("result"))}, Handler: DOM, Effect: Completes, Description: `The task is done; when the user asked for information, give the answer as the result, e.g. finish("The price is $10.99").`},
	{Name: "fail", Args: []ArgSpec{optional(text("reason"))}, Handler: DOM, Effect: Fails, Description: "The task cannot be done; say why."},
}

// keys are the key names pressKey accepts: KeyboardEvent.key values of the keys that act on a
// page without typing text (text goes through setValue).
var keys = []string{
	"Enter", "Tab", "Escape", "Backspace", "Delete",
	"ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight",
	"Home", "End", "PageUp", "PageDown",
}

var elementID = ArgSpec{Name: "id", Kind: KindElement}

// text is a required, non-empty string argument.
func text(name string) ArgSpec { return ArgSpec{Name: name, Kind: KindText} }

func optional(a ArgSpec) ArgSpec {
	a.Optional = true
	return a
}
