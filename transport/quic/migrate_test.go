//go:build !js

package quic

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// A client that moves to a new UDP socket mid-stream keeps its connection,
// and so its peer on both sides: the host keeps receiving from the same
// peer id, from the new address, and its datagrams reach the client there.
func TestMigrationKeepsThePeer(t *testing.T) {
	h := listen(t, Config{})
	c := dialHost(t, h, Config{})
	before := c.LocalAddr().String()

	exchange := func(seq uint32) {
		t.Helper()
		// Full-size: a path that starts below 1280-byte packets after the
		// switch (quic-go's default) could not carry them.
		out := make([]byte, transport.MaxDatagram)
		binary.LittleEndian.PutUint32(out, seq)
		deadline := time.Now().Add(wait)
		for time.Now().Before(deadline) {
			require.NoError(t, c.Send(c.Host(), out))
			if got, from, ok := tryReceive(h); ok {
				require.Equal(t, c.Local(), from, "the host's peer for the client")
				if binary.LittleEndian.Uint32(got) == seq {
					require.NoError(t, h.Send(c.Local(), out))
					got, from := receiveWithin(t, c, "the host's echo")
					require.Equal(t, c.Host(), from)
					require.Equal(t, seq, binary.LittleEndian.Uint32(got))
					return
				}
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatalf("datagram %d never reached the host within %v", seq, wait)
	}
	for i := range 20 {
		exchange(uint32(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	seenBefore := hostView(t, h, c)
	require.NoError(t, c.Migrate(ctx))
	require.NotEqual(t, before, c.LocalAddr().String(), "the client sends from a new socket")
	for i := range 20 {
		exchange(uint32(100 + i))
	}
	require.NotEqual(t, seenBefore, hostView(t, h, c), "the host hears the client from its new address")
	require.Zero(t, c.Stats().SendErrors, "datagrams refused by the connection after the switch")
	require.Equal(t, []transport.PeerEventKind{transport.PeerConnected}, kinds(h.Events(nil)), "the host saw one peer, never gone")
	require.Len(t, h.Peers(nil), 1)
	// And again: every path stays usable up to the bound.
	require.NoError(t, c.Migrate(ctx))
	exchange(1000)
}

func tryReceive(r *qtransport) ([]byte, transport.Peer, bool) {
	buf := make([]byte, 1200)
	n, from, err := r.Receive(buf)
	if err != nil {
		return nil, "", false
	}
	return buf[:n], from, true
}

func kinds(es []transport.PeerEvent) []transport.PeerEventKind {
	var k []transport.PeerEventKind
	for _, e := range es {
		k = append(k, e.Kind)
	}
	return k
}

// hostView is the client's address as the host's connection sees it.
func hostView(t *testing.T, h, c *qtransport) string {
	t.Helper()
	h.mu.RLock()
	defer h.mu.RUnlock()
	p := h.peers[c.Local()]
	require.NotNil(t, p)
	return p.conn.RemoteAddr().String()
}
