//go:build !js

package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// roomValue is a room key's value: the host its match is on.
type roomValue struct {
	Host string `json:"host"`
}

// openBucket creates or opens the fleet's key-value bucket.
func openBucket(ctx context.Context, nc *nats.Conn, cfg Config) (jetstream.KeyValue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      cfg.bucket(),
		Description: "rollnet fleet: hosts (their capacity and placed matches) and rooms (their host)",
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: key-value bucket: %v", ErrUnavailable, err)
	}
	return kv, nil
}

// conflict reports whether err is a lost compare-and-set.
func conflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}

// unavailable wraps a key-value error that is not a lost compare-and-set
// or a missing key in ErrUnavailable.
func unavailable(op string, err error) error {
	return fmt.Errorf("%w: %s: %v", ErrUnavailable, op, err)
}
