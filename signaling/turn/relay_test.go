package turn_test

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pionturn "github.com/pion/turn/v5"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/signaling/turn"
	"github.com/rollnet/rollnet/transport/local"
)

// relayed sends msg from a's allocation to b's relay address and returns
// what b's allocation reads (nil after a short wait when nothing comes).
func relayed(t *testing.T, a, b net.PacketConn, msg []byte) []byte {
	t.Helper()
	_, err := a.WriteTo(msg, b.LocalAddr())
	require.NoError(t, err)
	buf := make([]byte, 1500)
	require.NoError(t, b.SetReadDeadline(time.Now().Add(2*time.Second)))
	n, from, err := b.ReadFrom(buf)
	if err != nil {
		return nil
	}
	require.Equal(t, a.LocalAddr().String(), from.String())
	return buf[:n]
}

func TestRelayRelaysOverUDPAndTCP(t *testing.T) {
	r := startRelay(t, turn.Config{AllowLoopback: true})
	require.Len(t, r.URLs(), 2)
	require.Regexp(t, `^turn:127\.0\.0\.1:\d+\?transport=udp$`, r.URLs()[0])
	require.Regexp(t, `^turn:127\.0\.0\.1:\d+\?transport=tcp$`, r.URLs()[1])

	exp := time.Now().Add(time.Hour)
	a, err := allocate(t, dialTURN(t, r, "udp", creds("alice", exp)))
	require.NoError(t, err)
	b, err := allocate(t, dialTURN(t, r, "tcp", creds("bob", exp)))
	require.NoError(t, err)
	require.Equal(t, 2, r.Stats().Allocations)
	require.Equal(t, 1, r.Stats().TCPConns)

	// Each side lets the other's relay address in, as ICE does.
	_, err = b.WriteTo([]byte("hello alice"), a.LocalAddr())
	require.NoError(t, err)
	require.Equal(t, "hello bob", string(relayed(t, a, b, []byte("hello bob"))))
	require.Equal(t, "hello alice", string(relayed(t, b, a, []byte("hello alice"))))
}

func TestRelayRefusesForgedExpiredAndMalformedCredentials(t *testing.T) {
	clk := local.NewClock(time.Unix(1_800_000_000, 0))
	r := startRelay(t, turn.Config{AllowLoopback: true, Now: clk.Now})
	valid := creds("mallory", clk.Now().Add(time.Minute))
	user, pass := valid.user, valid.pass

	for name, c := range map[string]login{
		"forged password":  {user, "AAAAAAAAAAAAAAAAAAAAAAAAAAA="},
		"other user's MAC": {user[:len(user)-1] + "X", pass},
		"no expiry":        {"mallory", pass},
		"padded expiry":    {"0" + user, pass},
		"empty user":       {user[:len(user)-len("mallory")], pass},
		"other secret":     {"1800000060:mallory", "Vq6n8vIPlqM3IkG0X0S1w3hsf9c="},
	} {
		_, err := allocate(t, dialTURN(t, r, "udp", c))
		require.Error(t, err, name)
	}
	st := r.Stats()
	require.Equal(t, uint64(3), st.Forged, "forged password, another user's MAC, another secret")
	require.Equal(t, uint64(3), st.Malformed, "no expiry, padded expiry, empty user")
	require.Zero(t, st.Allocations)

	// Valid until the expiry, refused from it on.
	_, err := allocate(t, dialTURN(t, r, "udp", valid))
	require.NoError(t, err)
	clk.Advance(time.Minute)
	_, err = allocate(t, dialTURN(t, r, "udp", valid))
	require.Error(t, err)
	require.Equal(t, uint64(1), r.Stats().Expired)
	require.Equal(t, 1, r.Stats().Allocations)
}

