package loginfail

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzDetect feeds untrusted page text to the detector: it must not panic, and its
// result must be consistent whatever the text, title, URL and labels.
func FuzzDetect(f *testing.F) {
	for _, seed := range []struct{ url, title, before, after, label string }{
		{"https://x.test/login", "Sign in", "Email\nPassword", "Incorrect password.\nEmail\nPassword", "Password"},
		{"https://x.test/anmelden", "Anmelden", "", "Benutzername oder Passwort falsch.", "Kennwort"},
		{"https://x.test/%E3%83%AD", "ログイン", "", "パスワードが正しくありません。ログインＩＤ", "確認コード"},
		{"https://x.test/%zz", "", "Forgot password?", "Wrong password? Reset it", ""},
		{"", "\xff\xfe", "\x00", "\xc3\x28 incorrect \u200b password \ufffd", "\"quote\""},
		{"https://x.test/login", "Вход", "", "Сессия истекла. Неверный логин или пароль" + strings.Repeat(" пароль", 200), "otp"},
		{"https://x.test/help", "Help", "", "Your account has been locked.", "captcha"},
		{"https://x.test/login", "", "", strings.Repeat("a.", 5000), ""},
	} {
		f.Add(seed.url, seed.title, seed.before, seed.after, seed.label)
	}
	f.Fuzz(func(t *testing.T, url, title, before, after, label string) {
		prev := Page{URL: url, Title: title, Texts: strings.Split(before, "\n"),
			Fields: []Field{{Type: "password", Label: label}}}
		cur := Page{URL: url, Title: title, Texts: strings.Split(after, "\n"), Alerts: []string{after},
			Fields: []Field{{Type: "password", Label: label}, {Type: "text", Name: label, Label: label}}}
		for _, action := range []string{"click(1)", after} {
			res := Detect(prev, cur, action)
			if res.Failed != (res.Kind != "") || res.Failed != (res.UserQuestion != "") {
				t.Fatalf("inconsistent result %+v", res)
			}
			if !res.Failed {
				if res.Evidence != "" || res.Language != "" {
					t.Fatalf("no failure but evidence or language: %+v", res)
				}
				continue
			}
			if _, ok := priority[res.Kind]; !ok {
				t.Fatalf("unknown kind %q", res.Kind)
			}
			if !utf8.ValidString(res.Evidence) || utf8.RuneCountInString(res.Evidence) > maxEvidenceRunes {
				t.Fatalf("evidence %q is not valid UTF-8 of at most %d runes", res.Evidence, maxEvidenceRunes)
			}
			if strings.ContainsFunc(res.Evidence, func(r rune) bool { return r == '"' || unicode.IsControl(r) }) {
				t.Fatalf("evidence %q has a double quote or a control character", res.Evidence)
			}
		}
		if got := Detect(Page{}, cur, "click(1)"); got.Failed {
			t.Fatalf("failure reported without a previous page: %+v", got)
		}
		folded := fold(after)
		if fold(folded) != folded {
			t.Fatalf("fold is not idempotent on %q: %q then %q", after, folded, fold(folded))
		}
		rules, index := ruleSet()
		candidates := index.candidates(folded)
		for i, r := range rules {
			if r.re().MatchString(folded) && !candidates[i] {
				t.Fatalf("rule %s/%s matches %q but the index ruled it out", r.kind, r.lang, folded)
			}
		}
	})
}

// BenchmarkDetect measures a long login page (3,000 distinct lines) with an error at its end.
func BenchmarkDetect(b *testing.B) {
	var lines []string
	for i := range 3000 {
		lines = append(lines, fmt.Sprintf("Paragraph %d of ordinary text about shipping, returns and the weather in town.", i))
	}
	prev := Page{URL: "https://x.test/login", Title: "Sign in", Fields: loginFields}
	cur := prev
	cur.Texts = append(lines, "Incorrect username or password.")
	for b.Loop() {
		if !Detect(prev, cur, "click(1)").Failed {
			b.Fatal("not detected")
		}
	}
}
