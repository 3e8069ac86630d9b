package drive

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/screenagent/backend/infra/thinclient/browser"
	"github.com/screenagent/backend/shared/trust"
)

// Vault is the secrets the client keeps, by name: the server learns the names (secretNames)
// and answers setValue(id, secret("name")) or type {"secret": "name"}; the client types the value
// itself, only on a page of the secret's origin, and reports "filled secret name", never the value.
type Vault map[string]vaultSecret

type vaultSecret struct {
	origin string // host[:port] the secret is bound to, "" for any
	value  string
}

// Add reads one -secret flag: name=value or name@origin=value.
func (v Vault) Add(flag string) error {
	ref, value, ok := strings.Cut(flag, "=")
	if !ok || value == "" {
		return fmt.Errorf("-secret wants name=value or name@origin=value")
	}
	names, err := trust.ParseSecretNames("-secret", []string{ref})
	if err != nil {
		return err
	}
	v[names[0].Name] = vaultSecret{origin: names[0].Origin, value: value}
	return nil
}

// Names are the secretNames the client sends: "name" or "name@origin", sorted.
func (v Vault) Names() []string {
	var out []string
	for name, s := range v {
		out = append(out, trust.NamedSecret{Name: name, Origin: s.origin}.String())
	}
	slices.Sort(out)
	return out
}

// fill types the named secret into the element, after checking the page's origin itself: the
// server's word is not enough to type a bank password into another site's form.
func (v Vault) fill(ctx context.Context, tab *browser.Tab, id, name string, submit bool) browser.Outcome {
	s, ok := v[name]
	if !ok {
		return browser.Outcome{Code: "UNKNOWN_SECRET", Message: fmt.Sprintf("the client holds no secret %q", name)}
	}
	if s.origin != "" {
		u, err := url.Parse(tab.URL(ctx))
		if err != nil || trust.CheckSecretUse([]trust.NamedSecret{{Name: name, Origin: s.origin}}, name, u.String()) != nil {
			return browser.Outcome{Code: "SECRET_ORIGIN", Message: fmt.Sprintf("secret %s is bound to %s; not filled on this page", name, s.origin)}
		}
	}
	o := tab.Type(ctx, id, s.value, submit)
	if o.OK {
		return browser.Outcome{OK: true, Message: "filled secret " + name}
	}
	// The browser's message may quote what it tried to type.
	return browser.Outcome{Code: o.Code, Message: "could not fill secret " + name + " into element " + id}
}
