package sites

import (
	"fmt"
	"net/http"
	"strings"
)

// quoteField is one field of the insurance quote form: its form name, its label, and the
// options of a select (nil for a text input).
type quoteField struct {
	name, label string
	options     []string
}

// quotePages are the three pages of the car-insurance quote, 16 fields in all; each page posts
// to the next, carrying the earlier pages' values in hidden inputs, so that the last post holds
// every value.
var quotePages = [][]quoteField{
	{
		{name: "first", label: "First name"}, {name: "last", label: "Last name"}, {name: "email", label: "Email"},
		{name: "phone", label: "Phone"}, {name: "birth", label: "Date of birth"}, {name: "zip", label: "ZIP code"},
	},
	{
		{name: "make", label: "Car make", options: []string{"Ford", "Honda", "Toyota", "Volkswagen"}},
		{name: "model", label: "Car model"},
		{name: "year", label: "Model year", options: []string{"2019", "2020", "2021", "2022", "2023"}},
		{name: "mileage", label: "Annual mileage"},
		{name: "use", label: "Primary use", options: []string{"Commuting", "Pleasure", "Business"}},
	},
	{
		{name: "licensed", label: "Years licensed"},
		{name: "accidents", label: "Accidents in the last 5 years", options: []string{"0", "1", "2 or more"}},
		{name: "coverage", label: "Coverage", options: []string{"Liability only", "Standard", "Comprehensive"}},
		{name: "start", label: "Start date"},
		{name: "plan", label: "Payment plan", options: []string{"Monthly", "Annual"}},
	},
}

// QuoteFields are the form names of all the quote's fields, in order.
func QuoteFields() []string {
	var out []string
	for _, pg := range quotePages {
		for _, f := range pg {
			out = append(out, f.name)
		}
	}
	return out
}

func (s *Server) insure(w http.ResponseWriter, r *http.Request, e Event) {
	step := map[string]int{"/quote": 0, "/quote/vehicle": 1, "/quote/driver": 2}
	switch p := r.URL.Path; {
	case p == "/quote/done" && r.Method == http.MethodPost:
		page(w, 200, "Your quote — Insure", "", fmt.Sprintf("<h1>Your quote is ready</h1><p>%s, your %s %s is covered from %s for $%d a month.</p>",
			esc(e.Form["first"]), esc(e.Form["make"]), esc(e.Form["model"]), esc(e.Form["start"]), 40+len(e.Form["zip"])*3))
	default:
		i, ok := step[p]
		if !ok {
			notFound(w)
			return
		}
		page(w, 200, fmt.Sprintf("Car insurance quote, step %d of 3 — Insure", i+1), "", quoteForm(i, e.Form))
	}
}

// quoteForm is page i of the quote form, with the values posted so far kept as hidden inputs.
func quoteForm(i int, posted map[string]string) string {
	next, button := []string{"/quote/vehicle", "/quote/driver", "/quote/done"}[i], "Continue"
	if i == len(quotePages)-1 {
		button = "Get my quote"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<h1>Car insurance quote</h1><p>Step %d of 3: %s</p><form method="post" action="%s">`, i+1, []string{"about you", "your car", "your driving"}[i], next)
	for _, pg := range quotePages[:i] {
		for _, f := range pg {
			fmt.Fprintf(&b, `<input type="hidden" name="%s" value="%s">`, f.name, esc(posted[f.name]))
		}
	}
	for _, f := range quotePages[i] {
		fmt.Fprintf(&b, `<p><label for="%s">%s</label>`, f.name, f.label)
		if f.options == nil {
			fmt.Fprintf(&b, `<input id="%s" name="%s" type="text"></p>`, f.name, f.name)
			continue
		}
		fmt.Fprintf(&b, `<select id="%s" name="%s"><option value="">Choose…</option>`, f.name, f.name)
		for _, o := range f.options {
			fmt.Fprintf(&b, `<option>%s</option>`, esc(o))
		}
		b.WriteString("</select></p>")
	}
	fmt.Fprintf(&b, `<button type="submit">%s</button></form>`, button)
	return b.String()
}
