package loginfail

import (
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var (
	loginFields = []Field{{Type: "email", Name: "email", Label: "Email"}, {Type: "password", Name: "password", Label: "Password"}}
	loginPage   = Page{URL: "https://app.example.com/login", Title: "Log in", Fields: loginFields,
		Texts: []string{"Log in", "Email", "Password", "Forgot password?", "Log in"}}
	appPage = Page{URL: "https://app.example.com/projects", Title: "Projects", Texts: []string{"Projects", "New project"}}
)

// with returns p with alerts and extra text lines (both shown on the page).
func with(p Page, alerts []string, texts ...string) Page {
	p.Alerts = alerts
	p.Texts = append(slices.Clone(p.Texts), append(slices.Clone(alerts), texts...)...)
	return p
}

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Ungültige  Zugangsdaten", " ungultige zugangsdaten "},
		{"Échec de la CONNEXION.", " echec de la connexion "},
		{"Straße", " strasse "},
		{"ログインＩＤ", " ロクインid "},
		{"couldn’t sign\u00a0in", " couldn't sign in "},
		{"Неверный логин", " неверныи логин "},
		{"e‑mail / password", " e-mail password "},
		{"", " "},
	} {
		if got := fold(tc.in); got != tc.want {
			t.Errorf("fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Wrong password. Try again.", []string{"Wrong password.", "Try again."}},
		{"Contact support@example.com or call 1.800.555.0100!", []string{"Contact support@example.com or call 1.800.555.0100!"}},
		{"There was a problem\nYour password is incorrect", []string{"There was a problem", "Your password is incorrect"}},
		{"ログインに失敗しました。再度お試しください。", []string{"ログインに失敗しました。", "再度お試しください。"}},
		{"  spaced\t\tout   line  ", []string{"spaced out line"}},
		{"\n\n", nil},
	} {
		var got []string
		budget := maxSentences
		sentences(tc.in, &budget, func(s string) bool { got = append(got, s); return true })
		if !slices.Equal(got, tc.want) {
			t.Errorf("sentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSentencesStopsAtBudget(t *testing.T) {
	budget, n := 3, 0
	sentences(strings.Repeat("a. ", 10), &budget, func(string) bool { n++; return true })
	if n != 3 || budget != 0 {
		t.Errorf("got %d sentences with %d budget left, want 3 and 0", n, budget)
	}
}

func TestStatement(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Incorrect password.", "Incorrect password."},
		{"Forgot your password?", ""},
		{"Invalid email or password, forgot your password?", "Invalid email or password"},
		{"Wrong password - need help?", "Wrong password"},
		{"¿Olvidaste tu contraseña", ""},
		{"用户名或密码错误，忘记密码？", "用户名或密码错误"},
	} {
		if got := statement(tc.in); got != tc.want {
			t.Errorf("statement(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsLoginPage(t *testing.T) {
	for _, tc := range []struct {
		name string
		page Page
		want bool
	}{
		{"password field", Page{Fields: []Field{{Type: "PASSWORD"}}}, true},
		{"current-password autocomplete", Page{Fields: []Field{{Type: "text", Autocomplete: "current-password"}}}, true},
		{"one-time code field", Page{Fields: []Field{{Type: "text", Name: "app_otp"}}}, true},
		{"one-time code label", Page{Fields: []Field{{Type: "text", Label: "Bestätigungscode"}}}, true},
		{"login URL", Page{URL: "https://example.com/users/sign_in"}, true},
		{"camelCase URL", Page{URL: "https://example.com/account/signIn?next=/"}, true},
		{"escaped Japanese URL", Page{URL: "https://example.jp/%E3%83%AD%E3%82%B0%E3%82%A4%E3%83%B3"}, true},
		{"login title", Page{URL: "https://example.de/konto", Title: "Anmelden"}, true},
		{"Russian title", Page{Title: "Вход в личный кабинет"}, true},
		{"login host only", Page{URL: "https://login.example.com/dashboard", Title: "Dashboard"}, false},
		{"help article about signing in", Page{URL: "https://help.example.com/articles/sign-in-problems", Title: "Can't sign in?"}, false},
		{"plain page", Page{URL: "https://example.com/blog-login-tips", Title: "Tips"}, false},
		{"empty", Page{}, false},
	} {
		if got := IsLoginPage(tc.page); got != tc.want {
			t.Errorf("%s: IsLoginPage = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSubmits(t *testing.T) {
	for action, want := range map[string]bool{
		"click(12)": true, `pressKey("Enter")`: true, `setValue(4, "x")`: true, "wait(2)": true, "submit": true,
		`navigate("https://x.test")`: false, `scroll("down")`: false, `askUser("?")`: false, "finish()": false, "": false,
	} {
		if got := submits(action); got != want {
			t.Errorf("submits(%q) = %v, want %v", action, got, want)
		}
	}
}

// TestDetect checks the rules around the messages: what counts as new, where a message
// may be, which kind wins, and which pages and actions are considered at all.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name       string
		prev, cur  Page
		action     string
		wantKind   Kind // "" for no failure
		wantQuoted string
	}{
		{"alert on the login page", loginPage, with(loginPage, []string{"Invalid email or password."}), "click(5)",
			KindWrongCredentials, "Invalid email or password"},
		{"message in the text only", loginPage, with(loginPage, nil, "Invalid email or password."), "click(5)",
			KindWrongCredentials, "Invalid email or password"},
		{"no message", loginPage, loginPage, "click(5)", "", ""},
		{"action that cannot submit", loginPage, with(loginPage, []string{"Invalid email or password."}), `scroll("down")`, "", ""},
		{"previous page was no login page", appPage, with(appPage, []string{"Invalid email or password."}), "click(5)", "", ""},
		{"message already shown before", with(loginPage, []string{"Invalid email or password."}),
			with(loginPage, []string{"Invalid email or password."}), "click(5)", "", ""},
		{"hidden text becomes an alert", with(loginPage, nil, "Invalid email or password."),
			with(loginPage, []string{"Invalid email or password."}), "click(5)", KindWrongCredentials, "Invalid email or password"},
		{"hint before the message", loginPage, with(loginPage, nil, "If your password is incorrect, reset it."), "click(5)", "", ""},
		{"hint after the message", loginPage, with(loginPage, nil, "Incorrect password; reset it if you forgot it."), "click(5)",
			KindWrongCredentials, "Incorrect password; reset it if you forgot it"},
		{"question clause", loginPage, with(loginPage, nil, "Wrong password? Reset it here"), "click(5)", "", ""},
		{"weak word alone on a login page", loginPage, with(loginPage, nil, "Unauthorized"), "click(5)", KindLoginFailed, "Unauthorized"},
		{"weak word inside a sentence", loginPage, with(loginPage, nil, "Report unauthorized transactions to your bank within 30 days."), "click(5)", "", ""},
		{"weak word in the text of another page", loginPage, Page{URL: "https://app.example.com/home", Texts: []string{"Home", "Unauthorized"}}, "click(5)", "", ""},
		{"weak word in the title of another page", loginPage, Page{URL: "https://app.example.com/x", Title: "403 Access denied"}, "click(5)",
			KindLoginFailed, "403 Access denied"},
		{"lockout beats wrong password", loginPage,
			with(loginPage, []string{"Incorrect password.", "Your account is now locked."}), "click(5)", KindAccountLocked, "Your account is now locked"},
		{"long other page counts only by alerts", loginPage,
			Page{URL: "https://app.example.com/inbox", Texts: append(slices.Repeat([]string{"Newsletter"}, maxErrorPageLines), "Your account has been locked")},
			"click(5)", "", ""},
		{"long error page by its URL", loginPage,
			Page{URL: "https://app.example.com/account-locked", Texts: append(slices.Repeat([]string{"Menu"}, maxErrorPageLines), "Your account has been locked")},
			"click(5)", KindAccountLocked, "Your account has been locked"},
		{"help page after the login page", loginPage,
			Page{URL: "https://example.com/support/login", Texts: []string{"Your account has been locked"}}, "click(5)", "", ""},
		{"second factor field appears", loginPage,
			Page{URL: "https://app.example.com/verify", Fields: []Field{{Type: "text", Autocomplete: "one-time-code", Label: "6-digit code"}}},
			"click(5)", KindMFARequired, "6-digit code"},
		{"CAPTCHA field appears", loginPage,
			Page{URL: loginPage.URL, Fields: append(slices.Clone(loginFields), Field{Type: "text", Name: "captcha_response", Label: "Type the characters"}), Texts: loginPage.Texts},
			"click(5)", KindCaptcha, "Type the characters"},
		{"second factor text on a settings page", loginPage,
			Page{URL: "https://app.example.com/settings", Texts: []string{"Two-factor authentication", "Enter the 6-digit code"}}, "click(5)", "", ""},
		{"session expired after an app click", appPage, with(loginPage, []string{"Your session has expired."}), "click(3)",
			KindSessionExpired, "Your session has expired"},
		{"only expiry counts from an app page", appPage, with(loginPage, []string{"Incorrect password."}), "click(3)", "", ""},
		{"no previous page", Page{}, with(loginPage, []string{"Your session has expired."}), "click(3)", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Detect(tc.prev, tc.cur, tc.action)
			if got.Kind != tc.wantKind || got.Failed != (tc.wantKind != "") {
				t.Fatalf("Detect = %+v, want kind %q", got, tc.wantKind)
			}
			if tc.wantKind != "" && !strings.Contains(got.UserQuestion, "“"+tc.wantQuoted+"”") {
				t.Errorf("question %q does not quote %q", got.UserQuestion, tc.wantQuoted)
			}
		})
	}
}

// TestMessages holds each language's messages: each, shown as an alert on a login page
// after a submit, is reported with its kind and language.
func TestMessages(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		kind Kind
		lang string
	}{
		{"Incorrect username or password.", KindWrongCredentials, "en"},
		{"These credentials do not match our records.", KindWrongCredentials, "en"},
		{"The username or password provided in the request are invalid.", KindWrongCredentials, "en"},
		{"We couldn't find an account with that username.", KindUnknownAccount, "en"},
		{"Account is disabled, contact your administrator.", KindAccountLocked, "en"},
		{"You've been locked out.", KindAccountLocked, "en"},
		{"Too many requests, please slow down.", KindTooManyAttempts, "en"},
		{"reCAPTCHA verification failed, please try again.", KindCaptcha, "en"},
		{"Invalid verification code.", KindMFAInvalid, "en"},
		{"We sent a 6-digit code to +1 ••• ••• 0123.", KindMFARequired, "en"},
		{"Authentication failed.", KindLoginFailed, "en"},
		{"Ihr Passwort ist falsch.", KindWrongCredentials, "de"},
		{"Kein Konto mit dieser E-Mail-Adresse gefunden.", KindUnknownAccount, "de"},
		{"Zu viele Anmeldeversuche. Bitte warten Sie.", KindTooManyAttempts, "de"},
		{"Ihre Sitzung ist abgelaufen.", KindSessionExpired, "de"},
		{"Anmeldung fehlgeschlagen", KindLoginFailed, "de"},
		{"Votre mot de passe est incorrect.", KindWrongCredentials, "fr"},
		{"Aucun compte n'est associé à cette adresse e-mail.", KindUnknownAccount, "fr"},
		{"Votre compte a été bloqué.", KindAccountLocked, "fr"},
		{"Votre session a expiré, veuillez vous reconnecter.", KindSessionExpired, "fr"},
		{"Tu contraseña no es correcta.", KindWrongCredentials, "es"},
		{"Demasiados intentos. Inténtalo más tarde.", KindTooManyAttempts, "es"},
		{"Error al iniciar sesión.", KindLoginFailed, "es"},
		{"La tua password non è corretta.", KindWrongCredentials, "it"},
		{"Troppi tentativi di accesso.", KindTooManyAttempts, "it"},
		{"La sessione è scaduta.", KindSessionExpired, "it"},
		{"Sua senha está incorreta.", KindWrongCredentials, "pt"},
		{"Conta bloqueada.", KindAccountLocked, "pt"},
		{"Неправильный логин или пароль.", KindWrongCredentials, "ru"},
		{"Ваш аккаунт заблокирован.", KindAccountLocked, "ru"},
		{"Не удалось войти.", KindLoginFailed, "ru"},
		{"Je wachtwoord is onjuist.", KindWrongCredentials, "nl"},
		{"Je account is geblokkeerd.", KindAccountLocked, "nl"},
		{"パスワードが正しくありません。", KindWrongCredentials, "ja"},
		{"アカウントがロックされています。", KindAccountLocked, "ja"},
		{"セッションの有効期限が切れました。", KindSessionExpired, "ja"},
		{"您的密码不正确", KindWrongCredentials, "zh"},
		{"用户不存在", KindUnknownAccount, "zh"},
		{"登录失败", KindLoginFailed, "zh"},
	} {
		got := Detect(loginPage, with(loginPage, []string{tc.msg}), "click(5)")
		if got.Kind != tc.kind || got.Language != tc.lang {
			t.Errorf("%q: kind %q language %q, want %q %q", tc.msg, got.Kind, got.Language, tc.kind, tc.lang)
		}
	}
}

// TestNotMessages holds sentences that share words with the messages but are hints,
// policies or links.
func TestNotMessages(t *testing.T) {
	for _, s := range []string{
		"Forgot your password?",
		"Passwords are case-sensitive.",
		"Password must contain at least 8 characters.",
		"After 5 failed attempts your account will be locked.",
		"If you entered the wrong password, reset it.",
		"This site is protected by reCAPTCHA and the Google Privacy Policy and Terms of Service apply.",
		"Unauthorized access to this system is prohibited and will be prosecuted.",
		"Wenn Sie Ihr Passwort falsch eingeben, wird Ihr Konto gesperrt.",
		"Si vous avez oublié votre mot de passe, réinitialisez-le.",
		"Si introduces la contraseña incorrecta tres veces, bloquearemos tu cuenta.",
		"Если вы забыли пароль, восстановите его.",
		"パスワードを忘れた場合はこちら",
		"如果忘记密码，请点击这里",
		"Passwords do not match.",
		"Please enter a valid email address.",
	} {
		if got := Detect(loginPage, with(loginPage, nil, s), "click(5)"); got.Failed {
			t.Errorf("%q: reported %s (%q), want no failure", s, got.Kind, got.Evidence)
		}
	}
}

func TestQuestion(t *testing.T) {
	long := strings.Repeat("word ", 60) + "incorrect password"
	for _, tc := range []struct {
		name, evidence, want string
	}{
		{"quotes the site", "Wrong password.", "The site rejected the login details: “Wrong password”. Could you check your credentials"},
		{"without evidence", "", "The site rejected the login details. Could you check your credentials"},
	} {
		if got := question(KindWrongCredentials, tc.evidence); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: question = %q, want prefix %q", tc.name, got, tc.want)
		}
	}
	for k := range priority {
		if q := question(k, "x"); !strings.HasSuffix(q, "?") || !strings.Contains(q, "“x”") {
			t.Errorf("question(%s) = %q, want a question quoting the evidence", k, q)
		}
	}
	if got := shorten("say \"hi\"\x00\u200b there"); got != "say 'hi' there" {
		t.Errorf("shorten kept quotes or controls: %q", got)
	}
	got := shorten(long)
	if n := utf8.RuneCountInString(got); n > maxEvidenceRunes || !strings.HasSuffix(got, "…") || strings.Contains(got, "wor…") {
		t.Errorf("shorten(long) = %q (%d runes), want at most %d runes cut at a word", got, n, maxEvidenceRunes)
	}
}

func TestFieldOf(t *testing.T) {
	attrs := func(m map[string]string) func(string) (string, bool) {
		return func(n string) (string, bool) { v, ok := m[n]; return v, ok }
	}
	for _, tc := range []struct {
		name  string
		tag   string
		attrs map[string]string
		want  Field
		ok    bool
	}{
		{"password input", "INPUT", map[string]string{"type": "password", "name": "pw", "aria-label": "Password", "placeholder": "••••"},
			Field{Type: "password", Name: "pw", Label: "Password"}, true},
		{"placeholder as label", "input", map[string]string{"name": "q", "placeholder": "Search"}, Field{Type: "text", Name: "q", Label: "Search"}, true},
		{"textarea", "textarea", map[string]string{"name": "msg"}, Field{Type: "textarea", Name: "msg"}, true},
		{"submit button", "input", map[string]string{"type": "submit"}, Field{}, false},
		{"hidden input", "input", map[string]string{"type": "hidden", "name": "csrf"}, Field{}, false},
		{"link", "a", map[string]string{"href": "/"}, Field{}, false},
	} {
		got, ok := FieldOf(tc.tag, attrs(tc.attrs))
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: FieldOf = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	for _, tc := range []struct {
		re   string
		want []string // nil: none
	}{
		{`abc`, []string{"abc"}},
		{`(?:invalid|wrong) password`, []string{" password"}},
		{`x(?:ab|cd)y?`, []string{"ab", "cd"}},
		{`(?:foo|b*)`, nil},
		{`a.{0,3}b`, []string{"a"}},
		{`(?:abc)+`, []string{"abc"}},
		{`(?:abc){0,2}`, nil},
	} {
		parsed, err := syntax.Parse(tc.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := requiredLiterals(parsed.Simplify())
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("requiredLiterals(%q) = %q, %v; want %q", tc.re, got, ok, tc.want)
		}
	}
	rules, index := ruleSet()
	if len(index.always) != 0 {
		for _, i := range index.always {
			t.Errorf("rule %s/%s has no literal of two bytes or more: it runs on every sentence", rules[i].kind, rules[i].lang)
		}
	}
}
