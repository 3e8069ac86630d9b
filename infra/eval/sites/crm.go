package sites

import (
	"fmt"
	"net/http"
	"strings"
)

// The CRM's one account. A scenario's task gives an outdated password; only the user knows this one.
const (
	CRMUser     = "ada"
	CRMPassword = "correct-horse-42"
)

// company is a profile of the CRM.
type company struct{ slug, name, industry, city string }

var companies = []company{
	{"initech", "Initech", "Software", "Austin"},
	{"globex", "Globex", "Chemicals", "Springfield"},
}

const sessionCookie = "crm_session"

func (s *Server) crm(w http.ResponseWriter, r *http.Request, e Event) {
	p := r.URL.Path
	switch {
	case p == "/login" && r.Method == http.MethodGet:
		page(w, 200, "Log in — CRM", "", loginForm(""))
	case p == "/login":
		if e.Form["username"] != CRMUser || e.Form["password"] != CRMPassword {
			page(w, http.StatusUnauthorized, "Log in — CRM", "", loginForm(`<p role="alert" class="error">Invalid username or password. Please try again.</p>`))
			return
		}
		http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "ok", Path: "/"})
		redirect(w, r, "/home")
	case p == "/home" || p == "/reports":
		if c, err := r.Cookie(sessionCookie); err != nil || c.Value != "ok" {
			redirect(w, r, "/login")
			return
		}
		if p == "/home" {
			page(w, 200, "Home — CRM", "", `<h1>Welcome back, Ada</h1><nav><a href="/reports">Reports</a> <a href="/contacts/new">New contact</a></nav>`)
			return
		}
		page(w, 200, "Reports — CRM", "", `<h1>Reports</h1><p>Quarterly pipeline: 42 open deals.</p>`)
	case p == "/contacts/new":
		page(w, 200, "New contact — CRM", "", `<h1>New contact</h1><form method="post" action="/contacts">
<label for="cname">Name</label><input id="cname" name="name" type="text">
<label for="ctitle">Job title</label><input id="ctitle" name="title" type="text">
<button type="submit">Save contact</button></form>`)
	case p == "/contacts" && r.Method == http.MethodPost:
		page(w, 200, "Contact saved — CRM", "", fmt.Sprintf("<h1>Contact saved</h1><p>%s (%s) was added to your contacts.</p>", esc(e.Form["name"]), esc(e.Form["title"])))
	case strings.HasPrefix(p, "/companies/"):
		for _, c := range companies {
			if p == "/companies/"+c.slug {
				page(w, 200, c.name+" — CRM", "", fmt.Sprintf(`<h1>%s</h1><p><b>Industry:</b> %s</p><p><b>City:</b> %s</p>
<form method="post" action="/watchlist"><input type="hidden" name="company" value="%s"><button type="submit">Add to watch list</button></form>`,
					esc(c.name), esc(c.industry), esc(c.city), c.slug))
				return
			}
		}
		notFound(w)
	case p == "/watchlist" && r.Method == http.MethodPost:
		s.addToCart(CRM, e.Form["company"])
		page(w, 200, "Watch list — CRM", "", fmt.Sprintf("<h1>Watch list</h1><p>%s was added to your watch list.</p>", esc(e.Form["company"])))
	default:
		notFound(w)
	}
}

func loginForm(errorHTML string) string {
	return `<h1>Log in to the CRM</h1>` + errorHTML + `<form method="post" action="/login">
<label for="username">Username</label><input id="username" name="username" type="text" autocomplete="username">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password">
<button type="submit">Log in</button></form>`
}
