// Package gate recognizes what may spend the user's money or commit them to something (paying,
// buying, ordering, subscribing, donating, transferring, booking): in the labels of the elements
// an agent is about to activate, in every language of lexicon.go, and in the URLs of the pages it
// acts on or navigates to. Text is folded first (Normalize), so look-alike letters, invisible
// characters and letter-spaced words do not hide a term. A tenant adds its own words and URL
// patterns (Custom). The run engine's security gate asks the user before such an action.
package gate

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Custom is a tenant's additions to the built-in rules.
type Custom struct {
	// Words are risky wherever they appear in a label, like the built-in strong terms.
	Words []string
	// URLPatterns mark more pages as checkout or payment pages: a host ("pay.acme.com", or
	// "*.acme.com" for its subdomains) with an optional path prefix ("acme.com/billing"), or a path
	// prefix on any host ("/billing"). Paths match whole segments: "/billing" covers
	// "/billing/invoices" but not "/billingfaq".
	URLPatterns []string
}

// Limits of Custom.
const (
	MaxCustomWords    = 100
	MaxCustomWordLen  = 64
	MaxCustomPatterns = 50
	MaxPatternLen     = 200
)

// Validate reports the first entry of c that can't be used, naming it.
func (c Custom) Validate() error {
	if len(c.Words) > MaxCustomWords {
		return fmt.Errorf("at most %d words, got %d", MaxCustomWords, len(c.Words))
	}
	for _, w := range c.Words {
		if n := utf8.RuneCountInString(strings.TrimSpace(w)); n == 0 || n > MaxCustomWordLen {
			return fmt.Errorf("word %q: must be 1 to %d characters", w, MaxCustomWordLen)
		}
		if f := Normalize(w); len(tokenize(f)) == 0 && !isSpaceless(f) {
			return fmt.Errorf("word %q: has no letters or digits", w)
		}
	}
	if len(c.URLPatterns) > MaxCustomPatterns {
		return fmt.Errorf("at most %d URL patterns, got %d", MaxCustomPatterns, len(c.URLPatterns))
	}
	for _, p := range c.URLPatterns {
		if _, err := parsePattern(p); err != nil {
			return fmt.Errorf("URL pattern %q: %w", p, err)
		}
	}
	return nil
}

// Rules are the built-in words and a tenant's additions, compiled.
type Rules struct {
	labels, totals, payment, cart, urlCounter *lexicon
	patterns                                  []pattern
}

// builtin compiles the tenant-free rules once, on first use: functions that link the gate
// without checking actions (every store of runs does) do not pay for it at cold start.
var builtin = sync.OnceValue(func() *Rules { return compile(Custom{}) })

// Default returns the built-in rules.
func Default() *Rules { return builtin() }

// New returns the built-in rules with c's additions; entries Validate refuses are left out.
func New(c Custom) *Rules {
	if len(c.Words) == 0 && len(c.URLPatterns) == 0 {
		return builtin()
	}
	return compile(c)
}

func compile(c Custom) *Rules {
	r := &Rules{labels: newLexicon(), totals: newLexicon(), payment: newLexicon(), cart: newLexicon(), urlCounter: newLexicon()}
	for _, l := range languages {
		for _, set := range []struct {
			terms []string
			role  role
		}{
			{l.pay, rPay}, {l.imperative, rImperative}, {l.final, rFinal}, {l.object, rObject}, {l.move, rMove},
			{l.money, rMoney}, {l.proceed, rProceed}, {l.counter, rCounter}, {l.mine, rMine},
		} {
			for _, t := range set.terms {
				r.labels.add(t, set.role)
			}
		}
	}
	for _, w := range c.Words {
		if n := utf8.RuneCountInString(strings.TrimSpace(w)); n > 0 && n <= MaxCustomWordLen {
			r.labels.add(w, rCustom)
		}
	}
	for _, t := range forWords {
		r.labels.add(t, rFor)
	}
	for _, t := range leadWords {
		r.labels.add(t, rLead)
	}
	for _, t := range totalWords {
		r.totals.add(t, rTotal)
	}
	for _, t := range paymentURLTerms {
		r.payment.add(t, rPay)
	}
	r.payment.inside = paymentInside
	for _, t := range cartURLTerms {
		r.cart.add(t, rPay)
	}
	for _, t := range urlCounter {
		r.urlCounter.add(t, rCounter)
	}
	for _, p := range c.URLPatterns {
		if pt, err := parsePattern(p); err == nil {
			r.patterns = append(r.patterns, pt)
		}
	}
	return r
}

// Label reports whether a label a user reads (an element's text, accessible name, title or
// button value) commits the user's money, and the amount it names.
func (r *Rules) Label(s string) (amount string, risky bool) {
	v := r.judge(s)
	return v.amount, v.risky
}

// Identifier reports whether a name a developer gave (a form field's name, such as
// "submitPayment" or "buy_now") commits the user's money. Its words are split at case changes:
// "sortOrder" is not an order.
func (r *Rules) Identifier(s string) bool {
	return r.judgeAs(splitCase(strings.NewReplacer("_", " ", "-", " ").Replace(s)), true).risky
}

// Place is what kind of page a URL is.
type Place int

// Places, from harmless to the most sensitive.
const (
	// Elsewhere is any other page.
	Elsewhere Place = iota
	// Cart is a cart or basket, where submitting a form may place the order.
	Cart
	// Payment is a checkout, payment or donation page or host, a payment provider's page, or one
	// of the tenant's patterns.
	Payment
)

