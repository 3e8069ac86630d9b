package trust

import (
	"strings"
	"unicode"

	"github.com/screenagent/backend/shared/trust/fold"
)

// Field is what a page tells of an input: its tag and attributes and the text of its label.
type Field struct {
	Tag, Type, Autocomplete, Name, ID, AriaLabel, Placeholder, Title, Label string
}

// notTyped are the input types that hold no typed value (a "show password" checkbox is not a
// password).
var notTyped = map[string]bool{
	"checkbox": true, "radio": true, "submit": true, "button": true, "reset": true, "image": true,
	"file": true, "range": true, "color": true, "hidden": true,
}

// secretAutocomplete are the autocomplete tokens of secrets (WHATWG autofill field names).
var secretAutocomplete = map[string]bool{
	"current-password": true, "new-password": true, "one-time-code": true, "cc-number": true,
	"cc-csc": true, "cc-exp": true, "cc-exp-month": true, "cc-exp-year": true,
}

// SecretField reports whether a field's value is a secret that must never reach the model,
// storage or a log: a password input, an input whose autocomplete names a password, a card
// detail or a one-time code, or one whose name, id, aria-label, placeholder, title or label
// says password, passcode, PIN, security code (CVV/CVC), card number or one-time code, in any
// of the languages of secretTerms (a show-password toggle turns a password input into a text
// input; its name and label still say what it is).
func SecretField(f Field) bool {
	tag := strings.ToLower(strings.TrimSpace(f.Tag))
	typ := strings.ToLower(strings.TrimSpace(f.Type))
	if tag != "input" && tag != "textarea" || notTyped[typ] {
		return false
	}
	if typ == "password" {
		return true
	}
	for _, tok := range strings.Fields(strings.ToLower(f.Autocomplete)) {
		if secretAutocomplete[tok] {
			return true
		}
	}
	return SecretText(f.Name, f.ID, f.AriaLabel, f.Placeholder, f.Title, f.Label)
}

// SecretText reports whether any of the texts names a secret (see secretTerms), and none
// names a postal code ("PIN code" is India's postal code).
func SecretText(texts ...string) bool {
	found := false
	for _, t := range texts {
		if t == "" {
			continue
		}
		words := " " + strings.Join(wordsOf(t), " ") + " "
		for _, p := range notSecret {
			if strings.Contains(words, p) {
				return false
			}
		}
		if !found {
			found = namesSecret(words)
		}
	}
	return found
}

// namesSecret matches the terms against " word word ... " text: a term of a script that
// separates words matches whole words (or, when long, the start of a compound such as
// "passwordconfirm"); a term of a script that does not (Chinese, Japanese, Thai) matches
// anywhere.
func namesSecret(words string) bool {
	joined := strings.ReplaceAll(words, " ", "")
	for _, term := range foldedTerms {
		switch {
		case term.unspaced:
			if strings.Contains(joined, term.text) {
				return true
			}
		case strings.Contains(words, " "+term.text+" "):
			return true
		case len(term.text) >= 6 && !strings.Contains(term.text, " ") && containsWordPrefix(words, term.text):
			return true
		}
	}
	return false
}

// containsWordPrefix reports whether a word of words contains term (a compound: "newpassword",
// "userpasswort").
func containsWordPrefix(words, term string) bool {
	for _, w := range strings.Fields(words) {
		if strings.Contains(w, term) {
			return true
		}
	}
	return false
}

// wordsOf folds s and splits it into words: at spaces and punctuation, and where a lower-case
// letter meets an upper-case one ("userPassword", "cardNumber").
func wordsOf(s string) []string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		if unicode.IsUpper(r) && prevLower {
			b.WriteByte(' ')
		}
		prevLower = unicode.IsLower(r)
		b.WriteRune(r)
	}
	return strings.FieldsFunc(fold.String(b.String()), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Mc, r)
	})
}

type term struct {
	text     string
	unspaced bool
}

// foldedTerms are secretTerms folded and split into words as field texts are.
var foldedTerms = func() []term {
	var out []term
	for _, t := range secretTerms {
		w := strings.Join(wordsOf(t), " ")
		out = append(out, term{text: w, unspaced: unspacedScript(t)})
	}
	return out
}()

