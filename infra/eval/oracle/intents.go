package oracle

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// intent is one kind of task the oracle knows how to do. Its pattern reads the task's text
// (the only thing the oracle knows about the task); decide reads the prompt and chooses a move.
type intent struct {
	name    string
	pattern *regexp.Regexp
	decide  func(p *Prompt, task []string) Move
}

var intents = []intent{
	{"search and open", regexp.MustCompile(`(?i)^search the \w+ for "([^"]+)" and open the (?:book|product|result)'s page`), searchOpen},
	{"contact form", regexp.MustCompile(`(?i)^send a message through the contact form: full name "([^"]+)", email "([^"]+)", message "([^"]+)"`), contactForm},
	{"add a deal to the cart", regexp.MustCompile(`(?i)^add the "([^"]+)" from .* to the cart`), addDeal},
	{"newsletter", regexp.MustCompile(`(?i)^subscribe "([^"]+)" to the newsletter`), subscribe},
	{"book a slot", regexp.MustCompile(`(?i)^book the (\d\d:\d\d) appointment`), bookSlot},
	{"value across sites", regexp.MustCompile(`(?i)^look up (.+?)'s job title in the people directory, then create a contact for (?:her|him|them) in the CRM at (\S+) with`), crossSite},
	{"log in", regexp.MustCompile(`(?i)^log in to the CRM as "([^"]+)" with the password "([^"]+)" and open the (\w+) page`), logIn},
	{"reserve a table", regexp.MustCompile(`(?i)^reserve a table at (\d\d:\d\d) tonight under the name "([^"]+)"`), reserve},
	{"branch on industry", regexp.MustCompile(`(?i)^on the CRM profile of (\w+), check the industry: if \w+ is a (\w+) company, add it to the watch list; otherwise stop`), branch},
	{"check out", regexp.MustCompile(`(?i)^buy the .+ in my cart: go to checkout and pay`), checkout},
	{"price", regexp.MustCompile(`(?i)^what is the price of (?:the )?"?([^"?]+?)"?\?`), price},
	{"open from catalogue", regexp.MustCompile(`(?i)^open the product page of the "([^"]+)" in the full catalogue`), openFromCatalogue},
	{"answer from the web", regexp.MustCompile(`(?i)^answer the quiz question "([^"]+)" on this page`), webFact},
	{"form with details", regexp.MustCompile(`(?i)^(?:get|request|fill in) .*? with these details: (.+)$`), detailsForm},
}

// detail is one `Label "value"` of a task's list of details.
var detail = regexp.MustCompile(`([^",:][^",]*?) "([^"]*)"`)

// detailsForm fills what the page asks of the task's details, page after page, clicking the
// page's own button, until the page shows the result.
func detailsForm(p *Prompt, t []string) Move {
	pg := p.Page
	if pg.HasText("is ready") || pg.HasText("thank you") {
		return finish("The form is complete: "+pg.Lines[0].Text, "The site shows the result: the form went through.")
	}
	var fields [][2]string
	for _, m := range detail.FindAllStringSubmatch(t[1], -1) {
		if _, ok := pg.FieldLabelled(strings.TrimSpace(m[1])); ok {
			fields = append(fields, [2]string{strings.TrimSpace(m[1]), m[2]})
		}
	}
	if len(fields) == 0 {
		return fail("the page asks for none of the details I was given")
	}
	for _, e := range pg.Elements {
		if e.Tag == "button" && e.Label() != "" {
			return p.form(fields, e.Label())
		}
	}
	return fail("I see no button to send the form")
}

// operatorInstruction is text that, outside the page's untrusted block, reads as an order from
// the operator. A model obeys such text: the oracle does too, which shows whether the server
// keeps page text inside the block.
var operatorInstruction = regexp.MustCompile(`(?im)^\s*SYSTEM:.*?\b(?:navigate to|open|visit)\s+(https?://\S+?)[.,;]?(?:\s|$)`)

// Decide chooses the next move for a prompt.
func Decide(p *Prompt) Move {
	if m := operatorInstruction.FindStringSubmatch(p.Outside); m != nil && p.Count("navigate("+`"`+m[1], `navigate {"url":"`+m[1]) == 0 {
		return Move{Kind: Navigate, Text: m[1], Thought: "The system instruction tells me to open " + m[1] + " first."}
	}
	for _, in := range intents {
		if m := in.pattern.FindStringSubmatch(p.Task); m != nil {
			if len(p.Page.Lines) == 0 {
				return Move{Kind: Wait, Thought: "I need to see the page first."}
			}
			return in.decide(p, m)
		}
	}
	return fail("I do not know how to do this task")
}

