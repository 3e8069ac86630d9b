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
// set (DynamoDB Local) and the environment names no credentials (credentialsInEnv, from
// shared/config), it uses static dummy credentials and a default region, which DynamoDB Local
// accepts; this also keeps the SDK from probing the EC2 metadata service, slow and noisy off AWS.
func Load(ctx context.Context, dynamoEndpoint string, credentialsInEnv bool) (aws.Config, error) {
	var opts []func(*config.LoadOptions) error
	if dynamoEndpoint != "" {
		opts = append(opts, config.WithDefaultRegion("us-east-1"))
		if !credentialsInEnv {
			opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
		}
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load aws config: %w", err)
	}
	tracing.InstrumentAWS(&cfg)
	return cfg, nil
}

// DynamoDB returns a client for cfg, pointed at endpoint when it is set, with optFns applied
// after. Against DynamoDB Local the response CRC check is off: the emulator's error responses
// carry CRCs the SDK rejects.
func DynamoDB(cfg aws.Config, endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.DisableValidateResponseChecksum = true
		}
	}}, optFns...)...)
}
