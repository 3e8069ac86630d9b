package runs

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// Security gate (PROXY_SERVER_ARCHITECTURE.md §4.2, "Security Gate"): actions that may spend
// money or submit something on the user's behalf. Observing and scrolling never are.

// riskyURLWords mark checkout and payment pages (matched anywhere in host, path and query).
var riskyURLWords = []string{"checkout", "payment"}

// riskyWordPrefixes mark pay/buy/purchase/order-like element texts: a word starting with one of
// them (Pay, Payment, Buy, Purchasing, Place order), in English and Russian.
var riskyWordPrefixes = []string{"pay", "buy", "purchas", "order", "checkout", "оплат", "купи", "покуп", "заказ"}

// gateFinding is why the gate stops an action: the question for the user and a note for the history.
type gateFinding struct {
	Question string
	Reason   string
}

// checkGate inspects a tool call against the page it would act on.
func checkGate(t Tool, page *Snapshot) (gateFinding, bool) {
	switch t.Name {
	case ToolNavigate:
		if riskyURL(t.URL) {
			return gateFinding{
				Question: fmt.Sprintf("⚠️ Security check: Attempting to navigate to a checkout or payment page (%s). Proceed?", shorten(t.URL, 200)),
				Reason:   "navigation to a checkout or payment URL",
			}, true
		}
		return gateFinding{}, false
	case ToolClick, ToolType, ToolPress:
	default:
		return gateFinding{}, false
	}
	el, _ := page.Element(t.ID)
	name := elementName(el, t.ID)
	switch {
	case t.Name == ToolClick && riskyText(el.Text, el.AriaLabel, el.Value, el.Name):
		return gateFinding{
			Question: fmt.Sprintf("⚠️ Security check: Attempting to click '%s'. Proceed?", name),
			Reason:   fmt.Sprintf("click on a payment-like element '%s'", name),
		}, true
	case t.Name == ToolType && t.Submit:
		return gateFinding{
			Question: fmt.Sprintf("⚠️ Security check: Attempting to type into '%s' and submit the form. Proceed?", name),
			Reason:   fmt.Sprintf("form submission through '%s'", name),
		}, true
	case page != nil && riskyURL(page.URL):
		what := fmt.Sprintf("%s '%s'", t.Name, name)
		if t.Name == ToolPress {
			what = fmt.Sprintf("press '%s'", shorten(t.Key, 50))
		}
		return gateFinding{
			Question: fmt.Sprintf("⚠️ Security check: Attempting to %s on a checkout or payment page (%s). Proceed?", what, shorten(page.URL, 200)),
			Reason:   fmt.Sprintf("%s on a checkout or payment page", what),
		}, true
	}
	return gateFinding{}, false
}

func riskyURL(raw string) bool {
	u, err := url.Parse(raw)
	s := raw
	if err == nil {
		s = u.Host + " " + u.Path + " " + u.RawQuery
	}
	s = strings.ToLower(s)
	for _, w := range riskyURLWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func riskyText(texts ...string) bool {
	for _, t := range texts {
		for _, word := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) }) {
			for _, p := range riskyWordPrefixes {
				if strings.HasPrefix(word, p) {
					return true
				}
			}
		}
	}
	return false
}

// elementName is how the question names an element: what the user sees on it.
func elementName(el Element, id string) string {
	for _, s := range []string{el.Text, el.AriaLabel, el.Value, el.Placeholder, el.Name} {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			return shorten(s, 80)
		}
	}
	return id
}
