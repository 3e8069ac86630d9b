package accounts

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
)

// Theme is the extension's colour scheme.
type Theme string

// The themes; ThemeSystem follows the browser's setting.
const (
	ThemeLight  Theme = "light"
	ThemeDark   Theme = "dark"
	ThemeSystem Theme = "system"
)

// SidebarPosition is the side of the page the extension's panel opens on.
type SidebarPosition string

// The sidebar positions.
const (
	SidebarLeft  SidebarPosition = "left"
	SidebarRight SidebarPosition = "right"
)

// maxStepsPerTask is the server's own cap on interact steps (DESIGN.md "Limits"): a user may
// lower it for their tasks, never raise it.
const maxStepsPerTask = 50

// Preferences are one user's extension settings within a tenant (GET/POST
// /api/v1/user/preferences). The JSON names are the wire and storage names.
type Preferences struct {
	Theme Theme `json:"theme"`
	// Language is the extension's interface language, a BCP 47 tag in its canonical case.
	Language             string `json:"language"`
	NotificationsEnabled bool   `json:"notificationsEnabled"`
	// SidebarPosition places the extension's panel.
	SidebarPosition SidebarPosition `json:"sidebarPosition"`
	// ConfirmBeforeSubmit makes the extension ask before an action that submits a form, where
	// a mistake (a purchase, a sent message) can't be undone.
	ConfirmBeforeSubmit bool `json:"confirmBeforeSubmit"`
	// ShowThoughts shows the agent's reasoning beside each action.
	ShowThoughts bool `json:"showThoughts"`
	// DebugMode shows the debug view (logs, step details) in the extension.
	DebugMode bool `json:"debugMode"`
	// MaxStepsPerTask stops a task after this many actions, from 1 to the server's cap of 50.
	MaxStepsPerTask int `json:"maxStepsPerTask"`
}

// DefaultPreferences are the settings of a user who has saved none, and the values of fields a
// saved document leaves out. They lean safe: confirmation on, debug off.
func DefaultPreferences() Preferences {
	return Preferences{
		Theme:                ThemeSystem,
		Language:             "en",
		NotificationsEnabled: true,
		SidebarPosition:      SidebarRight,
		ConfirmBeforeSubmit:  true,
		ShowThoughts:         true,
		DebugMode:            false,
		MaxStepsPerTask:      maxStepsPerTask,
	}
}

// languageTag is the small subset of BCP 47 a UI language needs: a 2–3 letter language, an
// optional script and an optional region ("en", "pt-BR", "zh-Hant-TW", "es-419"), in canonical
// case so that each language is stored one way.
var languageTag = regexp.MustCompile(`^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$`)

// Validate returns a *ValidationError naming the first field whose value is not allowed.
func (p Preferences) Validate() error {
	switch {
	case p.Theme != ThemeLight && p.Theme != ThemeDark && p.Theme != ThemeSystem:
		return invalid("theme", "must be one of light, dark, system")
	case !languageTag.MatchString(p.Language):
		return invalid("language", "must be a language tag such as en or pt-BR")
	case p.SidebarPosition != SidebarLeft && p.SidebarPosition != SidebarRight:
		return invalid("sidebarPosition", "must be one of left, right")
	case p.MaxStepsPerTask < 1 || p.MaxStepsPerTask > maxStepsPerTask:
		return invalid("maxStepsPerTask", "must be an integer from 1 to 50")
	}
	return nil
}

// PreferencesPatch is the body of a save: saving merges, so only the fields it names change.
type PreferencesPatch struct {
	// Values holds the new value of each field in Set; its other fields are defaults.
	Values Preferences
	// Set and Reset list JSON field names: Set takes its value from Values, Reset (a field sent
	// as null) goes back to its default.
	Set, Reset []string
}

// DecodePreferencesPatch reads the body of a save: a JSON object with some of the fields. A
// field set to null is reset to its default. An unknown field, a value of the wrong type or one
// that Validate refuses is a *ValidationError naming that field, and a body that isn't one JSON
// object is one naming "body".
//
// Field names match exactly: encoding/json alone would accept "THEME" for "theme" and ignore
// or only vaguely report unknown fields, so each field is decoded on its own.
func DecodePreferencesPatch(data []byte) (PreferencesPatch, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return PreferencesPatch{}, invalid("body", "is required")
	}
	if !json.Valid(data) {
		return PreferencesPatch{}, invalid("body", "is not valid JSON")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return PreferencesPatch{}, invalid("body", "must be a JSON object")
	}
	patch := PreferencesPatch{Values: DefaultPreferences()}
	fields := patch.Values.fields()
	// Sorted, so that a body with several unknown fields always names the same one.
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		if !slices.ContainsFunc(fields, func(f prefField) bool { return f.name == name }) {
			return PreferencesPatch{}, invalid(name, "is not a known preference")
		}
	}
	for _, f := range fields {
		v, ok := raw[f.name]
		switch {
		case !ok:
		case bytes.Equal(bytes.TrimSpace(v), []byte("null")):
			patch.Reset = append(patch.Reset, f.name)
		case json.Unmarshal(v, f.target) != nil:
			return PreferencesPatch{}, invalid(f.name, f.typeReason)
		default:
			patch.Set = append(patch.Set, f.name)
		}
	}
	// The fields not set are defaults, so this judges the values sent.
	if err := patch.Values.Validate(); err != nil {
		return PreferencesPatch{}, err
	}
	return patch, nil
}

type prefField struct {
	name       string
	target     any
	typeReason string
}

// fields lists every field of p by its JSON name; a test keeps it in step with the struct tags.
func (p *Preferences) fields() []prefField {
	const (
		isString = "must be a string"
		isBool   = "must be a boolean"
	)
	return []prefField{
		{"theme", &p.Theme, isString},
		{"language", &p.Language, isString},
		{"notificationsEnabled", &p.NotificationsEnabled, isBool},
		{"sidebarPosition", &p.SidebarPosition, isString},
		{"confirmBeforeSubmit", &p.ConfirmBeforeSubmit, isBool},
		{"showThoughts", &p.ShowThoughts, isBool},
		{"debugMode", &p.DebugMode, isBool},
		{"maxStepsPerTask", &p.MaxStepsPerTask, "must be an integer from 1 to 50"},
	}
}
