// Package realtimeapp wires the WebSocket API's services on their store for the functions that
// serve its routes or publish events (apart from shared/app, so other functions do not link the
// realtime store).
package realtimeapp

import (
	"fmt"

	"github.com/screenagent/backend/shared/app"
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

// Store is the store of the WebSocket API.
func Store(a *app.App) (*realtimedb.Store, error) {
	table := a.Config.Lookup(EnvRealtimeTable)
	if table == "" {
		return nil, fmt.Errorf("%s is not set", EnvRealtimeTable)
	}
	return realtimedb.New(a.DynamoDB, table), nil
}

// Poster posts to the WebSocket API's connections.
func Poster(a *app.App) (*apigw.Client, error) {
	endpoint := a.Config.Lookup(EnvRealtimeEndpoint)
	if endpoint == "" {
		return nil, fmt.Errorf("%s is not set", EnvRealtimeEndpoint)
	}
	return apigw.New(a.AWS, endpoint), nil
}

// connections is the store and the poster every realtime service needs.
func connections(a *app.App) (*realtimedb.Store, *apigw.Client, error) {
	store, err := Store(a)
	if err != nil {
		return nil, nil, err
	}
	poster, err := Poster(a)
	if err != nil {
		return nil, nil, err
	}
	return store, poster, nil
}

// Publisher is the publisher of the functions that change a task's or a run's state.
func Publisher(a *app.App) (*realtime.Publisher, error) {
	store, poster, err := connections(a)
	if err != nil {
		return nil, err
	}
	return &realtime.Publisher{Log: store, Poster: poster, Logger: a.Logger}, nil
}

// Hub is the WebSocket API's service; access decides subscriptions (nil where none are made).
func Hub(a *app.App, access realtime.Access) (*realtime.Hub, error) {
	store, poster, err := connections(a)
	if err != nil {
		return nil, err
	}
	return &realtime.Hub{Store: store, Poster: poster, Access: access, URL: a.Config.Lookup(EnvRealtimeURL), Logger: a.Logger}, nil
}
