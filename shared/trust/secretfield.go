package trust

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/trust/fold"
)

// Field is what a page tells of an input: its tag and attributes and the text of its label.
type Field struct {
	Tag, Type, Autocomplete, Name, ID, AriaLabel, Placeholder, Title, Label string
	// Value is the value the field holds; InputMode and MaxLength are its inputmode and maxlength
	// attributes (MaxLength 0: none).
	Value, InputMode string
	MaxLength        int
	// Masked: the field shows its value masked, whatever its type now (the client saw it as a
	// password field, or its style has -webkit-text-security).
	Masked bool
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
	if typ == "password" || f.Masked || maskGlyphs(f.Value) || maskGlyphs(f.Placeholder) || cardField(f) {
		return true
	}
	for _, tok := range strings.Fields(strings.ToLower(f.Autocomplete)) {
		if secretAutocomplete[tok] {
			return true
		}
	}
	return SecretText(f.Name, f.ID, f.AriaLabel, f.Placeholder, f.Title, f.Label)
}

// SecretFields reports which of a page's fields, in document order, are secret fields: those
// SecretField says are, and those only their neighbours tell of, in any language: four or more
// one-character boxes in a row (a one-time code or PIN typed a digit per box), and the short
// fields (at most 4 characters) among the three after a card number, up to the first of 3 or 4
// characters (the expiry and the card's security code).
func SecretFields(fs []Field) []bool {
	out := make([]bool, len(fs))
	var typed []int // the fields that take typed text
	for i, f := range fs {
		out[i] = SecretField(f)
		if takesText(f) {
			typed = append(typed, i)
		}
	}
	for k := 0; k < len(typed); {
		n := 0
		for k+n < len(typed) && fs[typed[k+n]].MaxLength == 1 {
			n++
		}
		if n >= minCodeBoxes {
			for _, i := range typed[k : k+n] {
				out[i] = true
			}
		}
		k += max(n, 1)
	}
	for k, i := range typed {
		if !cardField(fs[i]) {
			continue
		}
		for _, j := range typed[k+1 : min(k+4, len(typed))] {
			if n := fs[j].MaxLength; n >= 2 && n <= 4 {
				out[j] = true
				if n >= 3 {
					break
				}
			}
		}
	}
	return out
}

// minCodeBoxes is the fewest one-character boxes in a row read as a code typed a digit per box.
const minCodeBoxes = 4

func takesText(f Field) bool {
	tag := strings.ToLower(strings.TrimSpace(f.Tag))
	return (tag == "input" || tag == "textarea") && !notTyped[strings.ToLower(strings.TrimSpace(f.Type))]
}

// cardField reports a field of a payment card's number, whatever its language: autocomplete
// cc-number, a value that is a card number, or a placeholder drawn as one ("1234 1234 1234 1234",
// "•••• •••• •••• ••••").
func cardField(f Field) bool {
	return slices.Contains(strings.Fields(strings.ToLower(f.Autocomplete)), "cc-number") || CardNumber(f.Value) || cardPlaceholder(f.Placeholder)
}

// CardNumber reports whether s is a payment card number: 13 to 19 digits (spaces and dashes
// between them allowed) of a card network's range (2-6 first) that pass the Luhn check.
func CardNumber(s string) bool {
	digits := make([]int, 0, 19)
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9':
			digits = append(digits, int(r-'0'))
		case r == ' ' || r == '-':
		default:
			return false
		}
	}
	if len(digits) < 13 || len(digits) > 19 || digits[0] < 2 || digits[0] > 6 {
		return false
	}
	sum := 0
	for i := range digits {
		d := digits[len(digits)-1-i]
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// cardPlaceholder reports a placeholder drawn as a card number: 13 to 19 digits, x's or mask
// glyphs in groups (at least three spaces or dashes between them).
func cardPlaceholder(s string) bool {
	n, seps := 0, 0
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r == ' ' || r == '-':
			seps++
		case r >= '0' && r <= '9' || r == 'x' || r == 'X' || isMaskGlyph(r):
			n++
		default:
			return false
		}
	}
	return n >= 13 && n <= 19 && seps >= 3
}

// maskGlyphs reports a text of three or more mask glyphs only ("••••••", "****"): a field that
// holds or shows one hides what is typed into it.
func maskGlyphs(s string) bool {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) < 3 {
		return false
	}
	for _, r := range s {
		if !isMaskGlyph(r) {
			return false
		}
	}
	return true
}

func isMaskGlyph(r rune) bool { return strings.ContainsRune("•●∙·⋅◦*＊﹡⁕✱", r) }

// MaskedStyle reports whether an inline style masks the field's text (-webkit-text-security
// other than none), as a password field does.
func MaskedStyle(style string) bool {
	style = strings.ToLower(style)
	for _, decl := range strings.Split(style, ";") {
		prop, value, ok := strings.Cut(decl, ":")
		if ok && strings.HasSuffix(strings.TrimSpace(prop), "text-security") && !strings.HasPrefix(strings.TrimSpace(value), "none") {
			return true
		}
	}
	return false
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
