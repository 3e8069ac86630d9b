package accountsdb

import (
	"errors"
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
	if err := s.PutPreferences(ctx, "org1", "u1", custom); err != nil {
		t.Fatalf("PutPreferences: %v", err)
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

	replaced := accounts.DefaultPreferences()
	replaced.Theme = accounts.ThemeLight
	if err := s.PutPreferences(ctx, "org1", "u1", replaced); err != nil {
		t.Fatalf("PutPreferences (replace): %v", err)
	}
	if got, _, err := s.GetPreferences(ctx, "org1", "u1"); err != nil || got != replaced {
		t.Errorf("GetPreferences after replacing = (%+v, %v), want %+v", got, err, replaced)
	}

	invalid := custom
	invalid.MaxStepsPerTask = 51
	var ve *accounts.ValidationError
	if err := s.PutPreferences(ctx, "org1", "u1", invalid); !errors.As(err, &ve) || ve.Field != "maxStepsPerTask" {
		t.Errorf("PutPreferences(invalid): got error %v, want a maxStepsPerTask ValidationError", err)
	}
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
