package trust

import "testing"

func TestSecretField(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Field
		want bool
	}{
		{"password type", Field{Tag: "input", Type: "PASSWORD"}, true},
		{"current-password autocomplete", Field{Tag: "input", Type: "text", Autocomplete: "section-login current-password"}, true},
		{"one-time-code autocomplete", Field{Tag: "input", Autocomplete: "one-time-code"}, true},
		{"card security code autocomplete", Field{Tag: "input", Autocomplete: "cc-csc"}, true},
		{"name behind a show-password toggle", Field{Tag: "input", Type: "text", Name: "password"}, true},
		{"camel-case id", Field{Tag: "input", ID: "userPassword"}, true},
		{"compound name", Field{Tag: "input", Name: "loginpasswd"}, true},
		{"aria-label", Field{Tag: "input", AriaLabel: "Password"}, true},
		{"placeholder PIN", Field{Tag: "input", Placeholder: "Enter your PIN"}, true},
		{"title CVC", Field{Tag: "input", Title: "CVC"}, true},
		{"label security code", Field{Tag: "input", Label: "Security code (3 digits)"}, true},
		{"card number name", Field{Tag: "input", Name: "card_number"}, true},
		{"cardNumber id", Field{Tag: "input", ID: "cardNumber"}, true},
		{"one-time code label", Field{Tag: "input", Label: "One-time code"}, true},
		{"textarea passphrase", Field{Tag: "textarea", Name: "passphrase"}, true},
		{"German", Field{Tag: "input", Label: "Passwort"}, true},
		{"French", Field{Tag: "input", AriaLabel: "Mot de passe"}, true},
		{"Spanish with accents", Field{Tag: "input", Placeholder: "Contraseña"}, true},
		{"Portuguese", Field{Tag: "input", Label: "Senha"}, true},
		{"Italian card", Field{Tag: "input", Label: "Numero di carta"}, true},
		{"Dutch", Field{Tag: "input", Label: "Wachtwoord"}, true},
		{"Polish", Field{Tag: "input", Label: "Hasło"}, true},
		{"Turkish", Field{Tag: "input", Label: "Şifre"}, true},
		{"Russian", Field{Tag: "input", Label: "Пароль"}, true},
		{"Russian card", Field{Tag: "input", Placeholder: "Номер карты"}, true},
		{"Greek", Field{Tag: "input", Label: "Κωδικός πρόσβασης"}, true},
		{"Arabic", Field{Tag: "input", Label: "كلمة المرور"}, true},
		{"Hebrew", Field{Tag: "input", Label: "סיסמה"}, true},
		{"Hindi", Field{Tag: "input", Label: "पासवर्ड"}, true},
		{"Thai", Field{Tag: "input", Placeholder: "กรอกรหัสผ่าน"}, true},
		{"Vietnamese", Field{Tag: "input", Label: "Mật khẩu"}, true},
		{"Indonesian", Field{Tag: "input", Label: "Kata sandi"}, true},
		{"Chinese", Field{Tag: "input", Placeholder: "请输入密码"}, true},
		{"Japanese", Field{Tag: "input", Label: "パスワード"}, true},
		{"Korean", Field{Tag: "input", Label: "비밀번호"}, true},
		{"look-alike letters", Field{Tag: "input", Name: "раsswоrd"}, true},
		{"show-password checkbox", Field{Tag: "input", Type: "checkbox", Label: "Show password"}, false},
		{"submit button", Field{Tag: "input", Type: "submit", Name: "password"}, false},
		{"a button is no field", Field{Tag: "button", Label: "Password"}, false},
		{"user name", Field{Tag: "input", Name: "username", Autocomplete: "username"}, false},
		{"email", Field{Tag: "input", Type: "email", Placeholder: "you@example.com"}, false},
		{"passenger name", Field{Tag: "input", Name: "passenger_name"}, false},
		{"shipping", Field{Tag: "input", Label: "Shipping address"}, false},
		{"spinner", Field{Tag: "input", ID: "spinner"}, false},
		{"Indian postal PIN code", Field{Tag: "input", Label: "Delivery PIN code", Name: "zip"}, false},
		{"search", Field{Tag: "input", Type: "search", Placeholder: "Search products"}, false},
		{"Italian keyword", Field{Tag: "input", Label: "Parola chiave"}, false},
		{"compass", Field{Tag: "input", Name: "compass_heading"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SecretField(tc.f); got != tc.want {
				t.Errorf("SecretField(%+v) = %v, want %v", tc.f, got, tc.want)
			}
		})
	}
}

