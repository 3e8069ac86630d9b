package accountsdb

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/accounts"
)

// newRecord returns the record of a fresh token of user, issued now for a day.
func newRecord(t *testing.T, user string, now time.Time) (string, accounts.TokenRecord) {
	t.Helper()
	tok, err := accounts.NewToken()
	if err != nil {
		t.Fatalf("NewToken: %v", err)
	}
	return tok, accounts.TokenRecord{
		Hash: accounts.HashToken(tok), UserID: user, TenantID: "tenant-" + user,
		CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour),
	}
}

func TestTokenRoundTrip(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	_, rec := newRecord(t, "u1", t0)
	if err := s.PutToken(ctx, rec); err != nil {
		t.Fatalf("PutToken: %v", err)
	}
	// expiresAt is the TTL attribute, in whole seconds.
	want := rec
	want.ExpiresAt = rec.ExpiresAt.Truncate(time.Second)
	if got, err := s.GetToken(ctx, rec.Hash); err != nil || got != want {
		t.Errorf("GetToken = (%+v, %v), want (%+v, nil)", got, err, want)
	}
	if err := s.PutToken(ctx, rec); err == nil {
		t.Errorf("PutToken of an existing hash: got nil error, want a refusal")
	}
	for i := range 2 { // the second delete finds nothing and must succeed
		if err := s.DeleteToken(ctx, rec.Hash); err != nil {
			t.Errorf("DeleteToken #%d: %v", i+1, err)
		}
	}
	if _, err := s.GetToken(ctx, rec.Hash); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("GetToken after DeleteToken: got error %v, want ErrNotFound", err)
	}
}

func TestPutTokenRefusesNonHash(t *testing.T) {
	s, _ := newStore(t)
	tok, rec := newRecord(t, "u1", t0)
	for _, hash := range []string{"", tok, strings.ToUpper(rec.Hash), rec.Hash[:63]} {
		bad := rec
		bad.Hash = hash
		if err := s.PutToken(t.Context(), bad); err == nil {
			t.Errorf("PutToken(Hash=%q): got nil error, want a refusal", hash)
		}
	}
}

func TestGetTokenExpiry(t *testing.T) {
	s, clk := newStore(t)
	_, rec := newRecord(t, "u1", t0)
	rec.ExpiresAt = t0.Add(time.Hour).Truncate(time.Second)
	if err := s.PutToken(t.Context(), rec); err != nil {
		t.Fatalf("PutToken: %v", err)
	}
	tests := []struct {
		name  string
		now   time.Time
		found bool
	}{
		{"just issued", t0, true},
		{"a second before expiry", rec.ExpiresAt.Add(-time.Second), true},
		{"at expiry", rec.ExpiresAt, false},
		{"long after (TTL has not deleted it)", rec.ExpiresAt.Add(48 * time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.Set(tt.now)
			_, err := s.GetToken(t.Context(), rec.Hash)
			if tt.found && err != nil {
				t.Errorf("GetToken at %s: got error %v, want the record", tt.now, err)
			}
			if !tt.found && !errors.Is(err, accounts.ErrNotFound) {
				t.Errorf("GetToken at %s: got error %v, want ErrNotFound", tt.now, err)
			}
		})
	}
}

func TestDisablingDeletesEveryToken(t *testing.T) {
	s, clk := newStore(t)
	ctx := t.Context()
	ana := mustCreateUser(t, s, "ana@example.com", "Ana")
	bob := mustCreateUser(t, s, "bob@example.com", "Bob")
	// More than one BatchWriteItem's worth.
	const n = 2*batchSize + 5
	var anas, bobs []string
	for i := range n + 2 {
		user := ana.ID
		if i >= n {
			user = bob.ID
		}
		_, rec := newRecord(t, user, clk.Now())
		clk.Advance(time.Millisecond)
		if err := s.PutToken(ctx, rec); err != nil {
			t.Fatalf("PutToken #%d: %v", i, err)
		}
		if user == ana.ID {
			anas = append(anas, rec.Hash)
		} else {
			bobs = append(bobs, rec.Hash)
		}
	}

	if err := s.SetDisabled(ctx, ana.ID, true); err != nil {
		t.Fatalf("SetDisabled: %v", err)
	}
	left := 0
	for _, h := range anas {
		if _, err := s.GetToken(ctx, h); !errors.Is(err, accounts.ErrNotFound) {
			left++
		}
	}
	if left != 0 {
		t.Errorf("got %d of %d tokens of the disabled user left, want 0", left, len(anas))
	}
	for _, h := range bobs {
		if _, err := s.GetToken(ctx, h); err != nil {
			t.Errorf("GetToken of another user's token: got error %v, want the record", err)
		}
	}
	// Re-enabling restores the account, not the sessions.
	if err := s.SetDisabled(ctx, ana.ID, false); err != nil {
		t.Fatalf("SetDisabled(false): %v", err)
	}
	if _, err := s.GetToken(ctx, anas[0]); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("GetToken after re-enabling: got error %v, want ErrNotFound", err)
	}
}

func TestDeleteUserTokensWithoutTokens(t *testing.T) {
	s, _ := newStore(t)
	if err := s.DeleteUserTokens(t.Context(), "nobody"); err != nil {
		t.Errorf("DeleteUserTokens(user without tokens): got error %v, want nil", err)
	}
}

func TestNoRawTokenStored(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	u := mustCreateUser(t, s, "ana@example.com", "Ana")
	tok, rec := newRecord(t, u.ID, t0)
	if err := s.PutToken(ctx, rec); err != nil {
		t.Fatalf("PutToken: %v", err)
	}
	out, err := s.client.Scan(ctx, &dynamodb.ScanInput{TableName: &s.table})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	var items []map[string]any
	if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
		t.Fatalf("UnmarshalListOfMaps: %v", err)
	}
	dump := fmt.Sprint(items)
	if !strings.Contains(dump, rec.Hash) {
		t.Fatalf("the scan does not contain the token's hash; the check below would prove nothing:\n%s", dump)
	}
	body := strings.TrimPrefix(tok, accounts.TokenPrefix)
	if strings.Contains(dump, body) {
		t.Errorf("a stored item contains the raw token %s:\n%s", tok, dump)
	}
}
