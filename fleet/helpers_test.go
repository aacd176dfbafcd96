//go:build !js

package fleet_test

import (
	"fmt"
	"net"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// embeddedNATS is a NATS server with JetStream on loopback, its store in a
// directory of the test's, restartable on the same port (as signaling's
// cluster tests embed one).
type embeddedNATS struct {
	t    testing.TB
	dir  string
	port int
	ns   *natsserver.Server
}

func startNATS(t testing.TB) *embeddedNATS {
	t.Helper()
	e := &embeddedNATS{t: t, dir: t.TempDir(), port: -1}
	e.start()
	t.Cleanup(e.stop)
	return e
}

func (e *embeddedNATS) start() {
	e.t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{
		Host: "127.0.0.1", Port: e.port, JetStream: true, StoreDir: e.dir, NoLog: true, NoSigs: true,
	})
	require.NoError(e.t, err)
	ns.Start()
	require.True(e.t, ns.ReadyForConnections(10*time.Second), "NATS not ready within 10 s")
	e.ns = ns
	if e.port == -1 {
		e.port = ns.Addr().(*net.TCPAddr).Port
	}
}

func (e *embeddedNATS) stop() {
	if e.ns != nil {
		e.ns.Shutdown()
		e.ns.WaitForShutdown()
		e.ns = nil
	}
}

func (e *embeddedNATS) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", e.port) }

// connect returns a connection that reconnects for ever, closed at cleanup.
func (e *embeddedNATS) connect(t testing.TB) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(e.url(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ReconnectJitter(0, 0), nats.Name(t.Name()))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}
