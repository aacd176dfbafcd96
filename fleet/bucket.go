//go:build !js

package fleet

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rollnet/rollnet/internal/fleetkv"
)

// openBucket creates or opens the fleet's key-value bucket.
func openBucket(ctx context.Context, nc *nats.Conn, cfg Config) (jetstream.KeyValue, error) {
	kv, err := fleetkv.Open(ctx, nc, cfg.Name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return kv, nil
}

// unavailable wraps a key-value error that is not a lost compare-and-set
// or a missing key in ErrUnavailable.
func unavailable(op string, err error) error {
	return fmt.Errorf("%w: %s: %v", ErrUnavailable, op, err)
}
