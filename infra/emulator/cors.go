package emulator

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/screenagent/backend/shared/sam"
)

// corsPolicy applies an HttpApi CorsConfiguration the way HTTP API does: it answers preflights
// itself and decides the CORS headers of every response, ignoring those functions set.
type corsPolicy struct {
	origins       []string
	anyOrigin     bool
	allowMethods  string
	allowHeaders  string
	exposeHeaders string
	maxAge        int
	credentials   bool
}

func newCORSPolicy(c *sam.Cors) *corsPolicy {
	if c == nil {
		return nil
	}
	p := &corsPolicy{
		allowMethods:  strings.Join(c.AllowMethods, ","),
		allowHeaders:  strings.Join(c.AllowHeaders, ","),
		exposeHeaders: strings.Join(c.ExposeHeaders, ","),
		maxAge:        c.MaxAge,
		credentials:   c.AllowCredentials,
	}
	for _, o := range c.AllowOrigins {
		if o == "*" {
			p.anyOrigin = true
		}
		p.origins = append(p.origins, o)
	}
	return p
}

func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
		r.Header.Get("Access-Control-Request-Method") != ""
}

// allowOrigin returns the Access-Control-Allow-Origin value for origin, or "" if not allowed.
func (p *corsPolicy) allowOrigin(origin string) string {
	if origin == "" {
		return ""
	}
	// A wildcard can't be combined with credentials, so then the origin is echoed instead.
	if p.anyOrigin {
		if p.credentials {
			return origin
		}
		return "*"
	}
	for _, o := range p.origins {
		if strings.EqualFold(o, origin) {
			return origin
		}
	}
	return ""
}

// preflight sets the headers of a preflight answer; none when the origin is not allowed.
func (p *corsPolicy) preflight(h http.Header, origin string) {
	allowed := p.allowOrigin(origin)
	if allowed == "" {
		return
	}
	h.Set("Access-Control-Allow-Origin", allowed)
	setIfNotEmpty(h, "Access-Control-Allow-Methods", p.allowMethods)
	setIfNotEmpty(h, "Access-Control-Allow-Headers", p.allowHeaders)
	if p.maxAge > 0 {
		h.Set("Access-Control-Max-Age", strconv.Itoa(p.maxAge))
	}
	if p.credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
}

// apply replaces whatever CORS headers h holds with the policy's for origin.
func (p *corsPolicy) apply(h http.Header, origin string) {
	for k := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			delete(h, k)
		}
	}
	allowed := p.allowOrigin(origin)
	if allowed == "" {
		return
	}
	h.Set("Access-Control-Allow-Origin", allowed)
	setIfNotEmpty(h, "Access-Control-Expose-Headers", p.exposeHeaders)
	if p.credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
}

func setIfNotEmpty(h http.Header, key, value string) {
	if value != "" {
		h.Set(key, value)
	}
}