func TestRelayStopsRelayingWhenCredentialsExpire(t *testing.T) {
	clk := local.NewClock(time.Unix(1_800_000_000, 0))
	r := startRelay(t, turn.Config{AllowLoopback: true, Now: clk.Now})
	a, err := allocate(t, dialTURN(t, r, "udp", creds("alice", clk.Now().Add(time.Minute))))
	require.NoError(t, err)
	b, err := allocate(t, dialTURN(t, r, "udp", creds("bob", clk.Now().Add(time.Hour))))
	require.NoError(t, err)
	_, err = b.WriteTo([]byte("let a in"), a.LocalAddr())
	require.NoError(t, err)
	require.Equal(t, "ping", string(relayed(t, a, b, []byte("ping"))))

	// Alice asked for a lifetime of minutes; her credentials end first.
	clk.Advance(time.Minute)
	_, _ = a.WriteTo([]byte("after expiry"), b.LocalAddr())
	eventually(t, func() bool { return r.Stats().Allocations == 1 }, "alice's allocation ended")
	require.Equal(t, uint64(1), r.Stats().ExpiredEnded)
}

func TestRelayRefusesLoopbackAndPrivatePeers(t *testing.T) {
	r := startRelay(t, turn.Config{})
	exp := time.Now().Add(time.Hour)
	c := dialTURN(t, r, "udp", creds("eve", exp))
	_, err := allocate(t, c)
	require.NoError(t, err, "the allocation itself is fine")

	for _, ip := range []string{"127.0.0.1", "10.1.2.3", "192.168.0.1", "172.16.5.5", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fd00::1", "::ffff:127.0.0.1"} {
		err := c.CreatePermission(&net.UDPAddr{IP: net.ParseIP(ip), Port: 9})
		require.Error(t, err, ip)
	}
	// The two IPv6 peers never reach the filter: an IPv4 allocation
	// refuses them first.
	require.Equal(t, uint64(8), r.Stats().PeersRefused)
	require.NoError(t, c.CreatePermission(&net.UDPAddr{IP: net.ParseIP("192.0.2.1"), Port: 9}), "a public (documentation) address")

	// With AllowPrivate, a LAN peer is fine and loopback still is not.
	r2 := startRelay(t, turn.Config{AllowPrivate: true})
	c2 := dialTURN(t, r2, "udp", creds("lan", exp))
	_, err = allocate(t, c2)
	require.NoError(t, err)
	require.NoError(t, c2.CreatePermission(&net.UDPAddr{IP: net.ParseIP("10.1.2.3"), Port: 9}))
	require.Error(t, c2.CreatePermission(&net.UDPAddr{IP: net.ParseIP("127.0.0.1"), Port: 9}))
}

func TestRelayCapsAllocationsPerUserAndInTotal(t *testing.T) {
	r := startRelay(t, turn.Config{AllowLoopback: true, MaxAllocationsPerUser: 2, MaxAllocations: 3})
	exp := time.Now().Add(time.Hour)
	for range 2 {
		_, err := allocate(t, dialTURN(t, r, "udp", creds("greedy", exp)))
		require.NoError(t, err)
	}
	_, err := allocate(t, dialTURN(t, r, "tcp", creds("greedy", exp)))
	require.Error(t, err, "third allocation of one user, whatever the transport")
	require.Equal(t, uint64(1), r.Stats().QuotaRefused)

	last, err := allocate(t, dialTURN(t, r, "udp", creds("second", exp)))
	require.NoError(t, err)
	_, err = allocate(t, dialTURN(t, r, "udp", creds("third", exp)))
	require.Error(t, err, "the relay is full")
	require.Equal(t, uint64(1), r.Stats().CapRefused)
	require.Equal(t, 3, r.Stats().Allocations)

	// A deallocation frees its slot.
	require.NoError(t, last.Close())
	eventually(t, func() bool { return r.Stats().Allocations == 2 }, "deallocated")
	_, err = allocate(t, dialTURN(t, r, "udp", creds("third", exp)))
	require.NoError(t, err)
	require.Equal(t, uint64(4), r.Stats().Allocated)
}

