package drive

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/screenagent/backend/shared/trust"
)

// reply is the user's answer to a question: typed into the extension's own fields when the
// server typed the request and the user fills it so, else in words.
func (t Task) reply(question string, req *trust.UserRequest, pageURL string) (reply string, approved bool) {
	if r, ok := t.answerTyped(question, req, pageURL); ok {
		return r, true
	}
	return t.ask(question)
}

// withVault gives a task whose user fills typed requests a vault to keep what they type.
func (t Task) withVault() Task {
	if t.Fill != nil && t.Secrets == nil {
		t.Secrets = Vault{}
	}
	return t
}

// answerTyped answers a request for credentials or a one-time code as an extension's own form
// does: each secret field's value goes into the vault under a fresh name bound to the page's
// origin and the reply only names it, so a changed password never reaches the server; the other
// fields are answered in words. ok is false when the user does not fill the request this way
// (no Fill, a request of another kind, or nothing filled).
func (t Task) answerTyped(question string, req *trust.UserRequest, pageURL string) (reply string, ok bool) {
	if t.Fill == nil || t.Secrets == nil || req == nil || !hasSecretField(req) {
		return "", false
	}
	values := t.Fill(question, *req)
	var parts []string
	for _, f := range req.Fields {
		v := values[f.Name]
		switch {
		case v == "":
			continue
		case f.Secret:
			name := t.Secrets.keep(f.Name, originOf(pageURL), v)
			parts = append(parts, fmt.Sprintf("%s: in my browser, as the secret %q", f.Label, name))
		default:
			parts = append(parts, fmt.Sprintf("%s: %s", f.Label, v))
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "; ") + ".", true
}

func hasSecretField(req *trust.UserRequest) bool {
	for _, f := range req.Fields {
		if f.Secret {
			return true
		}
	}
	return false
}

// originOf is the host[:port] a secret typed for this page is bound to.
func originOf(pageURL string) string {
	u, err := url.Parse(pageURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// keep stores value under the field's name, or the name with a number when the vault already
// holds another value under it, and returns the name used.
func (v Vault) keep(field, origin, value string) string {
	name := field
	for n := 2; ; n++ {
		if s, taken := v[name]; !taken || s.value == value && s.origin == origin {
			break
		}
		name = fmt.Sprintf("%s_%d", field, n)
	}
	v[name] = vaultSecret{origin: origin, value: value}
	return name
}