// Place classifies a URL by its host, path, query and fragment.
func (r *Rules) Place(raw string) Place {
	p, _ := r.place(raw)
	return p
}

// place classifies a URL and says in plain words what made it a payment page.
func (r *Rules) place(raw string) (Place, string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		u = &url.URL{Path: raw}
	}
	host := strings.ToLower(u.Hostname())
	for _, p := range r.patterns {
		if p.match(u) {
			return Payment, fmt.Sprintf("the address %s, which your organisation marks as a payment page", shorten(host+u.Path, 120))
		}
	}
	// Hosts are split into labels, paths into segments and query and fragment into their words;
	// case changes split words too ("/placeOrder").
	text := strings.Join([]string{
		strings.ReplaceAll(host, ".", " "), splitCase(r.withoutArticles(u.Path)), splitCase(queryText(u.RawQuery)), splitCase(u.Fragment),
	}, " / ")
	folded := Normalize(text)
	if r.aboutPayments(u) {
		return Elsewhere, ""
	}
	for _, p := range providerHosts {
		if host == p || strings.HasSuffix(host, "."+p) {
			return Payment, fmt.Sprintf("the payment provider's page %s", host)
		}
	}
	if len(r.payment.find(folded)) > 0 {
		return Payment, fmt.Sprintf("the checkout or payment address %s", shorten(host+u.Path, 120))
	}
	if len(r.cart.find(folded)) > 0 {
		return Cart, ""
	}
	return Elsewhere, ""
}

// withoutArticles drops the path segments that are an article's slug: several words, one of
// which says the page explains or discusses ("how-checkout-works", "why-we-changed-our-payment-flow"),
// so that a payment word in a title does not make the page a checkout. Other segments stay: a
// campaign "/f/help-the-shelter/donate" is still a donation page.
func (r *Rules) withoutArticles(path string) string {
	segments := strings.Split(path, "/")
	kept := segments[:0]
	for _, seg := range segments {
		f := Normalize(strings.NewReplacer("-", " ", "_", " ", "+", " ").Replace(splitCase(seg)))
		if len(tokenize(f)) >= 3 && len(r.urlCounter.find(f)) > 0 {
			continue
		}
		kept = append(kept, seg)
	}
	return strings.Join(kept, "/")
}

// aboutPayments reports whether a URL is a page about payments (documentation, help, articles,
// the account's lists) rather than one that takes them: a host label or a whole path segment
// says so. A word inside a longer segment (a campaign's slug "help-the-shelter") does not.
func (r *Rules) aboutPayments(u *url.URL) bool {
	segments := strings.Split(strings.ToLower(u.Hostname()), ".")
	segments = append(segments, strings.Split(u.Path, "/")...)
	for _, seg := range segments {
		f := Normalize(strings.NewReplacer("-", " ", "_", " ").Replace(seg))
		if hits := r.urlCounter.find(f); len(hits) > 0 && covered(f, hits, rCounter) {
			return true
		}
	}
	return false
}

// queryText is the query's keys and values, decoded where they decode.
func queryText(raw string) string {
	if s, err := url.QueryUnescape(raw); err == nil {
		return s
	}
	return raw
}

// splitCase puts a space where a lower-case letter or digit is followed by an upper-case one, so
// that "payNow" reads as "pay Now".
func splitCase(s string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// pattern is a compiled URL pattern of Custom.
type pattern struct {
	host     string // "" for any host
	wildcard bool   // host's subdomains, not host itself
	path     string // "" for any path; else a prefix of whole segments, without a trailing slash
}

func parsePattern(p string) (pattern, error) {
	p = strings.ToLower(strings.TrimSpace(p))
	switch {
	case p == "":
		return pattern{}, fmt.Errorf("is empty")
	case len(p) > MaxPatternLen:
		return pattern{}, fmt.Errorf("is longer than %d characters", MaxPatternLen)
	case strings.Contains(p, "://"):
		return pattern{}, fmt.Errorf(`give a host and path without a scheme, such as "pay.acme.com/checkout"`)
	}
	var pt pattern
	host, path, hasPath := strings.Cut(p, "/")
	if hasPath {
		path = "/" + path
	}
	if host != "" {
		if h, ok := strings.CutPrefix(host, "*."); ok {
			pt.wildcard, host = true, h
		}
		if !validHost(host) {
			return pattern{}, fmt.Errorf("host %q: use letters, digits, '-' and '.' (and an optional leading '*.')", host)
		}
		pt.host = host
	}
	if path != "" {
		if strings.ContainsAny(path, " ?#*\t") {
			return pattern{}, fmt.Errorf("path %q: no spaces, '?', '#' or '*'", path)
		}
		pt.path = strings.TrimRight(path, "/")
	}
	if pt.host == "" && pt.path == "" {
		return pattern{}, fmt.Errorf("matches every page")
	}
	return pt, nil
}

func validHost(h string) bool {
	if h == "" || strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func (p pattern) match(u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	switch {
	case p.host == "":
	case p.wildcard && !strings.HasSuffix(host, "."+p.host):
		return false
	case !p.wildcard && host != p.host:
		return false
	}
	if p.path == "" {
		return true
	}
	path := strings.ToLower(u.Path)
	return path == p.path || strings.HasPrefix(path, p.path+"/")
}