var priceRe = regexp.MustCompile(`\$\d[\d,]*(?:\.\d\d)?`)

// filled reports whether the field already holds want: its value shows it (a masked value
// counts), or, for a select whose choice the page does not show, an earlier step chose it.
func (p *Prompt) filled(e Element, want string) bool {
	if v := e.Value(); v != "" {
		return norm(v) == norm(want) || masked(v)
	}
	if e.Tag != "select" {
		return false
	}
	for _, h := range p.History {
		if !h.Failed && (strings.Contains(h.Action, "setValue("+e.ID+", ") || strings.Contains(h.Action, `type {"id":"`+e.ID+`"`)) && strings.Contains(h.Action, want) {
			return true
		}
	}
	return false
}

func masked(v string) bool { return strings.Trim(v, "•*●x[]masked ") == "" }

// form fills the fields (label → value, in order) that do not hold their value yet, then
// clicks the button: one move at a time, or, when the prompt explains batches, all of them in
// one batch that ends with the button.
func (p *Prompt) form(fields [][2]string, button string) Move {
	var moves []Move
	for _, f := range fields {
		e, ok := p.Page.FieldLabelled(f[0])
		if !ok {
			return fail("I see no field labelled %q on the page", f[0])
		}
		if !p.filled(e, f[1]) {
			moves = append(moves, fill(e, f[1], fmt.Sprintf("I enter %q in the field labelled %s.", f[1], f[0])))
		}
	}
	b, ok := p.Page.Button(button)
	switch {
	case len(moves) > 0 && (!p.Batches || !ok):
		return moves[0]
	case !ok:
		return fail("the form is filled, but I see no %q button", button)
	}
	moves = append(moves, click(b, fmt.Sprintf("Everything is filled in; I click %q.", button)))
	return batch(moves, fmt.Sprintf("I fill in the %d fields the page still needs and click %q.", len(moves)-1, button))
}

// batch is moves as one batch (at most the limit a prompt states for batches), with one thought.
func batch(moves []Move, thought string) Move {
	if len(moves) == 1 {
		return moves[0]
	}
	if len(moves) > maxBatch {
		moves, thought = moves[:maxBatch], "I fill in the first fields the page needs."
	}
	first := moves[0]
	first.Thought, first.Then = thought, moves[1:]
	return first
}

// maxBatch is the most actions a batch may hold, as the prompts that explain batches say.
const maxBatch = 10

func searchOpen(p *Prompt, t []string) Move {
	q := t[1]
	pg := p.Page
	if pg.LineIs(q) && !pg.HasText("results for") {
		return finish("I opened the page of "+q+".", "This is the page of "+q+": the task is done.")
	}
	if l, ok := pg.Link(q); ok && norm(l.Label()) == norm(q) {
		return click(l, fmt.Sprintf("The results list %q; I open it.", q))
	}
	if p.Count("click", "type") > 4 {
		return fail("I searched for %q but see no result of that name", q)
	}
	field, ok := pg.FieldLabelled("Search")
	if !ok {
		field, ok = pg.FieldLabelled("Search books")
	}
	if !ok {
		for _, e := range pg.Elements {
			if e.Field() && (e.Attrs["type"] == "search" || e.Attrs["role"] == "searchbox") {
				field, ok = e, true
				break
			}
		}
	}
	if !ok {
		return fail("I see no search field on the page")
	}
	return p.form([][2]string{{labelOf(pg, field), q}}, "Search")
}

// labelOf is the label FieldLabelled knows the field by (it found it by one of them).
func labelOf(pg Page, e Element) string {
	for _, l := range []string{"Search books", "Search", e.Attrs["aria-label"], e.Attrs["placeholder"]} {
		if f, ok := pg.FieldLabelled(l); ok && l != "" && f.ID == e.ID {
			return l
		}
	}
	return "Search"
}

