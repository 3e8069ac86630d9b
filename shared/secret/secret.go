// Package secret reads API keys from AWS Secrets Manager, once at cold start, for every client of
// an outside service (the LLM, web search).
package secret

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/screenagent/backend/shared/awsconfig"
)

// Timeout bounds one read, so a slow Secrets Manager fails the cold start instead of hanging it.
const Timeout = 5 * time.Second

// Getter is the part of the Secrets Manager client ReadKey uses.
type Getter interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// NewGetter returns a Secrets Manager client from the default AWS configuration.
func NewGetter(ctx context.Context) (Getter, error) {
	cfg, err := awsconfig.Load(ctx, "", true)
	if err != nil {
		return nil, err
	}
	return secretsmanager.NewFromConfig(cfg), nil
}

// ReadKey reads an API key stored as a plain string or as a JSON object {"apiKey": "..."}.
// Errors name the secret, never its value.
func ReadKey(ctx context.Context, g Getter, arn string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	out, err := g.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
	if err != nil {
		return "", fmt.Errorf("read secret %s: %w", arn, err)
	}
	if out.SecretString == nil {
		return "", fmt.Errorf("secret %s has no string value", arn)
	}
	v := strings.TrimSpace(*out.SecretString)
	if strings.HasPrefix(v, "{") {
		var doc struct {
			APIKey string `json:"apiKey"`
		}
		if json.Unmarshal([]byte(v), &doc) != nil {
			return "", fmt.Errorf("secret %s is not valid JSON", arn)
		}
		v = strings.TrimSpace(doc.APIKey)
	}
	if v == "" {
		return "", fmt.Errorf(`secret %s is empty (want the key, or JSON {"apiKey": "..."})`, arn)
	}
	return v, nil
}
