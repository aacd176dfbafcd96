//go:build !js

package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rollnet/rollnet/internal/fleetkv"
)

// Drain orders host id of the fleet cfg names to drain, over nc: it
// writes the host's drain order, drain.<id>, which only an operator's
// NATS credentials may write (see the trust model in the package
// documentation). The host reads it at its next beat, marks its record
// Draining and drains as on SIGTERM. A host that joins later under the
// same id ignores the order (it takes only orders written after it
// joined). The command's form is rollnet-fleet -drain ID. Credentials
// that may not write the order get an error wrapping
// nats.ErrPermissionViolation (after cfg.Tuning.OpTimeout: NATS does not
// acknowledge a publish it refuses).
func Drain(ctx context.Context, nc *nats.Conn, cfg Config, id string) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	if !fleetkv.ValidName(id, fleetkv.MaxID) {
		return fmt.Errorf("%w: host id %q", errConfig, id)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Tuning.OpTimeout)
	defer cancel()
	kv, err := openBucket(ctx, nc, cfg)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(fleetkv.Drain{Ordered: time.Now().UnixMilli()})
	if _, err := kv.Put(ctx, fleetkv.DrainKey(id), b); err != nil {
		if last := nc.LastError(); errors.Is(last, nats.ErrPermissionViolation) {
			// NATS refused the write (it never acknowledges it): these
			// are not an operator's credentials.
			return fmt.Errorf("fleet: writing the drain order of %s: %w", id, last)
		}
		return unavailable("writing the drain order of "+id, err)
	}
	return nil
}
