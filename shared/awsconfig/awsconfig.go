// Package awsconfig builds AWS SDK configuration and clients the same way for Lambda, the local
// stack, the admin CLI and tests.
package awsconfig

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/tracing"
)

// Load returns the default AWS configuration with X-Ray instrumentation. When dynamoEndpoint is
// set (DynamoDB Local) and no credentials are configured, it falls back to static dummy
// credentials and a default region, which DynamoDB Local accepts.
func Load(ctx context.Context, dynamoEndpoint string) (aws.Config, error) {
	var opts []func(*config.LoadOptions) error
	if dynamoEndpoint != "" {
		opts = append(opts, config.WithDefaultRegion("us-east-1"))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load aws config: %w", err)
	}
	if dynamoEndpoint != "" {
		if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
			cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		}
	}
	tracing.InstrumentAWS(&cfg)
	return cfg, nil
}

// DynamoDB returns a client for cfg, pointed at endpoint when it is set. Against DynamoDB Local
// the response CRC check is off: the emulator's error responses carry CRCs the SDK rejects.
func DynamoDB(cfg aws.Config, endpoint string) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.DisableValidateResponseChecksum = true
		}
	})
}
