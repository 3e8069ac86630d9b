package drive

import (
	"slices"
	"testing"
)

func TestVault(t *testing.T) {
	v := Vault{}
	for _, flag := range []string{"crm_password@crm.example.com=hunter2=x", "note=abc"} {
		if err := v.Add(flag); err != nil {
			t.Fatalf("Add(%q): %v", flag, err)
		}
	}
	if got, want := v.Names(), []string{"crm_password@crm.example.com", "note"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v (names and bindings, never values)", got, want)
	}
	if got := v["crm_password"].value; got != "hunter2=x" {
		t.Errorf("value = %q, want everything after the first =", got)
	}
	for _, bad := range []string{"novalue", "x=", "bad name=v", "x@=v"} {
		if err := v.Add(bad); err == nil {
			t.Errorf("Add(%q) = nil, want an error", bad)
		}
	}
}
