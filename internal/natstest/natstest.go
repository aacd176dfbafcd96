//go:build !js

// Package natstest embeds a NATS server with JetStream on loopback for
// tests: its store in a directory of the test's, restartable on the same
// port (a test stops it to see what an outage does, and starts it again),
// shut down at the test's cleanup. The signaling cluster's and the
// fleet's tests use it.
package natstest

import (
	"fmt"
	"net"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// ReadyTimeout bounds the wait for the server to take connections.
const ReadyTimeout = 10 * time.Second

// Server is an embedded NATS server.
type Server struct {
	t    testing.TB
	dir  string
	port int
	ns   *natsserver.Server
}

// Start starts a server on a free loopback port, stopped at cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, dir: t.TempDir(), port: -1}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start starts the server again (on its first port, with its store).
func (s *Server) Start() {
	s.t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{
		Host: "127.0.0.1", Port: s.port, JetStream: true, StoreDir: s.dir, NoLog: true, NoSigs: true,
	})
	require.NoError(s.t, err)
	ns.Start()
	require.True(s.t, ns.ReadyForConnections(ReadyTimeout), "NATS not ready within %v", ReadyTimeout)
	s.ns = ns
	if s.port == -1 {
		s.port = ns.Addr().(*net.TCPAddr).Port
	}
}

// Stop shuts the server down (it may Start again).
func (s *Server) Stop() {
	if s.ns != nil {
		s.ns.Shutdown()
		s.ns.WaitForShutdown()
		s.ns = nil
	}
}

// URL is nats://127.0.0.1:PORT.
func (s *Server) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// Connect returns a connection that reconnects for ever (every 50 ms),
// closed at t's cleanup, after everything t registered later.
func (s *Server) Connect(t testing.TB) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ReconnectJitter(0, 0), nats.Name(t.Name()))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}
