//go:build !js

package quic

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// A Dialer reaches the host as a transport.HostDialer: the transport it
// returns knows the host by the name the host goes by, reaches it, and
// reports it as a connected peer; a wrong pin fails as Dial does.
func TestDialerDialsHost(t *testing.T) {
	h := listen(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var d transport.HostDialer = Dialer{Addr: h.Addr().String(), Config: Config{PinSHA256: h.CertHash()}}
	tr, host, err := d.DialHost(ctx)
	require.NoError(t, err)
	defer tr.Close()
	require.Equal(t, h.Local(), host)
	ps, ok := tr.(transport.PeerSet)
	require.True(t, ok, "a QUIC client is a PeerSet")
	got, err := ps.WaitPeers(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, []transport.Peer{host}, got)
	require.NoError(t, tr.Send(host, []byte("hi")))
	b, from := receiveWithin(t, h, "the host")
	require.Equal(t, "hi", string(b))
	require.Equal(t, tr.Local(), from)

	_, _, err = Dialer{Addr: h.Addr().String(), Config: Config{PinSHA256: [32]byte{1}}}.DialHost(ctx)
	require.ErrorIs(t, err, ErrPinMismatch)
}
