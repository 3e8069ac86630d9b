package sites

import (
	"fmt"
	"net/http"
	"strings"
)

// person is an entry of the people directory.
type person struct{ slug, name, title, department string }

var directory = []person{
	{"alan-turing", "Alan Turing", "Head of Cryptanalysis", "Research"},
	{"grace-hopper", "Grace Hopper", "Rear Admiral", "Navy Systems"},
	{"katherine-johnson", "Katherine Johnson", "Senior Mathematician", "Flight Research"},
	{"ada-lovelace", "Ada Lovelace", "Analyst", "Engines"},
}

// Slots of the appointment page, shown only after a delay.
var slots = []string{"09:00", "10:00", "11:30", "14:00"}

// SlotsDelay is how long the appointment page takes to show its slots.
const slotsDelayMs = 2500

func (s *Server) people(w http.ResponseWriter, r *http.Request, e Event) {
	p := r.URL.Path
	switch {
	case p == "/contact" && r.Method == http.MethodGet:
		page(w, 200, "Contact — People", "", `<h1>Contact us</h1><form method="post" action="/contact">
<label for="fullname">Full name</label><input id="fullname" name="fullname" type="text">
<label for="email">Email</label><input id="email" name="email" type="email">
<label for="message">Message</label><textarea id="message" name="message" rows="4"></textarea>
<button type="submit">Send message</button></form>`)
	case p == "/contact":
		page(w, 200, "Message sent — People", "", fmt.Sprintf("<h1>Thank you, %s!</h1><p>We received your message and will reply to %s.</p>", esc(e.Form["fullname"]), esc(e.Form["email"])))
	case p == "/directory":
		var b strings.Builder
		for _, pr := range directory {
			fmt.Fprintf(&b, `<tr><td><a href="/people/%s">%s</a></td><td>%s</td><td>%s</td></tr>`, pr.slug, esc(pr.name), esc(pr.title), esc(pr.department))
		}
		page(w, 200, "Directory — People", "", `<h1>People directory</h1><table><thead><tr><th>Name</th><th>Title</th><th>Department</th></tr></thead><tbody>`+b.String()+`</tbody></table>`)
	case strings.HasPrefix(p, "/people/"):
		for _, pr := range directory {
			if p == "/people/"+pr.slug {
				page(w, 200, pr.name+" — People", "", fmt.Sprintf(`<h1>%s</h1><p>Department: %s</p><p><a href="/directory">Back to the directory</a></p>`, esc(pr.name), esc(pr.department)))
				return
			}
		}
		notFound(w)
	case p == "/appointments" && r.Method == http.MethodGet:
		var b strings.Builder
		for _, sl := range slots {
			fmt.Fprintf(&b, `<button type="submit" name="slot" value="%s">Book %s</button> `, sl, sl)
		}
		page(w, 200, "Appointments — People", "", fmt.Sprintf(`<h1>Book an appointment</h1><div id="slots"><p>Loading available times…</p></div>
<script>setTimeout(() => { document.getElementById('slots').innerHTML = '<h2>Available times today</h2><form method="post" action="/appointments">%s</form>'; }, %d);</script>`,
			strings.ReplaceAll(b.String(), "'", `\'`), slotsDelayMs))
	case p == "/appointments":
		page(w, 200, "Booked — People", "", fmt.Sprintf("<h1>Booked</h1><p>Your appointment today at %s is confirmed.</p>", esc(e.Form["slot"])))
	case p == "/reserve" && r.Method == http.MethodGet:
		page(w, 200, "Reserve a table — People's Bistro", "", `<h1>Reserve a table</h1><form method="post" action="/reserve">
<label for="name">Name</label><input id="name" name="name" type="text" required>
<label for="time">Time</label><select id="time" name="time"><option>18:00</option><option>18:30</option><option>19:00</option><option>19:30</option><option>20:00</option></select>
<label for="guests">Number of guests</label><input id="guests" name="guests" type="number" min="1" max="12" required>
<button type="submit">Reserve</button></form>`)
	case p == "/reserve":
		page(w, 200, "Reserved — People's Bistro", "", fmt.Sprintf("<h1>Table reserved</h1><p>A table for %s at %s under the name %s.</p>", esc(e.Form["guests"]), esc(e.Form["time"]), esc(e.Form["name"])))
	case p == "/quiz" && r.Method == http.MethodGet:
		page(w, 200, "History quiz — People", "", `<h1>History quiz</h1><form method="post" action="/quiz">
<p>Question: `+esc(QuizQuestion)+`</p>
<label for="answer">Your answer</label><input id="answer" name="answer" type="text">
<button type="submit">Submit answer</button></form>`)
	case p == "/quiz":
		page(w, 200, "Quiz — People", "", fmt.Sprintf("<h1>Answer received</h1><p>You answered %s.</p>", esc(e.Form["answer"])))
	default:
		notFound(w)
	}
}
