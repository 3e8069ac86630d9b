package accountsdb

import (
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/dynamo"
)

// The stored shapes of the items. Attribute names are lower camel case like the rest of the
// API's data; the key attributes are the table's own.

type userItem struct {
	PK, SK, GSI1PK, GSI1SK string
	ID                     string    `dynamodbav:"id"`
	Email                  string    `dynamodbav:"email"`
	Name                   string    `dynamodbav:"name"`
	PasswordHash           string    `dynamodbav:"passwordHash"`
	Disabled               bool      `dynamodbav:"disabled"`
	CreatedAt              time.Time `dynamodbav:"createdAt"`
}

func newUserItem(u accounts.User) userItem {
	pk, sk := userKeys(u.ID)
	return userItem{
		PK: pk, SK: sk, GSI1PK: usersPartition, GSI1SK: u.Email,
		ID: u.ID, Email: u.Email, Name: u.Name, PasswordHash: u.PasswordHash,
		Disabled: u.Disabled, CreatedAt: u.CreatedAt,
	}
}

func (i userItem) user() accounts.User {
	return accounts.User{
		ID: i.ID, Email: i.Email, Name: i.Name, PasswordHash: i.PasswordHash,
		Disabled: i.Disabled, CreatedAt: i.CreatedAt.UTC(),
	}
}

// claimItem makes a value unique (an e-mail, an organization name) and points at its owner.
type claimItem struct {
	PK, SK  string
	OwnerID string `dynamodbav:"ownerId"`
}

type tenantItem struct {
	PK, SK string
	ID     string        `dynamodbav:"id"`
	Name   string        `dynamodbav:"name"`
	Kind   string        `dynamodbav:"kind"`
	Tier   accounts.Tier `dynamodbav:"tier"`
	// GateWords and GateURLPatterns are accounts.GateSettings, written by SetGateSettings only.
	GateWords       []string  `dynamodbav:"gateWords,omitempty"`
	GateURLPatterns []string  `dynamodbav:"gateUrlPatterns,omitempty"`
	CreatedAt       time.Time `dynamodbav:"createdAt"`
}

func newTenantItem(t accounts.Tenant) tenantItem {
	pk, sk := tenantKeys(t.ID)
	return tenantItem{PK: pk, SK: sk, ID: t.ID, Name: t.Name, Kind: t.Kind, Tier: t.Tier, CreatedAt: t.CreatedAt}
}

func (i tenantItem) tenant() accounts.Tenant {
	return accounts.Tenant{ID: i.ID, Name: i.Name, Kind: i.Kind, Tier: i.Tier, CreatedAt: i.CreatedAt.UTC()}
}

// memberItem lives in the organization's partition; GSI1 lists a user's memberships, oldest
// first, with the organization's name copied in so listing needs no further reads (organizations
// are never renamed).
type memberItem struct {
	PK, SK, GSI1PK, GSI1SK string
	TenantID               string    `dynamodbav:"tenantId"`
	TenantName             string    `dynamodbav:"tenantName"`
	UserID                 string    `dynamodbav:"userId"`
	Role                   string    `dynamodbav:"role"`
	CreatedAt              time.Time `dynamodbav:"createdAt"`
}

func newMemberItem(m accounts.Membership) memberItem {
	pk, sk := memberKeys(m.TenantID, m.UserID)
	return memberItem{
		PK: pk, SK: sk,
		GSI1PK: userOrgsPartition(m.UserID), GSI1SK: dynamo.Sortable(m.CreatedAt) + "#" + m.TenantID,
		TenantID: m.TenantID, TenantName: m.TenantName, UserID: m.UserID, Role: m.Role, CreatedAt: m.CreatedAt,
	}
}

func (i memberItem) membership() accounts.Membership {
	return accounts.Membership{
		TenantID: i.TenantID, TenantName: i.TenantName, UserID: i.UserID, Role: i.Role, CreatedAt: i.CreatedAt.UTC(),
	}
}

// tokenItem is keyed by the token's hash; the token itself is never stored. ExpiresAt is whole
// epoch seconds, the unit of the table's TTL.
type tokenItem struct {
	PK, SK, GSI1PK, GSI1SK string
	UserID                 string    `dynamodbav:"userId"`
	TenantID               string    `dynamodbav:"tenantId"`
	CreatedAt              time.Time `dynamodbav:"createdAt"`
	ExpiresAt              time.Time `dynamodbav:"expiresAt,unixtime"`
}

func newTokenItem(t accounts.TokenRecord) tokenItem {
	pk, sk := tokenKeys(t.Hash)
	return tokenItem{
		PK: pk, SK: sk, GSI1PK: userTokensPartition(t.UserID), GSI1SK: dynamo.Sortable(t.CreatedAt),
		UserID: t.UserID, TenantID: t.TenantID, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt,
	}
}

func (i tokenItem) record(hash string) accounts.TokenRecord {
	return accounts.TokenRecord{
		Hash:      hash,
		UserID:    i.UserID,
		TenantID:  i.TenantID,
		CreatedAt: i.CreatedAt.UTC(),
		ExpiresAt: i.ExpiresAt.UTC(),
	}
}

// prefsItem stores a preferences document as top-level attributes under their JSON names (the
// storage names accounts.Preferences declares), so it is read and written with TagKey "json".
type prefsItem struct {
	PK string `json:"PK"`
	SK string `json:"SK"`
	accounts.Preferences
}