func TestRelayRefusesTCPRelayAllocations(t *testing.T) {
	r := startRelay(t, turn.Config{AllowLoopback: true})
	c := dialTURN(t, r, "tcp", creds("tcp", time.Now().Add(time.Hour)))
	_, err := c.AllocateTCP()
	require.Error(t, err)
	require.Equal(t, uint64(1), r.Stats().TCPRefused)
	require.Zero(t, r.Stats().Allocations)
}

func TestRelayCapsTCPConnectionsAndClosesIdleOnes(t *testing.T) {
	r := startRelay(t, turn.Config{MaxConnsPerAddr: 2, IdleTimeout: 500 * time.Millisecond})
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", r.TCPAddr().String())
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		conns = append(conns, c)
	}
	// Two are held, the third is closed at accept; then the idle two are
	// closed too. Every read ends (EOF or reset), none hangs.
	for _, c := range conns {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
		_, err := c.Read(make([]byte, 1))
		require.Error(t, err)
		var ne net.Error
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "closed by the relay, not by our deadline")
	}
	require.Equal(t, uint64(1), r.Stats().ConnsRefused)
	eventually(t, func() bool { return r.Stats().TCPConns == 0 }, "idle connections closed")
}

func TestRelaySurvivesGarbage(t *testing.T) {
	r := startRelay(t, turn.Config{AllowLoopback: true})
	u, err := net.Dial("udp", r.UDPAddr().String())
	require.NoError(t, err)
	defer u.Close()
	tc, err := net.Dial("tcp", r.TCPAddr().String())
	require.NoError(t, err)
	defer tc.Close()
	// A STUN header claiming a long body, a truncated one, a channel-data
	// frame for an unbound channel, and noise.
	for _, b := range [][]byte{
		{0x00, 0x03, 0xff, 0xfc, 0x21, 0x12, 0xa4, 0x42, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		{0x00, 0x03, 0x00},
		{0x40, 0x00, 0x00, 0x04, 1, 2, 3, 4},
		[]byte("GET / HTTP/1.1\r\n\r\n"),
	} {
		_, _ = u.Write(b)
		_, _ = tc.Write(b)
	}
	_, err = allocate(t, dialTURN(t, r, "udp", creds("after", time.Now().Add(time.Hour))))
	require.NoError(t, err, "still serving")
}

func TestConfigErrors(t *testing.T) {
	ip := net.IPv4(192, 0, 2, 1)
	for name, cfg := range map[string]turn.Config{
		"no secret":      {PublicIP: ip},
		"no public IP":   {Secret: secret},
		"unspecified IP": {Secret: secret, PublicIP: net.IPv4zero},
		"negative cap":   {Secret: secret, PublicIP: ip, MaxAllocations: -1},
		"ports reversed": {Secret: secret, PublicIP: ip, MinPort: 50000, MaxPort: 40000},
		"port too big":   {Secret: secret, PublicIP: ip, MaxPort: 70000},
		"bad bind":       {Secret: secret, PublicIP: ip, RelayBind: "nowhere"},
		"negative idle":  {Secret: secret, PublicIP: ip, IdleTimeout: -time.Second},
	} {
		_, err := turn.Listen(cfg, "127.0.0.1:0")
		require.ErrorIs(t, err, rollnet.ErrConfig, name)
	}
	_, err := turn.New(turn.Config{Secret: secret, PublicIP: ip}, nil, nil)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// Many users at once, over TCP (pion serves each connection on its own
// goroutine): the total cap holds exactly.
func TestRelayTotalCapHoldsUnderConcurrentAllocations(t *testing.T) {
	const clients, capacity = 24, 5
	r := startRelay(t, turn.Config{AllowLoopback: true, MaxAllocations: capacity, MaxConnsPerAddr: clients})
	exp := time.Now().Add(time.Hour)
	cs := make([]*pionturn.Client, clients)
	for i := range cs {
		cs[i] = dialTURN(t, r, "tcp", creds(fmt.Sprintf("user%d", i), exp))
	}
	var wg sync.WaitGroup
	var ok atomic.Int32
	for _, c := range cs {
		wg.Go(func() {
			if rc, err := c.Allocate(); err == nil {
				ok.Add(1)
				t.Cleanup(func() { _ = rc.Close() })
			}
		})
	}
	wg.Wait()
	require.Equal(t, int32(capacity), ok.Load())
	require.Equal(t, capacity, r.Stats().Allocations)
	// A client whose refusal came late may retransmit its request (pion
	// retries a transaction it has no answer to), and each copy is refused
	// and counted: at least one refusal per client over the cap.
	require.GreaterOrEqual(t, r.Stats().CapRefused, uint64(clients-capacity))
}

// One address cannot take the relay with credentials from many joins.
func TestRelayCapsAllocationsPerAddress(t *testing.T) {
	r := startRelay(t, turn.Config{AllowLoopback: true, MaxAllocationsPerAddr: 2})
	exp := time.Now().Add(time.Hour)
	first, err := allocate(t, dialTURN(t, r, "udp", creds("join1", exp)))
	require.NoError(t, err)
	_, err = allocate(t, dialTURN(t, r, "tcp", creds("join2", exp)))
	require.NoError(t, err)
	_, err = allocate(t, dialTURN(t, r, "udp", creds("join3", exp)))
	require.Error(t, err, "a third allocation from 127.0.0.1")
	require.Equal(t, uint64(1), r.Stats().AddrRefused)

	require.NoError(t, first.Close())
	eventually(t, func() bool { return r.Stats().Allocations == 1 }, "deallocated")
	_, err = allocate(t, dialTURN(t, r, "udp", creds("join3", exp)))
	require.NoError(t, err, "the slot is free again")
}

// One allocation cannot hold permissions without bound; refreshing one it
// holds is always granted.
func TestRelayCapsPermissionsPerAllocation(t *testing.T) {
	r := startRelay(t, turn.Config{MaxPermissions: 3})
	c := dialTURN(t, r, "udp", creds("perms", time.Now().Add(time.Hour)))
	_, err := allocate(t, c)
	require.NoError(t, err)
	peer := func(i byte) net.Addr { return &net.UDPAddr{IP: net.IPv4(192, 0, 2, i), Port: 9} }
	for i := range byte(3) {
		require.NoError(t, c.CreatePermission(peer(i+1)))
	}
	require.Error(t, c.CreatePermission(peer(4)))
	require.Equal(t, uint64(1), r.Stats().PermsRefused)
	require.NoError(t, c.CreatePermission(peer(1)), "a refresh")
}

// Channel bindings are per peer address (IP and port), so only their own
// cap bounds them: at it, the allocation is granted nothing more.
func TestRelayCapsChannelsPerAllocation(t *testing.T) {
	r := startRelay(t, turn.Config{MaxChannels: 2})
	c := dialTURN(t, r, "udp", creds("chans", time.Now().Add(time.Hour)))
	rc, err := allocate(t, c)
	require.NoError(t, err)
	// pion's client binds a channel to each peer address it sends to.
	for port := range 3 {
		_, err := rc.WriteTo([]byte("x"), &net.UDPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 9 + port})
		require.NoError(t, err)
	}
	eventually(t, func() bool { return r.Stats().PermsRefused >= 1 }, "the third channel refused")
	require.Error(t, c.CreatePermission(&net.UDPAddr{IP: net.IPv4(192, 0, 2, 2), Port: 9}))
}

// The relay takes credentials from another implementation of the TURN
// REST scheme (pion's, written for coturn's use-auth-secret), so the
// signaling server's credentials and an external coturn's agree too.
func TestRelayAcceptsTURNRESTCredentialsFromPion(t *testing.T) {
	r := startRelay(t, turn.Config{})
	user, pass, err := pionturn.GenerateLongTermTURNRESTCredentials(string(secret), "external", time.Hour)
	require.NoError(t, err)
	_, err = allocate(t, dialTURN(t, r, "udp", login{user, pass}))
	require.NoError(t, err)
}
