package dedicated

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/transport"
)

// A match's view of the shared transport queues what the host routes to
// it in order, drops past its slots, and allocates nothing per datagram.
func TestMatchTransport(t *testing.T) {
	m := newMatchTransport(nil, 4)
	buf := make([]byte, transport.MaxDatagram)
	for i := range 5 {
		ok := m.push(transport.Peer("p"), []byte{byte(i)})
		require.Equal(t, i < 4, ok, "push %d", i)
	}
	for i := range 4 {
		n, from, err := m.Receive(buf)
		require.NoError(t, err)
		require.Equal(t, transport.Peer("p"), from)
		require.Equal(t, []byte{byte(i)}, buf[:n])
	}
	_, _, err := m.Receive(buf)
	require.True(t, errors.Is(err, transport.ErrNoPacket))
	require.False(t, m.push("p", make([]byte, transport.MaxDatagram+1)), "oversized")
	require.True(t, m.push("p", []byte{1, 2}))
	_, _, err = m.Receive(buf[:1])
	require.ErrorIs(t, err, transport.ErrShortBuffer, "and the datagram is gone")
	_, _, err = m.Receive(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket)

	d := make([]byte, 64)
	allocs.RequireZero(t, 1000, func() {
		m.push("p", d)
		_, _, _ = m.Receive(buf)
	})
}
