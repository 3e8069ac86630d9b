package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
)

func TestTenantGate(t *testing.T) {
	f := newFixture(t)
	f.ok(t, "", "org", "create", "--name", "Acme")
	org, err := f.store.GetOrganizationByName(t.Context(), "Acme")
	if err != nil {
		t.Fatal(err)
	}

	out := f.ok(t, "", "tenant", "set-gate", "--org", "Acme", "--word", " Approve invoice ", "--word", "Freigeben", "--url-pattern", "*.acme.com/billing")
	if !strings.Contains(out, "2 risky words and 1 URL patterns") {
		t.Errorf("stdout = %q, want the counts", out)
	}
	want := accounts.GateSettings{Words: []string{"Approve invoice", "Freigeben"}, URLPatterns: []string{"*.acme.com/billing"}}
	if got, err := f.store.GateSettings(t.Context(), org.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("stored settings = %+v (err %v), want %+v", got, err, want)
	}
	if out := f.ok(t, "", "tenant", "show-gate", "--org", "acme"); !strings.Contains(out, "word\tApprove invoice\nword\tFreigeben\nurl-pattern\t*.acme.com/billing\n") {
		t.Errorf("show-gate = %q, want each word and pattern on a line", out)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"tenant", "set-gate", "--org", "Acme", "--url-pattern", "https://acme.com/pay"}, "without a scheme"},
		{[]string{"tenant", "set-gate", "--org", "Acme", "--word", "  "}, "must be 1 to 64 characters"},
		{[]string{"tenant", "set-gate", "--word", "x"}, "exactly one of --email and --org"},
	} {
		r := admin(t, f.env, "", bad.args...)
		if r.code != 2 || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("admin %v: exit %d, stderr %q; want 2 with %q", bad.args, r.code, r.stderr, bad.want)
		}
	}
	if got, _ := f.store.GateSettings(t.Context(), org.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("settings after refused commands = %+v, want them unchanged", got)
	}

	f.ok(t, "", "tenant", "set-gate", "--org", "Acme")
	if got, _ := f.store.GateSettings(t.Context(), org.ID); len(got.Words)+len(got.URLPatterns) != 0 {
		t.Errorf("settings after set-gate without values = %+v, want none", got)
	}
}