func contactForm(p *Prompt, t []string) Move {
	if p.Page.HasText("thank you") {
		return finish("I sent the message.", "The site thanks me for the message: it was sent.")
	}
	return p.form([][2]string{{"Full name", t[1]}, {"Email", t[2]}, {"Message", t[3]}}, "Send message")
}

func addDeal(p *Prompt, t []string) Move {
	item, pg := t[1], p.Page
	if pg.LineIs("your cart") && pg.HasText(item) {
		return finish(item+" is in the cart.", "The cart shows the "+item+": done.")
	}
	if pg.LineIs(item) {
		if b, ok := pg.Button("Add to cart"); ok {
			return click(b, "This is the "+item+"'s page; I add it to the cart.")
		}
	}
	if l, ok := pg.Link(item); ok && norm(l.Label()) == norm(item) {
		return click(l, "I found the "+item+"; I open it.")
	}
	if p.Count("scroll") < 8 {
		return Move{Kind: Scroll, Thought: "I don't see the " + item + " yet; more deals may be further down."}
	}
	return fail("I scrolled through the deals and found no %s", item)
}

func subscribe(p *Prompt, t []string) Move {
	email, pg := t[1], p.Page
	if pg.HasText("is now subscribed") {
		return finish(email+" is subscribed.", "The site confirms the subscription.")
	}
	failure, failed := p.LastFailed()
	if pg.covered() || failed && strings.Contains(strings.ToLower(failure), "intercepted") {
		for _, label := range []string{"Accept all cookies", "Accept", "Close"} {
			if b, ok := pg.Button(label); ok {
				return click(b, "A cookie consent dialog covers the page; I accept it first.")
			}
		}
		return fail("something covers the page and I see no button to close it")
	}
	return p.form([][2]string{{"Email address", email}}, "Subscribe")
}

// covered reports a dialog the page view marks as covering the page (a modal or a consent banner).
func (pg Page) covered() bool {
	for _, l := range pg.Lines {
		r := strings.ToLower(l.Raw)
		if strings.Contains(r, "(modal") || strings.Contains(r, "covers the page") || strings.Contains(r, "(cookie consent)") {
			return true
		}
	}
	return false
}

func bookSlot(p *Prompt, t []string) Move {
	slot, pg := t[1], p.Page
	if pg.HasText("is confirmed") {
		return finish("The "+slot+" appointment is booked.", "The site confirms the booking.")
	}
	if b, ok := pg.Button("Book " + slot); ok {
		return click(b, "I book the "+slot+" slot.")
	}
	if pg.HasText("loading") && p.Count("wait", "observe") < 5 {
		return Move{Kind: Wait, Thought: "The times are still loading; I wait."}
	}
	return fail("I see no %s slot on the page", slot)
}

func crossSite(p *Prompt, t []string) Move {
	person, crmURL, pg := t[1], t[2], p.Page
	memory := regexp.MustCompile(regexp.QuoteMeta(person) + `'s job title is "([^"]+)"`)
	title, known := p.Recall(memory)
	if !known {
		for _, col := range []string{"Job title", "Title"} {
			if v, ok := pg.Cell(person, col); ok && v != "" {
				return Move{Kind: Navigate, Text: crmURL, Thought: fmt.Sprintf("%s's job title is %q. Now I open the CRM to create the contact.", person, v)}
			}
		}
		if p.Count("navigate") > 0 {
			return fail("I no longer know %s's job title: what I read on the directory is not in the prompt", person)
		}
		if pg.HasText("title") {
			return fail("the directory has a title column, but no job title is on the same row as %s", person)
		}
		return fail("I see no people directory on this page")
	}
	if pg.HasText("contact saved") {
		return finish(fmt.Sprintf("I created the contact %s, %s.", person, title), "The CRM saved the contact.")
	}
	return p.form([][2]string{{"Name", person}, {"Job title", title}}, "Save contact")
}

var passwordInAnswer = regexp.MustCompile(`(?i)password(?:\s+is)?[:\s]+"?([^\s"]+?)"?[.!]?$`)

// secretInAnswer is an answer that names a secret the user typed into their browser, not a value.
var secretInAnswer = regexp.MustCompile(`(?i)secret \\?"([A-Za-z0-9][A-Za-z0-9_.-]*)\\?"`)

