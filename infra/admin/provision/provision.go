// Package provision is what operators do to accounts, outside the API: signups are invite-only,
// so users, organizations and plans are set up here, by the admin CLI and by the local stack
// seeding its demo account.
package provision

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/awsconfig"
	"github.com/screenagent/backend/shared/config"
)

// Connect returns a Store on the accounts table at a DynamoDB endpoint, or in AWS with the
// normal credential chain when endpoint is empty.
func Connect(ctx context.Context, endpoint, table string) (*accountsdb.Store, error) {
	cfg, err := awsconfig.Load(ctx, endpoint, config.AWSCredentialsInEnv())
	if err != nil {
		return nil, err
	}
	return accountsdb.New(awsconfig.DynamoDB(cfg, endpoint), table), nil
}

// generatedPasswordBytes of crypto/rand make 24 base64url characters: 144 bits, beyond any
// guessing, and easy to paste.
const generatedPasswordBytes = 18

// GeneratePassword returns a random password for a user created without one.
func GeneratePassword() (string, error) {
	b := make([]byte, generatedPasswordBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// userByEmail looks a user up by an e-mail as typed.
func userByEmail(ctx context.Context, s *accountsdb.Store, email string) (accounts.User, error) {
	norm, err := accounts.NormalizeEmail(email)
	if err != nil {
		return accounts.User{}, err
	}
	return s.GetUserByEmail(ctx, norm)
}
