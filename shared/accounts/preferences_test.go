package accounts

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"testing"
)

func TestDefaultPreferences(t *testing.T) {
	got := DefaultPreferences()
	want := Preferences{
		Theme:                ThemeSystem,
		Language:             "en",
		NotificationsEnabled: true,
		SidebarPosition:      SidebarRight,
		ConfirmBeforeSubmit:  true,
		ShowThoughts:         true,
		DebugMode:            false,
		MaxStepsPerTask:      50,
	}
	if got != want {
		t.Errorf("DefaultPreferences() = %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("DefaultPreferences().Validate() = %v, want nil", err)
	}
}

// TestPreferencesFieldsMatchJSON keeps the decoder's field list in step with the struct: every
// JSON name is decoded, and each entry writes to the field of that name.
func TestPreferencesFieldsMatchJSON(t *testing.T) {
	encoded, err := json.Marshal(DefaultPreferences())
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	var asMap map[string]any
	if err := json.Unmarshal(encoded, &asMap); err != nil {
		t.Fatalf("json.Unmarshal: %v", err)
	}
	var p Preferences
	var names []string
	for _, f := range p.fields() {
		names = append(names, f.name)
	}
	if got, want := slices.Sorted(slices.Values(names)), slices.Sorted(maps.Keys(asMap)); !slices.Equal(got, want) {
		t.Errorf("decoded fields %v, want the JSON names %v", got, want)
	}
	// Decoding the marshalled defaults through the field list must reproduce them.
	got, err := decodeValues(encoded)
	if err != nil || got != DefaultPreferences() {
		t.Errorf("decodeValues(marshalled defaults) = (%+v, %v), want (%+v, nil)", got, err, DefaultPreferences())
	}
	// And each entry must point at its own field: flip every field away from its default.
	custom := Preferences{
		Theme: ThemeDark, Language: "pt-BR", NotificationsEnabled: false, SidebarPosition: SidebarLeft,
		ConfirmBeforeSubmit: false, ShowThoughts: false, DebugMode: true, MaxStepsPerTask: 7,
	}
	encoded, err = json.Marshal(custom)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	if got, err := decodeValues(encoded); err != nil || got != custom {
		t.Errorf("decodeValues(%s) = (%+v, %v), want (%+v, nil)", encoded, got, err, custom)
	}
}

func TestDecodePreferencesPatchValues(t *testing.T) {
	with := func(change func(*Preferences)) Preferences {
		p := DefaultPreferences()
		change(&p)
		return p
	}
	tests := []struct {
		name string
		body string
		want Preferences
	}{
		{"empty object takes every default", `{}`, DefaultPreferences()},
		{"nulls take defaults", `{"theme":null,"maxStepsPerTask":null,"debugMode":null}`, DefaultPreferences()},
		{"light theme", `{"theme":"light"}`, with(func(p *Preferences) { p.Theme = ThemeLight })},
		{"dark theme", `{"theme":"dark"}`, with(func(p *Preferences) { p.Theme = ThemeDark })},
		{"region", `{"language":"pt-BR"}`, with(func(p *Preferences) { p.Language = "pt-BR" })},
		{"three-letter language", `{"language":"fil"}`, with(func(p *Preferences) { p.Language = "fil" })},
		{"script and region", `{"language":"zh-Hant-TW"}`, with(func(p *Preferences) { p.Language = "zh-Hant-TW" })},
		{"numeric region", `{"language":"es-419"}`, with(func(p *Preferences) { p.Language = "es-419" })},
		{"left sidebar", `{"sidebarPosition":"left"}`, with(func(p *Preferences) { p.SidebarPosition = SidebarLeft })},
		{"false booleans", `{"notificationsEnabled":false,"confirmBeforeSubmit":false,"showThoughts":false}`,
			with(func(p *Preferences) {
				p.NotificationsEnabled, p.ConfirmBeforeSubmit, p.ShowThoughts = false, false, false
			})},
		{"debug on", `{"debugMode":true}`, with(func(p *Preferences) { p.DebugMode = true })},
		{"one step", `{"maxStepsPerTask":1}`, with(func(p *Preferences) { p.MaxStepsPerTask = 1 })},
		{"whitespace around", " \n{ \"maxStepsPerTask\" : 50 }\n", DefaultPreferences()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeValues([]byte(tt.body))
			if err != nil || got != tt.want {
				t.Errorf("decodeValues(%s) = (%+v, %v), want (%+v, nil)", tt.body, got, err, tt.want)
			}
		})
	}
}

