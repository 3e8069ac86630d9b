// Package app is the cold-start wiring every function shares: configuration, the logger, the AWS
// clients, and serving the function's handler with the per-request log line.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/awsconfig"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/lambdahttp"
	"github.com/screenagent/backend/shared/logging"
	"github.com/screenagent/backend/shared/retention"
)

// App holds what a function builds once per cold start.
type App struct {
	Config   config.Config
	Logger   *slog.Logger
	DynamoDB *dynamodb.Client
	// AWS is the SDK configuration the clients were built from (credentials for request signing).
	AWS aws.Config
}

// New loads the configuration (failing when a table's variable is missing: the template gives every
// function all of them) and builds the
// logger and the DynamoDB client.
func New(ctx context.Context) (*App, error) {
	cfg, err := config.Load(config.Tables...)
	if err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.Load(ctx, cfg.DynamoDBEndpoint, cfg.AWSCredentials)
	if err != nil {
		return nil, err
	}
	return &App{
		Config:   cfg,
		Logger:   logging.New(os.Stdout, cfg.LogLevel),
		DynamoDB: awsconfig.DynamoDB(awsCfg, cfg.DynamoDBEndpoint),
		AWS:      awsCfg,
	}, nil
}

// Main is a function's main: it builds the App and the route's handler, then serves the handler
// mounted on route (see Mount), the pattern of the function's event in template.yaml, e.g.
// "GET /agent/run/{runId}". An init failure is logged as one JSON line and exits non-zero, which
// Lambda reports as an init error.
func Main(route string, build func(context.Context, *App) (http.Handler, error)) {
	ctx := context.Background()
	a, err := New(ctx)
	var h http.Handler
	if err == nil {
		h, err = build(ctx, a)
	}
	if err != nil {
		logging.New(os.Stderr, slog.LevelInfo).Error("init failed", "route", route, "error", fmt.Sprint(err))
		os.Exit(1)
	}
	lambdahttp.Start(httpapi.Logged(a.Logger, route, Mount(route, h)))
}

// Mount serves h on route alone, an http.ServeMux pattern ("METHOD /path/{param}"), so h reads
// the path's parameters with r.PathValue. A request the pattern does not match (which API Gateway
// never routes to the function) is the mux's 404 or 405.
func Mount(route string, h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(route, h)
	return mux
}

// Retention is the deployment's retention policy (RETENTION_*), for the stores' constructors.
func (a *App) Retention() (retention.Config, error) {
	return retention.ParseConfig(a.Config.Lookup)
}
