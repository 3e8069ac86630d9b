// Package loginfail tells, after an action on a login page, whether the login failed in
// a way that only the user can fix (wrong credentials, an unknown or locked account,
// throttling, a CAPTCHA, a second factor, an expired session), so that the engine asks
// the user instead of letting the model retry.
//
// The input is plain data, so the package depends on no other agent package:
//
//	res := loginfail.Detect(prev, cur, "click(12)")
//	if res.Failed {
//		// answer needs_user_input with res.UserQuestion; res.Kind, res.Evidence and
//		// res.Language say what the site said, for the records
//	}
//
// prev is the page the action was taken on and cur the page the client sends now. A
// [Page] is its URL, title, visible text lines in document order, input fields and the
// text of its alert containers (role=alert, aria-live, error-classed elements); [FieldOf]
// turns an element's tag and attributes into a [Field], and [IsLoginPage] is the test
// Detect applies to both pages.
//
// A login has failed when the previous page was a login page (a password or one-time-code
// field, or a login URL or title, unless it is a help page), the action could have
// submitted it (the interact grammar's click, pressKey, setValue — some forms submit
// themselves — and wait, the run API's click, press, type and submit), and the current
// page is a login page that shows a message about the login, or another page whose
// alerts or title do, or whose text does when it is short (error pages are; an inbox
// listing "Login failed for build #42" is not). A CAPTCHA or one-time-code field that the
// action made appear counts too. An expired session is also reported when any page led
// to a login page that says the session ended.
//
// Messages are recognized in English, German, French, Spanish, Italian, Portuguese,
// Russian, Dutch, Japanese and Chinese, sentence by sentence on folded text (case,
// diacritics, full-width forms and whitespace do not matter), and only when they are new:
// a sentence the previous page already showed is the site's static text or an error
// already reported, and reporting it again would ask the user on every step while the
// agent refills the form. Hints, policies and links ("Forgot your password?", "Passwords
// are case-sensitive", "If your account is locked…", "protected by reCAPTCHA") and help
// centres and blogs are not failures. The labelled corpus in testdata/corpus measures
// precision and recall (corpus_test.go).
//
// Detect never fails and bounds its work on any input: the page is untrusted.
package loginfail

import (
	"net/url"
	"regexp"
	"strings"
)

// Field is an input on the page.
type Field struct {
	Type         string `json:"type,omitempty"` // the input's type attribute ("password", "email", ...)
	Name         string `json:"name,omitempty"`
	Autocomplete string `json:"autocomplete,omitempty"`
	Label        string `json:"label,omitempty"` // its label, aria-label or placeholder
}

// Page is what the detector needs to know of a page.
type Page struct {
	URL    string   `json:"url,omitempty"`
	Title  string   `json:"title,omitempty"`
	Texts  []string `json:"texts,omitempty"`  // visible text lines in document order
	Fields []Field  `json:"fields,omitempty"` // the page's inputs
	Alerts []string `json:"alerts,omitempty"` // text of role=alert, aria-live and error-classed containers
}

// Kind is what went wrong.
type Kind string

const (
	KindWrongCredentials Kind = "wrong_credentials" // the site rejected the username, email or password
	KindUnknownAccount   Kind = "unknown_account"   // no account exists for that username or email
	KindAccountLocked    Kind = "account_locked"    // locked, disabled or suspended: retrying will not help
	KindTooManyAttempts  Kind = "too_many_attempts" // the site throttles further attempts
	KindCaptcha          Kind = "captcha"           // a CAPTCHA or "are you human" check
	KindMFARequired      Kind = "mfa_required"      // the site asks for a second factor (code, approval, link)
	KindMFAInvalid       Kind = "mfa_invalid"       // the site rejected the second factor's code
	KindSessionExpired   Kind = "session_expired"   // the session ended and the site asks to log in again
	KindLoginFailed      Kind = "login_failed"      // the login failed without saying why
)

// priority orders the kinds when a page shows several messages: the one that most
// changes what the user has to do wins ("Incorrect password. Your account is now locked"
// is a lockout; "Login failed: invalid password" is about the password).
var priority = map[Kind]int{
	KindAccountLocked: 0, KindTooManyAttempts: 1, KindUnknownAccount: 2, KindWrongCredentials: 3,
	KindMFAInvalid: 4, KindCaptcha: 5, KindSessionExpired: 6, KindLoginFailed: 7, KindMFARequired: 8,
}

// Result is the detector's verdict.
type Result struct {
	Failed bool `json:"failed"`
	Kind   Kind `json:"kind,omitempty"`
	// Evidence is the site's own words (the sentence that matched, or the label of the
	// field that appeared), shortened for display.
	Evidence string `json:"evidence,omitempty"`
	// Language is the language of the matched message ("en", "de", ..., "zh"); empty when
	// the evidence is a field.
	Language string `json:"language,omitempty"`
	// UserQuestion asks the user, in English, to fix what the site reported, quoting it.
	UserQuestion string `json:"userQuestion,omitempty"`
}

// Detect reports whether lastAction (the action as the engine wrote it, e.g. `click(12)`,
// or a bare tool name) on prev made the login fail, as cur shows.
func Detect(prev, cur Page, lastAction string) Result {
	var m match
	switch {
	case IsLoginPage(prev) && submits(lastAction):
		curLogin := IsLoginPage(cur)
		if !curLogin && helpPage(cur) {
			return Result{}
		}
		m = scan(prev, cur, curLogin, nil)
		if f := newFieldMatch(prev, cur); f.found && (!m.found || priority[f.kind] < priority[m.kind]) {
			m = f
		}
	case !empty(prev) && IsLoginPage(cur):
		m = scan(prev, cur, true, func(k Kind) bool { return k == KindSessionExpired })
	}
	if !m.found {
		return Result{}
	}
	evidence := shorten(m.evidence)
	return Result{Failed: true, Kind: m.kind, Evidence: evidence, Language: m.lang, UserQuestion: question(m.kind, evidence)}
}

