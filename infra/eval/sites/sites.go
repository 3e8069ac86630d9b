// Package sites serves the proving ground's scenario websites from one local server that routes
// by host name (shop.test, people.test, crm.test, pay.test, all on the same loopback port), and
// records what happened on them, so that each scenario's success is decided by the sites' own
// server state: the form got the right values, the cart holds the item, the answer the client
// reported contains the fact, a forbidden endpoint was never hit.
package sites

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Host names of the sites; a browser reaches them through a host-resolver rule that maps *.test
// to the loopback address.
const (
	Shop   = "shop.test"
	People = "people.test"
	CRM    = "crm.test"
	Pay    = "pay.test"
	Insure = "insure.test"
)

// Event is one thing a site saw, in order.
type Event struct {
	At     time.Time
	Host   string
	Method string
	Path   string
	// Form holds the submitted fields (and the query of a GET).
	Form map[string]string
}

// Server is the running sites.
type Server struct {
	srv  *http.Server
	port int

	mu     sync.Mutex
	events []Event
	// answer is the final answer the client reported for the current task; answered tells
	// whether the task ended with one.
	answer   string
	answered bool
	// questions are the scripted user's answers: what the agent asked, and when.
	questions []Question
	carts     map[string][]string // by site, item slugs
}

// Question is one question the scripted user answered.
type Question struct {
	At       time.Time
	Text     string
	Reply    string
	Approved bool
}

// Start serves the sites on a free loopback port until Close.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sites: listen: %w", err)
	}
	s := &Server{port: ln.Addr().(*net.TCPAddr).Port}
	s.Reset()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Port is the loopback port every site answers on.
func (s *Server) Port() int { return s.port }

// URL is the address of path on a site, e.g. URL(Shop, "/") = http://shop.test:PORT/.
func (s *Server) URL(host, path string) string {
	return fmt.Sprintf("http://%s:%d%s", host, s.port, path)
}

// Reset forgets everything the sites saw: each scenario starts from a clean state.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events, s.answer, s.answered, s.questions = nil, "", false, nil
	s.carts = map[string][]string{}
}

// ReportAnswer records the task's final answer, as the client passes it on.
func (s *Server) ReportAnswer(answer string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer, s.answered = answer, true
}

// UserAnswered records that the scripted user answered a question of the agent.
func (s *Server) UserAnswered(question, reply string, approved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.questions = append(s.questions, Question{At: time.Now(), Text: question, Reply: reply, Approved: approved})
}

// State is a copy of what the sites saw, for a scenario's success check.
type State struct {
	Events    []Event
	Answer    string
	Answered  bool
	Questions []Question
	Carts     map[string][]string
}

// State returns what the sites saw so far.
func (s *Server) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	carts := map[string][]string{}
	for k, v := range s.carts {
		carts[k] = append([]string(nil), v...)
	}
	return State{
		Events: append([]Event(nil), s.events...), Answer: s.answer, Answered: s.answered,
		Questions: append([]Question(nil), s.questions...), Carts: carts,
	}
}

// Find returns the events on host whose method and path match (method "" matches any; a path
// ending in "*" matches by prefix).
func (st State) Find(host, method, path string) []Event {
	var out []Event
	for _, e := range st.Events {
		if e.Host != host || method != "" && e.Method != method {
			continue
		}
		if p, ok := strings.CutSuffix(path, "*"); ok && strings.HasPrefix(e.Path, p) || e.Path == path {
			out = append(out, e)
		}
	}
	return out
}

// Last returns the last event Find returns, or false.
func (st State) Last(host, method, path string) (Event, bool) {
	evs := st.Find(host, method, path)
	if len(evs) == 0 {
		return Event{}, false
	}
	return evs[len(evs)-1], true
}

func (s *Server) record(r *http.Request) Event {
	_ = r.ParseForm()
	form := map[string]string{}
	for k, v := range r.Form {
		form[k] = strings.Join(v, ",")
	}
	e := Event{At: time.Now(), Host: hostOf(r), Method: r.Method, Path: r.URL.Path, Form: form}
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	return e
}

func (s *Server) addToCart(site, item string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.carts[site] = append(s.carts[site], item)
}

func hostOf(r *http.Request) string {
	h := r.Host
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.ToLower(h)
}

// ServeHTTP records the request and hands it to its site.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/favicon.ico" {
		http.NotFound(w, r)
		return
	}
	e := s.record(r)
	switch e.Host {
	case Shop:
		s.shop(w, r, e)
	case People:
		s.people(w, r, e)
	case CRM:
		s.crm(w, r, e)
	case Pay:
		s.pay(w, r, e)
	case Insure:
		s.insure(w, r, e)
	default:
		http.Error(w, "unknown site "+e.Host, http.StatusNotFound)
	}
}

// page writes a whole HTML page.
func page(w http.ResponseWriter, status int, title, head, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>body{font-family:sans-serif;margin:24px;max-width:900px} .card{border:1px solid #ccc;padding:8px;margin:8px 0}
label{display:block;margin-top:8px} input,textarea,select{display:block;margin:4px 0 8px} table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:4px 8px}</style>
%s</head><body>%s</body></html>`, html.EscapeString(title), head, body)
}

func notFound(w http.ResponseWriter) {
	page(w, http.StatusNotFound, "Not found", "", "<h1>Page not found</h1>")
}

func redirect(w http.ResponseWriter, r *http.Request, path string) {
	http.Redirect(w, r, path, http.StatusSeeOther)
}

var esc = html.EscapeString