func TestDecodePreferencesInvalid(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		field  string
		reason string
	}{
		{"empty body", ``, "body", "is required"},
		{"blank body", " \n", "body", "is required"},
		{"not JSON", `theme=dark`, "body", "is not valid JSON"},
		{"truncated", `{"theme":"dark"`, "body", "is not valid JSON"},
		{"trailing data", `{} {}`, "body", "is not valid JSON"},
		{"array", `[]`, "body", "must be a JSON object"},
		{"string", `"dark"`, "body", "must be a JSON object"},
		{"null", `null`, "body", "must be a JSON object"},

		{"unknown field", `{"fontSize":14}`, "fontSize", "is not a known preference"},
		{"field in other case", `{"Theme":"dark"}`, "Theme", "is not a known preference"},
		{"snake case", `{"debug_mode":true}`, "debug_mode", "is not a known preference"},
		{"unknown fields name the first in order", `{"zeta":1,"alpha":2,"theme":"dark"}`, "alpha", "is not a known preference"},

		{"theme not a string", `{"theme":1}`, "theme", "must be a string"},
		{"theme unknown", `{"theme":"blue"}`, "theme", "must be one of light, dark, system"},
		{"theme in upper case", `{"theme":"DARK"}`, "theme", "must be one of light, dark, system"},
		{"theme empty", `{"theme":""}`, "theme", "must be one of light, dark, system"},

		{"language not a string", `{"language":["en"]}`, "language", "must be a string"},
		{"language empty", `{"language":""}`, "language", "must be a language tag such as en or pt-BR"},
		{"language lower-case region", `{"language":"pt-br"}`, "language", "must be a language tag such as en or pt-BR"},
		{"language underscore", `{"language":"pt_BR"}`, "language", "must be a language tag such as en or pt-BR"},
		{"language too long", `{"language":"english"}`, "language", "must be a language tag such as en or pt-BR"},
		{"language trailing newline", `{"language":"en\n"}`, "language", "must be a language tag such as en or pt-BR"},
		{"language markup", `{"language":"<script>"}`, "language", "must be a language tag such as en or pt-BR"},

		{"notifications as string", `{"notificationsEnabled":"true"}`, "notificationsEnabled", "must be a boolean"},
		{"notifications as number", `{"notificationsEnabled":1}`, "notificationsEnabled", "must be a boolean"},

		{"sidebar not a string", `{"sidebarPosition":false}`, "sidebarPosition", "must be a string"},
		{"sidebar unknown", `{"sidebarPosition":"top"}`, "sidebarPosition", "must be one of left, right"},

		{"confirm as string", `{"confirmBeforeSubmit":"no"}`, "confirmBeforeSubmit", "must be a boolean"},
		{"thoughts as object", `{"showThoughts":{}}`, "showThoughts", "must be a boolean"},
		{"debug as number", `{"debugMode":0}`, "debugMode", "must be a boolean"},

		{"steps zero", `{"maxStepsPerTask":0}`, "maxStepsPerTask", "must be an integer from 1 to 50"},
		{"steps negative", `{"maxStepsPerTask":-1}`, "maxStepsPerTask", "must be an integer from 1 to 50"},
		{"steps over the cap", `{"maxStepsPerTask":51}`, "maxStepsPerTask", "must be an integer from 1 to 50"},
		{"steps fractional", `{"maxStepsPerTask":2.5}`, "maxStepsPerTask", "must be an integer from 1 to 50"},
		{"steps as string", `{"maxStepsPerTask":"10"}`, "maxStepsPerTask", "must be an integer from 1 to 50"},
		{"steps overflowing", `{"maxStepsPerTask":1e400}`, "maxStepsPerTask", "must be an integer from 1 to 50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeValues([]byte(tt.body))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("decodeValues(%s) = (%+v, %v), want a *ValidationError", tt.body, got, err)
			}
			if ve.Field != tt.field || ve.Reason != tt.reason {
				t.Errorf("decodeValues(%s): got {%q, %q}, want {%q, %q}", tt.body, ve.Field, ve.Reason, tt.field, tt.reason)
			}
			if got != (Preferences{}) {
				t.Errorf("decodeValues(%s) returned %+v with the error, want the zero value", tt.body, got)
			}
		})
	}
}