// submits reports whether the action could have submitted a form.
func submits(action string) bool {
	name := strings.TrimSpace(action)
	if i := strings.IndexAny(name, "( "); i >= 0 {
		name = name[:i]
	}
	switch strings.ToLower(name) {
	case "click", "presskey", "setvalue", "wait", "press", "type", "submit":
		return true
	}
	return false
}

func empty(p Page) bool {
	return p.URL == "" && p.Title == "" && len(p.Texts) == 0 && len(p.Fields) == 0 && len(p.Alerts) == 0
}

var (
	// loginPlace is a login URL's path or query, or a login title, folded: the word for
	// signing in in each language, as a word of its own.
	loginPlace = regexp.MustCompile(foldPattern(`\b(login|log[- ]?in|log[- ]?on|sign[- ]?in|sign[- ]?on|signin|sso|authenticate|authentication|anmelden|anmeldung|einloggen|connexion|se connecter|identification|iniciar sesión|iniciar-sesion|acceder|accedi|accesso|entrar|fazer login|вход|войти|авторизация|inloggen|aanmelden|inlog)\b|ログイン|サインイン|登录|登錄|登入`))
	// oneTimeCode is a second-factor code field's name, label or autocomplete.
	oneTimeCode  = regexp.MustCompile(foldPattern(`\b(one-time-code|otp|totp|mfa|2fa|tfa|one-time|onetime|passcode|(verification|security|auth|authentication|sms|approval|two-factor) ?code|bestätigungscode|sicherheitscode|verifizierungscode|code de vérification|código de verificación|codice di verifica|código de verificação|код подтверждения|одноразовый код|verificatiecode|beveiligingscode)\b|確認コード|認証コード|ワンタイムパスワード|短信验证码|动态码|動態碼`))
	captchaField = regexp.MustCompile(foldPattern(`captcha|\b(security check|are you human|kein roboter|pas un robot|no soy un robot|non sono un robot|não sou um robô|не робот|geen robot)\b|画像認証|图形验证码|圖形驗證碼`))
	// helpPlace is a help centre's, documentation's or blog's URL path or title: there a
	// login error message is a topic, not a verdict.
	helpPlace = regexp.MustCompile(foldPattern(`\b(help|helpcenter|help-center|support|faq|faqs|docs|documentation|blog|article|articles|kb|knowledge|knowledgebase|knowledge-base|hc|community|forum|forums|guide|guides|hilfe|aide|ayuda|aiuto|ajuda|assistenza|suporte|soporte|справка|помощь|поддержка|blogs)\b|ヘルプ|よくある質問|帮助|幫助|常见问题|常見問題`))
	// errorPlace is an error page's URL: such a page may be long and still be about the login.
	errorPlace = regexp.MustCompile(`(?i)(error|fail|locked|suspended|denied|blocked|expired|unauthori[sz]ed|forbidden|captcha|challenge)`)
)

// IsLoginPage reports whether p is a step of a login: it has a password or one-time-code
// field, or its URL or title names logging in and it is not a help page.
func IsLoginPage(p Page) bool {
	for _, f := range p.Fields {
		if strings.EqualFold(strings.TrimSpace(f.Type), "password") ||
			strings.Contains(strings.ToLower(f.Autocomplete), "current-password") || isOneTimeCode(f) {
			return true
		}
	}
	// A help article about signing in names it in its URL and title too.
	return !helpPage(p) && (loginPlace.MatchString(fold(urlPlace(p.URL))) || loginPlace.MatchString(fold(p.Title)))
}

func isOneTimeCode(f Field) bool {
	return oneTimeCode.MatchString(fold(f.Autocomplete + " " + f.Name + " " + f.Label))
}

func isCaptcha(f Field) bool {
	return captchaField.MatchString(fold(f.Name + " " + f.Label))
}

// urlPlace is the path and query of a URL, with camelCase split ("/signIn" is "sign In"):
// the host says little ("login.example.com" serves the app as well).
func urlPlace(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexAny(u, "/?#"); j >= 0 {
			u = u[j:]
		} else {
			u = ""
		}
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c >= 'A' && c <= 'Z' && i > 0 && u[i-1] >= 'a' && u[i-1] <= 'z' {
			b.WriteByte(' ')
		}
		b.WriteByte(c)
	}
	if un, err := url.PathUnescape(b.String()); err == nil {
		return un
	}
	return b.String()
}

func helpPage(p Page) bool {
	return helpPlace.MatchString(fold(urlPlace(p.URL))) || helpPlace.MatchString(fold(p.Title))
}

// FieldOf turns an element into a Field from its tag and a lookup of its attributes (a
// parsed page element's Attr method fits). ok is false for what a person does not type
// into or pick from: buttons, hidden inputs, anything that is not an input, a textarea or
// a select.
func FieldOf(tag string, attr func(name string) (string, bool)) (f Field, ok bool) {
	get := func(name string) string {
		v, _ := attr(name)
		return strings.TrimSpace(v)
	}
	switch tag = strings.ToLower(tag); tag {
	case "input":
		f.Type = strings.ToLower(get("type"))
		switch f.Type {
		case "":
			f.Type = "text"
		case "submit", "button", "reset", "image", "hidden":
			return Field{}, false
		}
	case "textarea", "select":
		f.Type = tag
	default:
		return Field{}, false
	}
	f.Name, f.Autocomplete = get("name"), get("autocomplete")
	for _, name := range []string{"aria-label", "placeholder", "title"} {
		if f.Label = get(name); f.Label != "" {
			break
		}
	}
	return f, true
}
