package accountsdb

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/accounts"
)

func TestPreferences(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	custom := accounts.Preferences{
		Theme: accounts.ThemeDark, Language: "pt-BR", NotificationsEnabled: false,
		SidebarPosition: accounts.SidebarLeft, ConfirmBeforeSubmit: false, ShowThoughts: false,
		DebugMode: true, MaxStepsPerTask: 7,
	}

	if got, ok, err := s.GetPreferences(ctx, "org1", "u1"); err != nil || ok || got != accounts.DefaultPreferences() {
		t.Errorf("GetPreferences before saving = (%+v, %t, %v), want (defaults, false, nil)", got, ok, err)
	}
	customBody, err := json.Marshal(custom)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.UpdatePreferences(ctx, "org1", "u1", patch(t, string(customBody))); err != nil || got != custom {
		t.Fatalf("UpdatePreferences(every field) = (%+v, %v), want (%+v, nil)", got, err, custom)
	}
	tests := []struct {
		name         string
		tenant, user string
		want         accounts.Preferences
		wantOK       bool
	}{
		{"saved", "org1", "u1", custom, true},
		{"same user in another tenant", "u1", "u1", accounts.DefaultPreferences(), false},
		{"another user in the tenant", "org1", "u2", accounts.DefaultPreferences(), false},
	}
	for _, tt := range tests {
		got, ok, err := s.GetPreferences(ctx, tt.tenant, tt.user)
		if err != nil || ok != tt.wantOK || got != tt.want {
			t.Errorf("%s: GetPreferences = (%+v, %t, %v), want (%+v, %t, nil)", tt.name, got, ok, err, tt.want, tt.wantOK)
		}
	}

	// Saving merges: other fields keep their value, null resets a field to its default.
	merged := custom
	merged.DebugMode, merged.Theme = false, accounts.DefaultPreferences().Theme
	if got, err := s.UpdatePreferences(ctx, "org1", "u1", patch(t, `{"debugMode":false,"theme":null}`)); err != nil || got != merged {
		t.Errorf("UpdatePreferences(debugMode, theme null) = (%+v, %v), want (%+v, nil)", got, err, merged)
	}
	if got, _, err := s.GetPreferences(ctx, "org1", "u1"); err != nil || got != merged {
		t.Errorf("GetPreferences after merging = (%+v, %v), want %+v", got, err, merged)
	}
	if got, err := s.UpdatePreferences(ctx, "org1", "u1", patch(t, `{}`)); err != nil || got != merged {
		t.Errorf("UpdatePreferences({}) = (%+v, %v), want the saved %+v", got, err, merged)
	}
	// A save creates the document, with defaults for what it leaves out.
	want := accounts.DefaultPreferences()
	want.Language = "de"
	if got, err := s.UpdatePreferences(ctx, "org2", "u1", patch(t, `{"language":"de"}`)); err != nil || got != want {
		t.Errorf("first UpdatePreferences in org2 = (%+v, %v), want (%+v, nil)", got, err, want)
	}

	invalid := accounts.PreferencesPatch{Values: custom, Set: []string{"maxStepsPerTask"}}
	invalid.Values.MaxStepsPerTask = 51
	var ve *accounts.ValidationError
	if _, err := s.UpdatePreferences(ctx, "org1", "u1", invalid); !errors.As(err, &ve) || ve.Field != "maxStepsPerTask" {
		t.Errorf("UpdatePreferences(invalid): got error %v, want a maxStepsPerTask ValidationError", err)
	}
}

// Two saves of different fields at once both land: each is one UpdateItem of its own fields.
func TestConcurrentPreferenceSavesMerge(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	bodies := []string{`{"theme":"dark"}`, `{"debugMode":true}`, `{"language":"fr"}`, `{"maxStepsPerTask":9}`}
	var wg sync.WaitGroup
	for _, b := range bodies {
		p := patch(t, b)
		wg.Go(func() {
			if _, err := s.UpdatePreferences(ctx, "org1", "u1", p); err != nil {
				t.Errorf("UpdatePreferences(%s): %v", b, err)
			}
		})
	}
	wg.Wait()
	want := accounts.DefaultPreferences()
	want.Theme, want.DebugMode, want.Language, want.MaxStepsPerTask = accounts.ThemeDark, true, "fr", 9
	if got, _, err := s.GetPreferences(ctx, "org1", "u1"); err != nil || got != want {
		t.Errorf("GetPreferences = (%+v, %v), want every save: %+v", got, err, want)
	}
}

func patch(t *testing.T, body string) accounts.PreferencesPatch {
	t.Helper()
	p, err := accounts.DecodePreferencesPatch([]byte(body))
	if err != nil {
		t.Fatalf("DecodePreferencesPatch(%s): %v", body, err)
	}
	return p
}

func TestPreferencesStoredFieldMissing(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	// A document saved before maxStepsPerTask existed, written under the storage names.
	pk, sk := prefsKeys("org1", "u1")
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: map[string]types.AttributeValue{
		"PK":       &types.AttributeValueMemberS{Value: pk},
		"SK":       &types.AttributeValueMemberS{Value: sk},
		"theme":    &types.AttributeValueMemberS{Value: "dark"},
		"language": &types.AttributeValueMemberS{Value: "de"},
	}})
	if err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	want := accounts.DefaultPreferences()
	want.Theme, want.Language = accounts.ThemeDark, "de"
	if got, ok, err := s.GetPreferences(ctx, "org1", "u1"); err != nil || !ok || got != want {
		t.Errorf("GetPreferences = (%+v, %t, %v), want (%+v, true, nil)", got, ok, err, want)
	}
}