func TestPreferencesValidate(t *testing.T) {
	// Validate guards values that come from storage too, not only from DecodePreferences.
	tests := []struct {
		name   string
		change func(*Preferences)
		field  string
	}{
		{"zero value theme", func(p *Preferences) { p.Theme = "" }, "theme"},
		{"zero value language", func(p *Preferences) { p.Language = "" }, "language"},
		{"zero value sidebar", func(p *Preferences) { p.SidebarPosition = "" }, "sidebarPosition"},
		{"zero value steps", func(p *Preferences) { p.MaxStepsPerTask = 0 }, "maxStepsPerTask"},
		{"huge steps", func(p *Preferences) { p.MaxStepsPerTask = 1 << 40 }, "maxStepsPerTask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultPreferences()
			tt.change(&p)
			var ve *ValidationError
			if err := p.Validate(); !errors.As(err, &ve) || ve.Field != tt.field {
				t.Errorf("Validate() = %v, want a *ValidationError for %q", err, tt.field)
			}
		})
	}
	if err := (Preferences{}).Validate(); err == nil {
		t.Errorf("Preferences{}.Validate() = nil, want an error: the zero value is not a valid document")
	}
}

func TestValidationErrorIsFieldError(t *testing.T) {
	// The interface httpapi.AsError looks for, restated so this package needn't import it.
	type fieldError interface {
		error
		FieldName() string
		FieldReason() string
	}
	_, err := decodeValues([]byte(`{"theme":"blue"}`))
	var fe fieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error %T does not implement FieldName/FieldReason", err)
	}
	if fe.FieldName() != "theme" || fe.FieldReason() != "must be one of light, dark, system" {
		t.Errorf("got (%q, %q), want (%q, %q)", fe.FieldName(), fe.FieldReason(), "theme", "must be one of light, dark, system")
	}
	if got, want := fe.Error(), "theme must be one of light, dark, system"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// decodeValues is the values of a decoded patch: a field left out or null has its default.
func decodeValues(body []byte) (Preferences, error) {
	p, err := DecodePreferencesPatch(body)
	return p.Values, err
}

// A save merges: the patch names the fields it sets and the ones sent as null, to reset.
func TestDecodePreferencesPatchFields(t *testing.T) {
	tests := []struct {
		body       string
		set, reset []string
	}{
		{`{}`, nil, nil},
		{`{"debugMode":true}`, []string{"debugMode"}, nil},
		{`{"theme":"dark","language":null,"maxStepsPerTask":5}`, []string{"theme", "maxStepsPerTask"}, []string{"language"}},
	}
	for _, tt := range tests {
		p, err := DecodePreferencesPatch([]byte(tt.body))
		if err != nil || !slices.Equal(p.Set, tt.set) || !slices.Equal(p.Reset, tt.reset) {
			t.Errorf("DecodePreferencesPatch(%s) = set %v reset %v (%v), want set %v reset %v", tt.body, p.Set, p.Reset, err, tt.set, tt.reset)
		}
	}
}
