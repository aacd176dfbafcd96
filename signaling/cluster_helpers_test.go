//go:build !js

package signaling

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/rollnet/rollnet/internal/natstest"
)

// testCluster is the timing the cluster tests run with: an instance is
// dead after one silent second.
var testCluster = ClusterConfig{Heartbeat: 100 * time.Millisecond, DeadAfter: time.Second, OpTimeout: 5 * time.Second}

// embeddedNATS is a NATS server with JetStream on loopback
// (internal/natstest), restartable on the same port.
type embeddedNATS struct{ *natstest.Server }

func startNATS(t *testing.T) *embeddedNATS { return &embeddedNATS{natstest.Start(t)} }

func (e *embeddedNATS) start()                          { e.Start() }
func (e *embeddedNATS) stop()                           { e.Stop() }
func (e *embeddedNATS) url() string                     { return e.URL() }
func (e *embeddedNATS) connect(t *testing.T) *nats.Conn { return e.Connect(t) }

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
