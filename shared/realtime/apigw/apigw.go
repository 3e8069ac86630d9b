// Package apigw posts to WebSocket connections through API Gateway's Management API
// (PostToConnection), signed with Signature Version 4 over net/http: the SDK's
// apigatewaymanagementapi module would add a dependency for one call.
package apigw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/screenagent/backend/shared/realtime"
)

// Client posts to the connections of one WebSocket API stage.
type Client struct {
	// Endpoint is the stage's management endpoint: https://{api}.execute-api.{region}.amazonaws.com/{stage}.
	Endpoint    string
	Region      string
	Credentials aws.CredentialsProvider
	HTTP        *http.Client
	signer      *v4.Signer
}

// New returns a client for the endpoint, signing with the configuration's credentials.
func New(cfg aws.Config, endpoint string) *Client {
	return &Client{
		Endpoint: strings.TrimSuffix(endpoint, "/"), Region: cfg.Region, Credentials: cfg.Credentials,
		HTTP: &http.Client{Timeout: 5 * time.Second}, signer: v4.NewSigner(),
	}
}

// Post is PostToConnection. 410 is realtime.ErrGone and 429 realtime.ErrThrottled.
func (c *Client) Post(ctx context.Context, connectionID string, data []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint+"/@connections/"+url.PathEscape(connectionID), bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("post to connection: %w", err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	creds, err := c.Credentials.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("post to connection: credentials: %w", err)
	}
	sum := sha256.Sum256(data)
	if err := c.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "execute-api", c.Region, time.Now()); err != nil {
		return fmt.Errorf("post to connection: sign: %w", err)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("post to connection: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	switch {
	case res.StatusCode == http.StatusGone:
		return realtime.ErrGone
	case res.StatusCode == http.StatusTooManyRequests:
		return realtime.ErrThrottled
	case res.StatusCode/100 != 2:
		return fmt.Errorf("post to connection: status %d: %s", res.StatusCode, bytes.TrimSpace(body))
	}
	return nil
}
