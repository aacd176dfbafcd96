//go:build !js

package udp

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// A full send queue keeps the newest datagram of each kind, as
// transport/quic's and transport/webrtc's do (internal/sendqueue): the
// newest supersedes the oldest waiting one of its kind to the same peer,
// a datagram of a kind none waits for pushes out the oldest, those that
// waited too long are dropped at the socket, and each is counted apart.
// The host's loops are not started, so that the queue fills: its writes
// are the test's flushOut calls, read at the peers' sockets.
func TestFullSendQueueSupersedesTheOldestOfItsKind(t *testing.T) {
	sock, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	cfg, err := Config{SendQueueLen: 4}.withDefaults(false)
	require.NoError(t, err)
	h, err := newTransport(cfg, true, sock, "udp://host.test:7777")
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.bc.close() })
	a, b := fakePeer(t, h, "client-1"), fakePeer(t, h, "client-2")

	// The state 'S' 1 waits, then 'I' 1, 'S' 2, 'S' 3: the queue is full.
	for _, d := range []string{"S1", "I1", "S2", "S3"} {
		require.NoError(t, h.Send(a.id, []byte(d)))
	}
	// 'S' 4 supersedes 'S' 1, the oldest of its kind to a.
	require.NoError(t, h.Send(a.id, []byte("S4")))
	require.Equal(t, uint64(1), h.Stats().SendsSuperseded)
	// b's 'X' has none of its kind waiting: it pushes out the oldest, I1.
	require.NoError(t, h.Send(b.id, []byte("X1")))
	require.Equal(t, uint64(1), h.Stats().SendsStale)
	ok, err := h.SendBulk(b.id, []byte("B1"))
	require.NoError(t, err)
	require.False(t, ok, "a bulk datagram past half the queue")
	require.Equal(t, uint64(1), h.Stats().SendsSkipped)

	h.flushOut()
	require.Equal(t, []string{"S2", "S3", "S4"}, a.read(t, 3))
	require.Equal(t, []string{"X1"}, b.read(t, 1))
	st := h.Stats()
	require.Equal(t, [4]uint64{4, 1, 1, 1}, [4]uint64{st.PacketsSent, st.SendsSuperseded, st.SendsStale, st.SendsSkipped})

	// Datagrams that waited past sendqueue.MaxAge are dropped at the
	// socket, a bulk one is not.
	require.NoError(t, h.Send(a.id, []byte("S5")))
	ok, err = h.SendBulk(a.id, []byte("B2"))
	require.NoError(t, err)
	require.True(t, ok)
	h.epoch = h.epoch.Add(-time.Second) // everything queued is a second old
	require.NoError(t, h.Send(a.id, []byte("S6")))
	h.flushOut()
	require.Equal(t, []string{"B2", "S6"}, a.read(t, 2))
	require.Equal(t, uint64(2), h.Stats().SendsStale)
}

// testPeer is a connected peer of a host whose loops do not run, with a
// socket of its own to read what the host sends it.
type testPeer struct {
	id   transport.Peer
	sock *net.UDPConn
	c    *conn
}

func fakePeer(t *testing.T, h *udpTransport, id transport.Peer) *testPeer {
	t.Helper()
	sock, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sock.Close() })
	key := make([]byte, 32)
	copy(key, id)
	ap := sock.LocalAddr().(*net.UDPAddr).AddrPort()
	c := &conn{id: id, addr: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), send: newAEAD(key), recv: newAEAD(key)}
	c.state.Store(uint32(stateConnected))
	h.mu.Lock()
	h.peers[id], h.byAddr[c.addr] = c, c
	h.mu.Unlock()
	return &testPeer{id: id, sock: sock, c: c}
}

// read opens the next n packets to p and returns their payloads.
func (p *testPeer) read(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	buf := make([]byte, readBufSize)
	require.NoError(t, p.sock.SetReadDeadline(time.Now().Add(5*time.Second)))
	for range n {
		k, err := p.sock.Read(buf)
		require.NoError(t, err)
		_, seq, err := parseSealed(buf[:k])
		require.NoError(t, err)
		pl, err := openPacket(buf[:k], p.c.recv, &p.c.recvNonce, seq)
		require.NoError(t, err)
		got = append(got, string(pl))
	}
	return got
}

// While the game calls Receive, Receive reads the socket and the read
// loop leaves it (yielding, no goroutine woken a datagram); once the game
// stops, the read loop reads again: a new client's handshake, which no
// Receive reads, gets through.
func TestReadLoopYieldsToReceiveAndResumes(t *testing.T) {
	if !pollable {
		t.Skip("Receive does not read the socket here")
	}
	h := listen(t, Config{})
	c := dial(t, h, "", Config{})
	eventually(t, func() bool {
		require.NoError(t, c.Send(h.Local(), []byte("in")))
		require.Equal(t, []byte("in"), receiveFrom(t, h, c.Local()))
		return h.yielding.Load()
	}, "the read loop never left the socket to Receive")
	dial(t, h, "", Config{}) // no Receive on h from here
	require.False(t, h.yielding.Load())
}
