//go:build !js

// Package fleetkv is the fleet's key-value bucket as its hosts (package
// internal/fleethost) and placers (package fleet) share it: the bucket's
// settings, its keys, a room key's value, and the names a key may hold.
package fleetkv

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Open creates or opens the key-value bucket of the fleet named fleet
// (its Config.Name): "<fleet>-fleet".
func Open(ctx context.Context, nc *nats.Conn, fleet string) (jetstream.KeyValue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      fleet + "-fleet",
		Description: "rollnet fleet: hosts (their capacity and placed matches) and rooms (their host)",
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("key-value bucket: %v", err)
	}
	return kv, nil
}

// Conflict reports whether err is a lost compare-and-set.
func Conflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}
