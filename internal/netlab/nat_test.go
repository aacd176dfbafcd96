//go:build linux

package netlab_test

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/netlab"
)

// Bounds of the probes' reads: a datagram that passes arrives in well
// under a millisecond here; one that a NAT drops never does.
const (
	passes  = 5 * time.Second
	dropped = 300 * time.Millisecond
)

func udp(t *testing.T, h *netlab.Host, port int) *net.UDPConn {
	t.Helper()
	c, err := h.ListenUDP(port)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func to(h *netlab.Host, port int) *net.UDPAddr {
	return net.UDPAddrFromAddrPort(netip.AddrPortFrom(h.Addr(), uint16(port)))
}

// send sends a datagram from c to a.
func send(t *testing.T, c *net.UDPConn, a *net.UDPAddr) {
	t.Helper()
	_, err := c.WriteToUDP([]byte("probe"), a)
	require.NoError(t, err)
}

// recv is the source of the datagram c receives within d, or false.
func recv(t *testing.T, c *net.UDPConn, d time.Duration) (netip.AddrPort, bool) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(d)))
	buf := make([]byte, 64)
	_, from, err := c.ReadFromUDPAddrPort(buf)
	if err != nil {
		require.True(t, err.(net.Error).Timeout(), "read: %v", err)
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), true
}

// TestNATKinds checks each kind against the package doc's table with
// plain UDP probes: the mapping a host behind it gets toward two public
// hosts (the same port for both, and its own port kept, or not), and
// whether a datagram from another port of a host it sent to gets in.
func TestNATKinds(t *testing.T) {
	for _, c := range []struct {
		nat             netlab.NAT
		sameMapping     bool // one mapping for every destination
		portKept        bool
		otherPortGetsIn bool // endpoint-independent filtering
		udpOut          bool // UDP leaves at all
	}{
		{netlab.None, true, true, true, true},
		{netlab.FullCone, true, true, true, true},
		{netlab.Masquerade, true, true, false, true},
		{netlab.Home, true, true, false, true},
		{netlab.Symmetric, false, false, false, true},
		{netlab.NoUDP, false, false, false, false},
	} {
		t.Run(c.nat.String(), func(t *testing.T) {
			t.Parallel()
			l := lab(t)
			a, b := l.Public("a"), l.Public("b")
			h := l.Player("h", c.nat)
			a1, a2, b1 := udp(t, a, 3000), udp(t, a, 3001), udp(t, b, 3000)
			probe := udp(t, h, 0)
			local := probe.LocalAddr().(*net.UDPAddr).Port

			send(t, probe, to(a, 3000))
			if !c.udpOut {
				from, ok := recv(t, a1, dropped)
				require.False(t, ok, "UDP left %s: seen from %v", c.nat, from)
				return
			}
			toA, ok := recv(t, a1, passes)
			require.True(t, ok, "the probe reached a")
			require.Equal(t, h.PublicAddr(), toA.Addr(), "a sees the router's address")
			send(t, probe, to(b, 3000))
			toB, ok := recv(t, b1, passes)
			require.True(t, ok, "the probe reached b")
			if c.sameMapping {
				require.Equal(t, toA, toB, "one mapping for a and b")
			} else {
				require.NotEqual(t, toA.Port(), toB.Port(), "a mapping per destination")
			}
			if c.portKept {
				require.Equal(t, local, int(toA.Port()), "the host's port kept")
			}

			// A reply gets in; from another port of a, only through
			// endpoint-independent filtering.
			send(t, a1, net.UDPAddrFromAddrPort(toA))
			_, ok = recv(t, probe, passes)
			require.True(t, ok, "a reply gets in")
			send(t, a2, net.UDPAddrFromAddrPort(toA))
			_, ok = recv(t, probe, dropped)
			require.Equal(t, c.otherPortGetsIn, ok, "a datagram from a port the host never sent to")
		})
	}
}

// TestFirstInboundPacket is what decides whether two players behind
// Linux NATs can punch a hole: a host learns its mapping from a STUN-like
// server, a peer sends to that mapping before the host sends to the peer
// (ICE's first check, from whichever side starts first), then the host
// sends to the peer. Behind a bare Masquerade router the peer's early
// datagram is kept by conntrack as the router's own, and the host's first
// datagram to the peer leaves from another port: the peer's checks to the
// mapping it was told of never get in. Behind Home the early datagram is
// dropped before conntrack keeps it, and the host's leaves from its
// mapping.
func TestFirstInboundPacket(t *testing.T) {
	for _, c := range []struct {
		nat      netlab.NAT
		keptPort bool
	}{{netlab.Masquerade, false}, {netlab.Home, true}} {
		t.Run(c.nat.String(), func(t *testing.T) {
			t.Parallel()
			l := lab(t)
			stun, peer := l.Public("stun"), l.Public("peer")
			h := l.Player("h", c.nat)
			s, p, probe := udp(t, stun, 3478), udp(t, peer, 4000), udp(t, h, 0)

			send(t, probe, to(stun, 3478))
			mapping, ok := recv(t, s, passes)
			require.True(t, ok)
			send(t, p, net.UDPAddrFromAddrPort(mapping)) // the peer's early check
			_, ok = recv(t, probe, dropped)
			require.False(t, ok, "address-dependent filtering: the host never sent to the peer")
			send(t, probe, to(peer, 4000))
			seen, ok := recv(t, p, passes)
			require.True(t, ok)
			t.Logf("%s: mapping %v, the peer sees the host's first datagram from %v", c.nat, mapping, seen)
			require.Equal(t, c.keptPort, seen == mapping, "the host's first datagram to the peer from its mapping (%v): %v", mapping, seen)
		})
	}
}
