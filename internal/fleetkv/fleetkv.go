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

// Layout is the bucket's layout, written in every host record ("layout"):
// 2 since the drain order moved to its own key (DrainKey, an operator's)
// and hosts stopped writing room keys, so that NATS permissions can say
// who writes what. A placer places nothing on a host of another layout.
const Layout = 2

// Bucket is the key-value bucket of the fleet named fleet: "<fleet>-fleet".
func Bucket(fleet string) string { return fleet + "-fleet" }

// Open opens the key-value bucket of the fleet named fleet (its
// Config.Name), creating it if it does not exist. It never updates an
// existing bucket's settings: the hosts' and placers' NATS permissions
// need not (and should not) allow that.
func Open(ctx context.Context, nc *nats.Conn, fleet string) (jetstream.KeyValue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	kv, err := js.KeyValue(ctx, Bucket(fleet))
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		if err != nil {
			return nil, fmt.Errorf("key-value bucket %s: %v", Bucket(fleet), err)
		}
		return kv, nil
	}
	kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      Bucket(fleet),
		Description: "rollnet fleet: hosts (their capacity and placed matches), rooms (their host), drain orders",
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		kv, err = js.KeyValue(ctx, Bucket(fleet)) // another member created it meanwhile
	}
	if err != nil {
		return nil, fmt.Errorf("key-value bucket %s does not exist, and creating it failed (a placer's or an operator's credentials may create it): %v", Bucket(fleet), err)
	}
	return kv, nil
}

// Conflict reports whether err is a lost compare-and-set.
func Conflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}