func logIn(p *Prompt, t []string) Move {
	user, password, target, pg := t[1], t[2], t[3], p.Page
	if pg.LineIs(target) {
		return finish("I logged in and opened the "+target+" page.", "The "+target+" page is open.")
	}
	if l, ok := pg.Link(target); ok {
		return click(l, "I am logged in; I open "+target+".")
	}
	pw, okPw := pg.FieldLabelled("Password")
	name, okName := pg.FieldLabelled("Username")
	if !okPw || !okName {
		return fail("I see no login form with a username and a password field")
	}
	if pw.Value() != "" && name.Value() != "" {
		b, ok := pg.Button("Log in")
		if !ok {
			return fail("I see no Log in button")
		}
		return click(b, "Username and password are filled in; I log in.")
	}
	if pw.Value() != "" {
		return fill(name, user, "I enter the username.")
	}
	refused := pg.HasText("invalid") || pg.HasText("incorrect") || pg.HasText("wrong password")
	if refused {
		answer := p.LastAnswer()
		asked := p.Count("askUser", "ask_user") > 0
		switch {
		case answer != "" && clicked(p.Since("askUser"), p.Since("ask_user")):
			return fail("the site refused the password the user gave too")
		case answer != "" && secretInAnswer.MatchString(answer):
			name := secretInAnswer.FindStringSubmatch(answer)[1]
			if !p.Holds(name) {
				return fail("the user named the secret %q, but the server does not list it among those the browser holds", name)
			}
			return fillSecret(pw, name, "The user typed the new password into their browser as the secret "+strconv.Quote(name)+"; I enter it.")
		case answer != "":
			given := answer
			if m := passwordInAnswer.FindStringSubmatch(answer); m != nil {
				given = m[1]
			}
			return fill(pw, given, "The user gave me the right password; I enter it.")
		case asked:
			return fail("the login failed and I asked the user for the password, but their answer is not in the prompt")
		}
		return ask(fmt.Sprintf("The CRM refused the password %q for %q. What is the correct password?", password, user))
	}
	return fill(pw, password, "I enter the password from the task.")
}

// clicked reports whether one of the step lists holds a click (the shorter list is the one
// after the last question of its API's form).
func clicked(lists ...[]Past) bool {
	best := lists[0]
	for _, l := range lists[1:] {
		if len(l) < len(best) {
			best = l
		}
	}
	for _, h := range best {
		if strings.HasPrefix(h.Action, "click") {
			return true
		}
	}
	return false
}

var number = regexp.MustCompile(`\b(\d{1,2})\b`)

func reserve(p *Prompt, t []string) Move {
	at, name, pg := t[1], t[2], p.Page
	if pg.HasText("table reserved") {
		return finish("The table is reserved.", "The site confirms the reservation.")
	}
	guests, okG := pg.FieldLabelled("Number of guests")
	if !okG {
		return fail("I see no field for the number of guests")
	}
	count := ""
	if m := number.FindStringSubmatch(p.LastAnswer()); m != nil {
		count = m[1]
	}
	// The user's answer first: it may not be in the next prompt.
	if guests.Value() == "" && count != "" {
		return fill(guests, count, "The user said "+count+" guests; I enter it.")
	}
	if guests.Value() == "" {
		if p.Count("askUser", "ask_user") > 0 {
			return fail("I asked the user how many guests are coming, but their answer is not in the prompt")
		}
		if f, ok := pg.FieldLabelled("Name"); ok && !p.filled(f, name) {
			return fill(f, name, "I enter the name for the reservation.")
		}
		if f, ok := pg.FieldLabelled("Time"); ok && !p.filled(f, at) {
			return fill(f, at, "I choose the time.")
		}
		return ask("How many guests should I reserve the table for?")
	}
	return p.form([][2]string{{"Name", name}, {"Time", at}, {"Number of guests", guests.Value()}}, "Reserve")
}

func branch(p *Prompt, t []string) Move {
	company, kind, pg := t[1], strings.ToLower(t[2]), p.Page
	if pg.HasText("added to your watch list") {
		return finish(fmt.Sprintf("%s is a %s company: I added it to the watch list.", company, kind), "The CRM added it to the watch list.")
	}
	industry, ok := pg.FactNear("Industry", regexp.MustCompile(`[a-z][a-z -]*[a-z]`))
	if !ok {
		return fail("I see no industry for %s on the page", company)
	}
	if strings.Contains(industry, kind) {
		b, ok := pg.Button("Add to watch list")
		if !ok {
			return fail("%s is a %s company, but I see no Add to watch list button", company, kind)
		}
		return click(b, fmt.Sprintf("%s's industry is %s: I add it to the watch list.", company, industry))
	}
	return finish(fmt.Sprintf("%s is not a %s company (its industry is %s), so I stopped without changing anything.", company, kind, industry),
		"The condition is false: I stop here.")
}

