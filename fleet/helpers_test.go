//go:build !js

package fleet_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

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

// eventBound bounds each wait for what a beat carries to reach the
// placer's mirror (a host's record, its end of a match, its drain): the
// beats come every 100 ms, and a loaded machine under -race delays them
// by seconds. A wait that passes it fails saying what it waited for.
const eventBound = 20 * time.Second

// clock is a placer's clock that moves only when a test advances it
// (fleet.NewPlacerAt): whether a host is live, gone or forgotten follows
// the test's steps, not a loaded machine's late heartbeats. On the wall
// clock, with the tests' 500 ms DeadAfter and 1 s ForgetAfter, a beat
// that came late beside the other packages' tests under -race took a live
// host for gone (Place refused with ErrNoHost) or forgot it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// newClock is a clock stopped at the wall clock's now (a connect token
// the placer mints on it is valid on the wall clock).
func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// beatOf is host id's beat in p's mirror (0 if it is not there).
func beatOf(p *fleet.Placer, id string) uint64 {
	for _, h := range p.View().Hosts {
		if h.ID == id {
			return h.Beat
		}
	}
	return 0
}

// waitBeat waits until p's mirror has host id's beat n or a later one:
// p saw that beat at its clock's now, or before.
func waitBeat(t *testing.T, p *fleet.Placer, id string, n uint64) {
	t.Helper()
	deadline := time.Now().Add(eventBound)
	for beatOf(p, id) < n {
		require.True(t, time.Now().Before(deadline), "waited %v for the placer to see host %s's beat %d (it has %d)", eventBound, id, n, beatOf(p, id))
		time.Sleep(5 * time.Millisecond)
	}
}

// lastBeat waits until p's mirror has the beat host id's record holds in
// the bucket kv, and returns it: with the host's connection closed, its
// last (p saw it at its clock's now, or before).
func lastBeat(t *testing.T, p *fleet.Placer, kv jetstream.KeyValue, id string) uint64 {
	t.Helper()
	h, _ := hostRecord(t, kv, id)
	waitBeat(t, p, id, h.Beat)
	return h.Beat
}
