package sites

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func startSites(t *testing.T) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fetch requests a site page on the loopback port with the site's Host header, as Chromium
// does through its host-resolver rule.
func fetch(t *testing.T, s *Server, method, host, path string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.URL("127.0.0.1", path), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestSitesRouteByHostAndRecord(t *testing.T) {
	s := startSites(t)
	cases := []struct {
		host, path, want string
	}{
		{Shop, "/search?q=dune", `<a href="/book/dune">Dune</a>`},
		{People, "/directory", `<td><a href="/people/grace-hopper">Grace Hopper</a></td><td>Rear Admiral</td>`},
		{CRM, "/companies/initech", "<b>Industry:</b> Software"},
		{Pay, "/checkout", "Pay $199.00"},
	}
	for _, c := range cases {
		status, body := fetch(t, s, http.MethodGet, c.host, c.path, nil)
		if status != 200 || !strings.Contains(body, c.want) {
			t.Errorf("%s%s: got %d and a page without %q", c.host, c.path, status, c.want)
		}
	}
	if status, _ := fetch(t, s, http.MethodGet, "other.test", "/", nil); status != 404 {
		t.Errorf("unknown host: got %d, want 404", status)
	}
	st := s.State()
	if e, ok := st.Last(Shop, http.MethodGet, "/search"); !ok || e.Form["q"] != "dune" {
		t.Errorf("got %+v, want the search recorded with its query", e)
	}
	if len(st.Find(People, "", "/*")) != 1 || len(st.Find(CRM, "GET", "/companies/*")) != 1 {
		t.Errorf("got events %+v, want one per site", st.Events)
	}
}

func TestCRMLoginNeedsTheRightPassword(t *testing.T) {
	s := startSites(t)
	status, body := fetch(t, s, http.MethodPost, CRM, "/login", url.Values{"username": {"ada"}, "password": {"hunter2"}})
	if status != http.StatusUnauthorized || !strings.Contains(body, "Invalid username or password") {
		t.Errorf("wrong password: got %d, want 401 with the error shown", status)
	}
	if status, _ := fetch(t, s, http.MethodPost, CRM, "/login", url.Values{"username": {CRMUser}, "password": {CRMPassword}}); status != http.StatusSeeOther {
		t.Errorf("right password: got %d, want a redirect", status)
	}
}

func TestCartAndResetAndReports(t *testing.T) {
	s := startSites(t)
	fetch(t, s, http.MethodPost, Shop, "/cart/add", url.Values{"item": {"garden-hose"}})
	s.ReportAnswer("It costs $24.50")
	s.UserAnswered("Proceed?", "yes", true)
	st := s.State()
	if got := st.Carts[Shop]; len(got) != 1 || got[0] != "garden-hose" {
		t.Errorf("cart: got %v, want [garden-hose]", got)
	}
	if !st.Answered || st.Answer != "It costs $24.50" || len(st.Questions) != 1 || !st.Questions[0].Approved {
		t.Errorf("got %+v, want the answer and the approval recorded", st)
	}
	s.Reset()
	if st := s.State(); len(st.Events) != 0 || st.Answered || len(st.Carts) != 0 || len(st.Questions) != 0 {
		t.Errorf("after Reset got %+v, want a clean state", st)
	}
}

func TestCatalogueIsBigWithTheTargetDeep(t *testing.T) {
	if n := len(cataloguePage); n < 300_000 {
		t.Errorf("catalogue page: got %d characters, want at least 300,000", n)
	}
	at := strings.Index(cataloguePage, ">"+catalogueTarget.name+"<")
	if at < len(cataloguePage)*3/4 || strings.Count(cataloguePage, catalogueTarget.name) != 1 {
		t.Errorf("target at %d of %d (%d times), want once in the last quarter", at, len(cataloguePage), strings.Count(cataloguePage, catalogueTarget.name))
	}
}
