package app

import (
	"fmt"

	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/realtime/apigw"
	"github.com/screenagent/backend/shared/realtime/realtimedb"
)

// The WebSocket API's configuration: its table, its management endpoint (where PostToConnection
// goes) and the address clients connect to.
const (
	EnvRealtimeTable    = "REALTIME_TABLE"
	EnvRealtimeEndpoint = "REALTIME_ENDPOINT"
	EnvRealtimeURL      = "REALTIME_URL"
)

// RealtimeStore is the store of the WebSocket API.
func (a *App) RealtimeStore() (*realtimedb.Store, error) {
	table := a.Config.Lookup(EnvRealtimeTable)
	if table == "" {
		return nil, fmt.Errorf("%s is not set", EnvRealtimeTable)
	}
	return realtimedb.New(a.DynamoDB, table), nil
}

// RealtimePoster posts to the WebSocket API's connections.
func (a *App) RealtimePoster() (*apigw.Client, error) {
	endpoint := a.Config.Lookup(EnvRealtimeEndpoint)
	if endpoint == "" {
		return nil, fmt.Errorf("%s is not set", EnvRealtimeEndpoint)
	}
	return apigw.New(a.AWS, endpoint), nil
}

// Realtime is the publisher of the functions that change a task's or a run's state.
func (a *App) Realtime() (*realtime.Publisher, error) {
	store, err := a.RealtimeStore()
	if err != nil {
		return nil, err
	}
	poster, err := a.RealtimePoster()
	if err != nil {
		return nil, err
	}
	return &realtime.Publisher{Log: store, Poster: poster, Logger: a.Logger}, nil
}