func unspacedScript(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) {
			return true
		}
	}
	return false
}

// notSecret are folded words of fields that a secret term would otherwise catch: a postal code
// ("PIN code" is India's postal code) and a search keyword ("parola chiave", "palabra clave").
var notSecret = []string{" zip ", " zipcode ", " postal ", " postcode ", " delivery pin ", " parola chiave ", " palabra clave ", " search "}

// secretTerms name secret fields: passwords, PINs, card numbers and security codes, one-time
// codes, in the languages of the product's users. Terms are matched after folding (case,
// accents and look-alike letters do not matter).
var secretTerms = []string{
	// English and shared abbreviations
	"password", "passwd", "pwd", "pass", "passcode", "passphrase", "pin", "pin code", "pin number",
	"cvv", "cvv2", "cvc", "cvc2", "csc", "cvn", "security code", "card security code", "card verification",
	"card number", "cardnumber", "ccnumber", "cc number", "ccnum", "credit card", "debit card number",
	"card no", "otp", "totp", "2fa", "mfa code", "one time code", "one time password", "one time passcode",
	"verification code", "auth code", "authentication code", "sms code", "access code", "secret answer",
	"security answer",
	// German, Dutch, Scandinavian, Finnish
	"passwort", "kennwort", "geheimzahl", "kartennummer", "prufnummer", "sicherheitscode", "bestatigungscode",
	"einmalcode", "wachtwoord", "kaartnummer", "beveiligingscode", "losenord", "passord", "adgangskode",
	"kodeord", "salasana", "kortnummer", "kortinumero", "turvakoodi",
	// Romance languages
	"mot de passe", "code secret", "numero de carte", "cryptogramme", "code de securite", "code de verification",
	"contrasena", "clave", "numero de tarjeta", "codigo de seguridad", "codigo de verificacion", "senha",
	"numero do cartao", "codigo de seguranca", "palavra passe", "parola d ordine", "codice di sicurezza",
	"numero di carta", "numero della carta", "codice di verifica", "parola", "parolă", "cod de securitate",
	"numarul cardului", "contrasenya",
	// Slavic, Baltic, Hungarian, Greek, Turkish
	"пароль", "пин код", "номер карты", "код безопасности", "код подтверждения", "одноразовый код",
	"лозинка", "парола", "heslo", "haslo", "hasło", "numer karty", "kod bezpieczenstwa", "kod weryfikacyjny",
	"cislo karty", "slaptazodis", "parole", "jelszo", "kartyaszam", "biztonsagi kod", "κωδικος", "κωδικος προσβασης",
	"αριθμος καρτας", "sifre", "şifre", "kart numarasi", "guvenlik kodu", "dogrulama kodu",
	// Middle East, South and South-East Asia, Africa
	"كلمة المرور", "كلمة السر", "رقم البطاقة", "رمز التحقق", "رمز الأمان", "رمز عبور", "گذرواژه", "סיסמה", "סיסמא",
	"מספר כרטיס", "קוד אימות", "पासवर्ड", "पिन", "कार्ड नंबर", "ओटीपी", "पासकोड", "পাসওয়ার্ড", "পিন", "கடவுச்சொல்",
	"పాస్వర్డ్", "ಪಾಸ್ವರ್ಡ್", "പാസ്‌വേഡ്", "پاس ورڈ", "mat khau", "ma pin", "so the tin dung", "ma xac minh", "ma bao mat",
	"kata sandi", "kata laluan", "nomor kartu", "kode verifikasi", "kode keamanan", "nenosiri", "neno la siri",
	"รหัสผ่าน", "รหัส otp", "หมายเลขบัตร", "รหัสยืนยัน",
	// East Asia
	"密码", "密碼", "口令", "卡号", "卡號", "验证码", "驗證碼", "安全码", "パスワード", "暗証番号", "カード番号",
	"セキュリティコード", "認証コード", "確認コード", "ワンタイム", "비밀번호", "암호", "카드 번호", "카드번호", "인증번호",
	"보안코드", "보안 코드",
}
