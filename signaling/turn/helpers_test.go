package turn_test

import (
	"net"
	"testing"
	"time"

	"github.com/pion/logging"
	pionturn "github.com/pion/turn/v5"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/internal/turncred"
	"github.com/rollnet/rollnet/signaling/turn"
)

var secret = []byte("t3st-secret")

// startRelay runs a relay on loopback for cfg, with the test secret and
// 127.0.0.1 as its public address unless cfg says otherwise.
func startRelay(t testing.TB, cfg turn.Config) *turn.Relay {
	t.Helper()
	if cfg.Secret == nil {
		cfg.Secret = secret
	}
	if cfg.PublicIP == nil {
		cfg.PublicIP = net.IPv4(127, 0, 0, 1)
	}
	if cfg.RelayBind == "" {
		cfg.RelayBind = "127.0.0.1"
	}
	r, err := turn.Listen(cfg, "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	return r
}

// login is a TURN username and password.
type login struct{ user, pass string }

// creds mints credentials for user valid until expiry, as the signaling
// server does at join.
func creds(user string, expiry time.Time) login {
	u, p := turncred.Mint(secret, user, expiry)
	return login{u, p}
}

// dialTURN returns a raw pion TURN client of r over network ("udp" or
// "tcp") with the given credentials, listening.
func dialTURN(t testing.TB, r *turn.Relay, network string, l login) *pionturn.Client {
	t.Helper()
	var conn net.PacketConn
	var server string
	switch network {
	case "udp":
		pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
		require.NoError(t, err)
		conn, server = pc, r.UDPAddr().String()
	case "tcp":
		c, err := net.Dial("tcp", r.TCPAddr().String())
		require.NoError(t, err)
		conn, server = pionturn.NewSTUNConn(c), r.TCPAddr().String()
	}
	c, err := pionturn.NewClient(&pionturn.ClientConfig{
		TURNServerAddr: server,
		Conn:           conn,
		Username:       l.user,
		Password:       l.pass,
		Realm:          "rollnet",
		RTO:            100 * time.Millisecond,
		LoggerFactory:  quiet{},
	})
	require.NoError(t, err)
	require.NoError(t, c.Listen())
	t.Cleanup(func() {
		c.Close()
		_ = conn.Close()
	})
	return c
}

// allocate makes one UDP allocation on c; the relay socket is closed
// (deallocated) at cleanup.
func allocate(t testing.TB, c *pionturn.Client) (net.PacketConn, error) {
	t.Helper()
	rc, err := c.Allocate()
	if err == nil {
		t.Cleanup(func() { _ = rc.Close() })
	}
	return rc, err
}

// eventually waits for cond, which a relay goroutine makes true.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, time.Millisecond, what)
}

// quiet discards the raw client's logs: it logs refusals the tests cause
// on purpose.
type quiet struct{}

func (quiet) NewLogger(string) logging.LeveledLogger {
	f := logging.NewDefaultLoggerFactory()
	f.DefaultLogLevel = logging.LogLevelDisabled
	return f.NewLogger("turnc")
}
