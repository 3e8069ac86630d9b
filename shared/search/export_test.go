package search

import (
	"context"
	"time"
)

// SetSleep makes c wait between attempts through sleep, so that tests see the waits without
// taking them.
func (c *Client) SetSleep(sleep func(context.Context, time.Duration) error) { c.retry.Sleep = sleep }
