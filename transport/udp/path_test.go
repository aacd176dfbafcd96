//go:build !js

package udp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// Path names the route and the address at the other end, on both sides;
// an unknown peer and a closed transport are refused.
func TestPath(t *testing.T) {
	h := listen(t, Config{})
	c := dial(t, h, "127.0.0.1:0", Config{})
	info, err := c.Path(c.Host())
	require.NoError(t, err)
	require.Equal(t, "direct udp to "+h.LocalAddr().String(), info.Route)
	info, err = h.Path(c.Local())
	require.NoError(t, err)
	require.Equal(t, "direct udp to "+c.LocalAddr().String(), info.Route)
	var _ transport.PathReporter = h

	_, err = h.Path("client-nobody")
	require.ErrorIs(t, err, transport.ErrUnknownPeer)
	require.NoError(t, c.Close())
	_, err = c.Path(c.Host())
	require.ErrorIs(t, err, transport.ErrClosed)
}
