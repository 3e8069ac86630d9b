// Package trustdb is the store side of what the tasks and runs stores keep of package trust: the
// typed secrets of a task or run and the secrets its client holds, as records with the attribute
// names they are stored under, so that trust's types carry no storage tags.
package trustdb

import (
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/trust"
)

// Secrets is the record of trust.Secrets.
type Secrets struct {
	Key   []byte  `dynamodbav:"key,omitempty"`
	Typed []typed `dynamodbav:"typed,omitempty"`
}

type typed struct {
	Sum string `dynamodbav:"sum"`
	Len int    `dynamodbav:"len"`
}

// FromSecrets is the record of s.
func FromSecrets(s trust.Secrets) Secrets {
	return Secrets{Key: s.Key, Typed: dynamo.Convert(s.Typed, func(t trust.Typed) typed { return typed{Sum: t.Sum, Len: t.Len} })}
}

// Secrets is the secrets the record holds.
func (r Secrets) Secrets() trust.Secrets {
	return trust.Secrets{Key: r.Key, Typed: dynamo.Convert(r.Typed, func(t typed) trust.Typed { return trust.Typed{Sum: t.Sum, Len: t.Len} })}
}

// NamedSecret is the record of trust.NamedSecret.
type NamedSecret struct {
	Name   string `dynamodbav:"name"`
	Origin string `dynamodbav:"origin,omitempty"`
}

// FromNames is the records of names.
func FromNames(names []trust.NamedSecret) []NamedSecret {
	return dynamo.Convert(names, func(n trust.NamedSecret) NamedSecret { return NamedSecret{Name: n.Name, Origin: n.Origin} })
}

// Names is the named secrets of records.
func Names(records []NamedSecret) []trust.NamedSecret {
	return dynamo.Convert(records, func(n NamedSecret) trust.NamedSecret { return trust.NamedSecret{Name: n.Name, Origin: n.Origin} })
}
