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