func TestRequestFor(t *testing.T) {
	for _, tc := range []struct {
		question string
		missing  []string
		want     string
	}{
		{"What is your password for the CRM?", nil, RequestCredentials},
		{"I need your login details", []string{"password"}, RequestCredentials},
		{"Please enter the one-time code we sent by SMS", nil, RequestOneTimeCode},
		{"Which shipping address should I use?", nil, RequestInformation},
	} {
		if got := RequestFor(tc.question, tc.missing); got.Type != tc.want {
			t.Errorf("RequestFor(%q, %q).Type = %q, want %q", tc.question, tc.missing, got.Type, tc.want)
		}
	}
}

// TestSecretFieldsWithoutWords: secret fields whose labels are in languages written here without
// consulting secretTerms, and with no type or autocomplete hint, are told by what does not
// depend on language: a masked display, a placeholder of mask glyphs, a card number's value or
// drawn placeholder, one-character code boxes, and the short fields after a card number.
func TestSecretFieldsWithoutWords(t *testing.T) {
	box := func(label string) Field { return Field{Tag: "input", Label: label, MaxLength: 1, InputMode: "numeric"} }
	for _, tc := range []struct {
		name   string
		fields []Field
		want   []bool
	}{
		{"Icelandic, shown as text behind a toggle the client reports", []Field{
			{Tag: "input", Type: "email", Label: "Netfang"}, {Tag: "input", Type: "text", Label: "Lykilorð", Masked: true},
		}, []bool{false, true}},
		{"Estonian, a placeholder of bullets", []Field{
			{Tag: "input", Label: "Kasutajanimi"}, {Tag: "input", Label: "Salasõna", Placeholder: "••••••••"},
		}, []bool{false, true}},
		{"Albanian, asterisks in the value", []Field{{Tag: "input", Label: "Fjalëkalimi", Value: "********"}}, []bool{true}},
		{"Georgian, a code typed into six boxes", []Field{
			box("კოდი"), box(""), box(""), box(""), box(""), box(""), {Tag: "button", Label: "დადასტურება"},
		}, []bool{true, true, true, true, true, true, false}},
		{"Khmer card form: drawn placeholder, expiry, code, postal code", []Field{
			{Tag: "input", Label: "ឈ្មោះ"},
			{Tag: "input", Label: "លេខកាត", Placeholder: "1234 1234 1234 1234", InputMode: "numeric"},
			{Tag: "input", Label: "ផុតកំណត់", Placeholder: "MM / YY", MaxLength: 7},
			{Tag: "input", Label: "លេខកូដ", MaxLength: 3, InputMode: "numeric"},
			{Tag: "input", Label: "លេខកូដប្រៃសណីយ៍", MaxLength: 4, InputMode: "numeric"},
		}, []bool{false, true, false, true, false}},
		{"Armenian card form with a card number typed, month and year boxes, a four-digit code", []Field{
			{Tag: "input", Label: "Քարտի համար", Value: "4111 1111 1111 1111"},
			{Tag: "select", Label: "Ամիս"},
			{Tag: "input", Label: "Ամիս", MaxLength: 2}, {Tag: "input", Label: "Տարի", MaxLength: 2},
			{Tag: "input", Label: "Կոդ", MaxLength: 4},
		}, []bool{true, false, true, true, true}},
		{"Welsh, a new-password autocomplete", []Field{{Tag: "input", Label: "Cyfrinair newydd", Autocomplete: "new-password"}}, []bool{true}},
		{"Basque, a style that masks the text", []Field{{Tag: "input", Label: "Pasahitza", Masked: MaskedStyle("color: red; -webkit-text-security: disc")}}, []bool{true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SecretFields(tc.fields)
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Errorf("field %d (%q) secret = %v, want %v", i, tc.fields[i].Label, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestSecretFieldsLeaveOrdinaryFields measures false alarms: ordinary fields of forms in many
// languages (search boxes, names, quantities, postal codes, phone numbers, dates, amounts, an
// IBAN, a middle initial, a coupon) are not secret fields.
func TestSecretFieldsLeaveOrdinaryFields(t *testing.T) {
	forms := [][]Field{
		{{Tag: "input", Type: "search", Placeholder: "Suchen", MaxLength: 100}, {Tag: "input", Type: "number", Label: "Menge", Value: "2", MaxLength: 3}},
		{{Tag: "input", Label: "Prénom", Value: "Amélie"}, {Tag: "input", Label: "Nom", Value: "Poulain"}, {Tag: "input", Label: "Initiale", MaxLength: 1}},
		{{Tag: "input", Type: "tel", Label: "Телефон", Value: "+7 912 345-67-89"}, {Tag: "input", Label: "Индекс", Value: "101000", MaxLength: 6, InputMode: "numeric"}},
		{{Tag: "input", Label: "IBAN", Value: "DE89 3704 0044 0532 0130 00"}, {Tag: "input", Label: "Betrag", Value: "1.234,56", InputMode: "decimal"}},
		{{Tag: "input", Type: "date", Value: "2024-05-01"}, {Tag: "input", Label: "数量", Value: "10", MaxLength: 2}, {Tag: "input", Label: "邮编", Value: "100000", MaxLength: 6}},
		{{Tag: "input", Label: "Kod rabatowy", Value: "LATO-2024"}, {Tag: "input", Label: "Numer zamówienia", Value: "100-2345678-1234567"}},
		{{Tag: "input", Label: "Postnummer", MaxLength: 4, InputMode: "numeric", Value: "0150"}, {Tag: "input", Label: "By", Value: "Oslo"}},
		{{Tag: "input", Label: "電話番号", Value: "090-1234-5678"}, {Tag: "input", Label: "郵便番号", Placeholder: "123-4567"}},
		{{Tag: "input", Label: "Rating", Value: "4"}, {Tag: "textarea", Label: "Yorum", Value: "Çok güzel, teşekkürler ***"}},
		{{Tag: "input", Label: "Tracking", Value: "1Z 999 AA1 01 2345 6784"}, {Tag: "input", Label: "Anzahl", Type: "number", MaxLength: 2}},
		{{Tag: "input", Type: "checkbox", Label: "Show", Masked: true}, {Tag: "input", Type: "email", Label: "Email", Placeholder: "name@example.com"}},
	}
	fields, alarms := 0, 0
	for _, form := range forms {
		for i, secret := range SecretFields(form) {
			fields++
			if secret {
				alarms++
				t.Errorf("ordinary field %+v is held a secret field", form[i])
			}
		}
	}
	t.Logf("false alarms: %d of %d ordinary fields", alarms, fields)
}

func TestCardNumber(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"4111 1111 1111 1111", true}, {"5555-5555-5555-4444", true}, {"378282246310005", true},
		{"4111 1111 1111 1112", false}, {"0000 0000 0000 0000", false}, {"411111111111", false},
		{"+49 30 1234567890", false}, {"4111 1111 1111 1111 extra", false},
	} {
		if got := CardNumber(tc.s); got != tc.want {
			t.Errorf("CardNumber(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
