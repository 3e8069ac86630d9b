package trust

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/screenagent/backend/shared/validation"
)

// NamedSecret is a secret the browser keeps and the server knows only by name. Bound to an
// origin, it may be typed only into a page of that origin.
type NamedSecret struct {
	Name string `json:"name"`
	// Origin is the host (with a port when one was given) the secret is bound to, "" for any.
	Origin string `json:"origin,omitempty"`
}

// String is the wire and prompt form: "name" or "name@origin".
func (n NamedSecret) String() string {
	if n.Origin == "" {
		return n.Name
	}
	return n.Name + "@" + n.Origin
}

// MaxSecretNames bounds the names of one request.
const MaxSecretNames = 20

var secretName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ParseSecretNames reads the secretNames field of a request ("crm_password",
// "crm_password@crm.example.com", "pin@https://bank.example:8443"); field names the field in a
// *validation.Error.
func ParseSecretNames(field string, raw []string) ([]NamedSecret, error) {
	if len(raw) > MaxSecretNames {
		return nil, &validation.Error{Field: field, Reason: fmt.Sprintf("must have at most %d names, got %d", MaxSecretNames, len(raw))}
	}
	out := make([]NamedSecret, 0, len(raw))
	seen := map[string]bool{}
	for i, r := range raw {
		f := fmt.Sprintf("%s[%d]", field, i)
		name, origin, bound := strings.Cut(strings.TrimSpace(r), "@")
		if !secretName.MatchString(name) {
			return nil, &validation.Error{Field: f, Reason: "must be a name of letters, digits, '_', '.' or '-' (at most 64), optionally followed by @origin"}
		}
		if seen[name] {
			return nil, &validation.Error{Field: f, Reason: fmt.Sprintf("repeats the name %q", name)}
		}
		seen[name] = true
		n := NamedSecret{Name: name}
		if bound {
			host, ok := originHost(origin)
			if !ok {
				return nil, &validation.Error{Field: f, Reason: "must bind to an origin such as crm.example.com or https://crm.example.com"}
			}
			n.Origin = host
		}
		out = append(out, n)
	}
	return out, nil
}

// originHost reads "host", "host:port" or "scheme://host[:port]" as a lower-case host[:port].
func originHost(s string) (string, bool) {
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
		return "", false
	}
	return strings.ToLower(u.Host), true
}

// Errors of a secret reference.
var (
	ErrUnknownSecret = errors.New("unknown secret")
	ErrSecretOrigin  = errors.New("secret bound to another origin")
)

// CheckSecretUse reports whether the secret name may be typed into a page at pageURL: the
// client must hold it, and a secret bound to an origin goes only to a page of that host.
func CheckSecretUse(secrets []NamedSecret, name, pageURL string) error {
	for _, n := range secrets {
		if n.Name != name {
			continue
		}
		if n.Origin == "" {
			return nil
		}
		u, err := url.Parse(pageURL)
		if err == nil && sameOrigin(u, n.Origin) {
			return nil
		}
		return fmt.Errorf("%w: %q may be typed only on %s, and the page is %s", ErrSecretOrigin, name, n.Origin, hostOf(pageURL))
	}
	return fmt.Errorf("%w: the client holds no secret %q", ErrUnknownSecret, name)
}

// sameOrigin reports whether the page's host is the bound one; a binding without a port takes
// the scheme's default port.
func sameOrigin(u *url.URL, origin string) bool {
	if strings.EqualFold(u.Host, origin) {
		return true
	}
	defaultPort := u.Port() == "" || u.Port() == "443" && u.Scheme == "https" || u.Port() == "80" && u.Scheme == "http"
	return !strings.Contains(origin, ":") && defaultPort && strings.EqualFold(u.Hostname(), origin)
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "an unknown origin"
}

// SecretsPrompt is the prompt's paragraph on the secrets the client holds ("" for none); use
// is how the model refers to one (interact: secret("name") as setValue's text).
func SecretsPrompt(secrets []NamedSecret, use string) string {
	if len(secrets) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Secrets the user's browser holds (you never see their values; to type one, " + use + "; a secret bound to a site may be typed only on that site):\n")
	for _, n := range secrets {
		if n.Origin != "" {
			fmt.Fprintf(&b, "- %s (only on %s)\n", n.Name, n.Origin)
		} else {
			fmt.Fprintf(&b, "- %s\n", n.Name)
		}
	}
	return b.String()
}