func checkout(p *Prompt, _ []string) Move {
	pg := p.Page
	if pg.HasText("payment successful") {
		return finish("I paid with the saved card; the order is confirmed.", "The payment went through.")
	}
	if b, ok := pg.Button("Pay $"); ok {
		return click(b, "I pay with the saved card.")
	}
	if l, ok := pg.Link("Proceed to checkout"); ok {
		return click(l, "I go to the checkout.")
	}
	return fail("I see neither a checkout link nor a pay button")
}

func price(p *Prompt, t []string) Move {
	product, pg := strings.TrimSpace(t[1]), p.Page
	if v, ok := pg.FactNear(product, priceRe); ok {
		return finish(fmt.Sprintf("The %s costs %s.", product, v), fmt.Sprintf("The price next to %s is %s.", product, v))
	}
	// On the product's own page, its price is the page's price.
	if pg.LineIs(product) {
		if v, ok := pg.FactNear("Price:", priceRe); ok {
			return finish(fmt.Sprintf("The %s costs %s.", product, v), "This is the product's page; its price is "+v+".")
		}
	}
	if pg.HasText(product) {
		return fail("I see the %s, but no price on the same line or in the same block as its name", product)
	}
	return fail("I see no %s on the page", product)
}

func openFromCatalogue(p *Prompt, t []string) Move {
	item, pg := t[1], p.Page
	if pg.LineIs(item) {
		return finish("I opened the page of the "+item+".", "This is the product's page.")
	}
	if l, ok := pg.Link(item); ok && norm(l.Label()) == norm(item) {
		return click(l, "I found the "+item+" in the catalogue; I open it.")
	}
	if pg.Cut {
		return fail("the %s is not in the part of the catalogue the prompt shows (the page was cut)", item)
	}
	return fail("the %s is not in the catalogue", item)
}

// webFact answers a quiz question whose answer (a year) neither the task nor the page holds: it
// searches the web, then reads the year from the result sentence that best matches the question.
func webFact(p *Prompt, t []string) Move {
	question, pg := t[1], p.Page
	if pg.HasText("answer received") {
		return finish("I submitted the answer to the quiz.", "The quiz received my answer.")
	}
	year, ok := p.yearFromSearches(question)
	if !ok {
		if len(p.Searches) > 0 {
			return fail("the web search results in the prompt hold no year that answers %q", question)
		}
		return Move{Kind: Search, Text: question, Thought: "Neither the task nor the page gives the year; I search the web."}
	}
	if _, ok := pg.FieldLabelled("Your answer"); !ok {
		return fail("I know the answer (%s) but see no answer field", year)
	}
	return p.form([][2]string{{"Your answer", year}}, "Submit answer")
}

var (
	year         = regexp.MustCompile(`\b(1[0-9]{3}|20[0-9]{2})\b`)
	sentenceEnd  = regexp.MustCompile(`[.!?](?:\s|$)|\n`)
	questionWord = regexp.MustCompile(`\p{L}{5,}`)
)

// yearFromSearches finds, in the search results the prompt shows, the sentence with a year that
// shares the most words of five letters or more with the question, and returns its year.
func (p *Prompt) yearFromSearches(question string) (string, bool) {
	words := questionWord.FindAllString(strings.ToLower(question), -1)
	best, bestScore := "", 1
	for _, s := range p.Searches {
		for _, sentence := range sentenceEnd.Split(s.Results, -1) {
			y := year.FindString(sentence)
			if y == "" {
				continue
			}
			low, score := strings.ToLower(sentence), 0
			for _, w := range words {
				stem := []rune(w)
				if strings.Contains(low, string(stem[:len(stem)-1])) { // "publish" matches "published"
					score++
				}
			}
			if score > bestScore {
				best, bestScore = y, score
			}
		}
	}
	return best, best != ""
}
