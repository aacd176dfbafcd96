//go:build !js

package fleet_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/fleet/fleetlocal"
	"github.com/rollnet/rollnet/internal/natstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func startNATS(t testing.TB) *natstest.Server { return natstest.Start(t) }

// bucket opens the fleet's key-value bucket over nc, as a test reads it.
func bucket(t testing.TB, nc *nats.Conn) jetstream.KeyValue {
	t.Helper()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.KeyValue(context.Background(), "rollnet-fleet")
	require.NoError(t, err)
	return kv
}

// bucketAt opens the bucket of a fleetlocal fleet, as its placers read
// it (its NATS runs with the fleet's permissions), its connection closed
// when the test ends.
func bucketAt(t testing.TB, f *fleetlocal.Fleet) jetstream.KeyValue {
	t.Helper()
	nc, err := f.Connect("placer")
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return bucket(t, nc)
}

// hostRecord reads host id's record and its revision.
func hostRecord(t testing.TB, kv jetstream.KeyValue, id string) (fleet.Host, uint64) {
	t.Helper()
	e, err := kv.Get(context.Background(), "host."+id)
	require.NoError(t, err)
	var h fleet.Host
	require.NoError(t, json.Unmarshal(e.Value(), &h))
	return h, e.Revision()
}
