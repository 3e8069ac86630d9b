// Package tracing keeps X-Ray behind one small surface, so the tracer (aws-xray-sdk-go, in
// maintenance mode) can be swapped for OpenTelemetry in one place.
package tracing

import (
	"net/http"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-xray-sdk-go/instrumentation/awsv2"
	"github.com/aws/aws-xray-sdk-go/strategy/ctxmissing"
	"github.com/aws/aws-xray-sdk-go/xray"
	"github.com/aws/aws-xray-sdk-go/xraylog"
)

var configure sync.Once

// setup makes the SDK quiet outside Lambda: without a trace segment in the context (local runs,
// tests, the CLI) it ignores the missing segment instead of logging or panicking, and without a
// daemon its UDP emits go nowhere.
func setup() {
	configure.Do(func() {
		_ = xray.Configure(xray.Config{ContextMissingStrategy: ctxmissing.NewDefaultIgnoreErrorStrategy()})
		xray.SetLogger(xraylog.NewDefaultLogger(discard{}, xraylog.LogLevelError))
	})
}

// InstrumentAWS adds X-Ray subsegments to every call of clients built from cfg.
func InstrumentAWS(cfg *aws.Config) {
	setup()
	awsv2.AWSV2Instrumentor(&cfg.APIOptions)
}

// HTTPClient wraps c so outgoing requests (the LLM, the extraction service) are traced.
func HTTPClient(c *http.Client) *http.Client {
	setup()
	return xray.Client(c)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
