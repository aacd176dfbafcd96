//go:build !js

package signaling

import (
	"fmt"
	"net"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// testCluster is the timing the cluster tests run with: an instance is
// dead after one silent second.
var testCluster = ClusterConfig{Heartbeat: 100 * time.Millisecond, DeadAfter: time.Second, OpTimeout: 5 * time.Second}

// embeddedNATS is a NATS server with JetStream on loopback, its store in a
// directory of the test's, restartable on the same port.
type embeddedNATS struct {
	t    *testing.T
	dir  string
	port int
	ns   *natsserver.Server
}

func startNATS(t *testing.T) *embeddedNATS {
	t.Helper()
	e := &embeddedNATS{t: t, dir: t.TempDir(), port: -1}
	e.start()
	t.Cleanup(e.stop)
	return e
}

func (e *embeddedNATS) start() {
	e.t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{
		Host: "127.0.0.1", Port: e.port, JetStream: true, StoreDir: e.dir,
		NoLog: true, NoSigs: true,
	})
	require.NoError(e.t, err)
	ns.Start()
	require.True(e.t, ns.ReadyForConnections(waitTimeout), "NATS not ready")
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

// connect returns a NATS connection that reconnects for ever, closed at
// cleanup after everything the test registered later.
func (e *embeddedNATS) connect(t *testing.T) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(e.url(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ReconnectJitter(0, 0), nats.Name(t.Name()))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// instance starts a server sharing rooms over e; its NATS connection is
// closed after the server.
func (e *embeddedNATS) instance(t *testing.T, cfg ServerConfig) (*harness, *nats.Conn) {
	t.Helper()
	nc := e.connect(t)
	cfg.NATS = nc
	if cfg.Cluster == (ClusterConfig{}) {
		cfg.Cluster = testCluster
	}
	return start(t, cfg), nc
}

func (e *embeddedNATS) instances(t *testing.T, n int, cfg ServerConfig) []*harness {
	t.Helper()
	hs := make([]*harness, n)
	for i := range hs {
		hs[i], _ = e.instance(t, cfg)
	}
	return hs
}
