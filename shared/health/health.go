// Package health reports the status of the services the API depends on.
package health

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Status levels, from best to worst.
const (
	Healthy   = "healthy"
	Degraded  = "degraded"
	Unhealthy = "unhealthy"
	// NotConfigured marks an optional service that is switched off; it does not lower the overall status.
	NotConfigured = "not_configured"
)

// SlowThreshold is the latency above which a reachable table counts as degraded.
const SlowThreshold = time.Second

// TableDescriber is the part of the DynamoDB client the checker needs.
type TableDescriber interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// LLM is what is known of the LLM configuration without calling it (a call costs money).
type LLM struct {
	Configured bool
	Model      string
	BaseURL    string
}

// Search is what is known of the web search configuration without calling it (a call costs a credit).
type Search struct {
	Configured bool
}

// Checker checks each table and reports the LLM and web search configuration.
type Checker struct {
	DB TableDescriber
	// Tables maps a service name (e.g. "tasksTable") to its table name.
	Tables  map[string]string
	LLM     LLM
	Search  Search
	Timeout time.Duration
	Now     func() time.Time
}

// Service is one service's check.
type Service struct {
	Status     string `json:"status"`
	LatencyMs  *int64 `json:"latencyMs,omitempty"`
	Message    string `json:"message,omitempty"`
	Configured *bool  `json:"configured,omitempty"`
	Model      string `json:"model,omitempty"`
}

// Report is the body of GET /api/health.
type Report struct {
	Status    string             `json:"status"`
	Timestamp string             `json:"timestamp"`
	Services  map[string]Service `json:"services"`
}

// Check runs every table check concurrently, each bounded by the timeout. The overall status is
// the worst table status; the LLM and web search are reported but, being optional, do not lower it.
func (c *Checker) Check(ctx context.Context) Report {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	r := Report{Timestamp: now().UTC().Format(time.RFC3339Nano), Services: map[string]Service{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, table := range c.Tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := c.checkTable(ctx, table, timeout)
			mu.Lock()
			r.Services[name] = s
			mu.Unlock()
		}()
	}
	wg.Wait()
	r.Status = overall(r.Services)

	configured := c.LLM.Configured
	llm := Service{Status: NotConfigured, Configured: &configured, Model: c.LLM.Model}
	if configured {
		llm.Status = Healthy
	} else {
		llm.Message = "No LLM API key is configured; agent routes will fail until one is."
	}
	r.Services["llm"] = llm

	searchOn := c.Search.Configured
	search := Service{Status: NotConfigured, Configured: &searchOn}
	if searchOn {
		search.Status = Healthy
	} else {
		search.Message = "No web search API key is configured; the agent works without web search."
	}
	r.Services["search"] = search
	return r
}

func (c *Checker) checkTable(ctx context.Context, table string, timeout time.Duration) Service {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	// No retries: a health check reports the outage now instead of backing off through it.
	out, err := c.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)},
		func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	ms := time.Since(start).Milliseconds()
	s := Service{Status: Healthy, LatencyMs: &ms}
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		s.Status, s.Message = Unhealthy, "table not found"
	case errors.Is(err, context.DeadlineExceeded):
		s.Status, s.Message = Unhealthy, "timed out"
	case err != nil:
		// The error text can carry endpoints and ARNs; the public body says only what failed.
		s.Status, s.Message = Unhealthy, "unreachable"
	case out.Table != nil && out.Table.TableStatus != types.TableStatusActive && out.Table.TableStatus != types.TableStatusUpdating:
		s.Status, s.Message = Degraded, "table status "+string(out.Table.TableStatus)
	case time.Duration(ms)*time.Millisecond > SlowThreshold:
		s.Status, s.Message = Degraded, "slow"
	}
	return s
}

// overall is the worst table status: every table backs some route, so one missing table is an outage.
func overall(services map[string]Service) string {
	status := Healthy
	for _, s := range services {
		switch s.Status {
		case Unhealthy:
			return Unhealthy
		case Degraded:
			status = Degraded
		}
	}
	return status
}
