package impair_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/local"
)

// reporter is a local endpoint that reports a path.
type reporter struct{ local.Endpoint }

func (reporter) Path(p transport.Peer) (transport.PathInfo, error) {
	return transport.PathInfo{Route: "direct test to " + string(p)}, nil
}

// Path passes to the wrapped transport when it reports paths (a game's
// QUIC or UDP route under -impair), and says it cannot otherwise.
func TestPathForwarded(t *testing.T) {
	net, err := local.NewNetwork(local.Config{})
	require.NoError(t, err)
	a, err := net.Endpoint("a")
	require.NoError(t, err)
	ia, err := impair.New(reporter{a}, impair.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ia.Close() })
	pr, ok := ia.(transport.PathReporter)
	require.True(t, ok)
	info, err := pr.Path("b")
	require.NoError(t, err)
	require.Equal(t, "direct test to b", info.Route)

	ib, _ := pair(t, impair.Config{})
	_, err = ib.(transport.PathReporter).Path("b")
	require.True(t, errors.Is(err, errors.ErrUnsupported), "%v", err)
}
