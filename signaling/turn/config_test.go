package turn_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/signaling/turn"
)

// TestConfigCheck: Check fills the defaults even on a zero Config (what
// rollnet-signal's -turn-* flags show) while it reports the missing
// Secret, and a complete Config passes with what it set kept.
func TestConfigCheck(t *testing.T) {
	def, err := turn.Config{}.Check()
	require.ErrorIs(t, err, rollnet.ErrConfig)
	require.Equal(t, "rollnet", def.Realm)
	require.Equal(t, 49152, def.MinPort)
	require.Equal(t, 65535, def.MaxPort)
	require.Equal(t, 1000, def.MaxAllocations)
	require.Equal(t, 10*time.Minute, def.AllocationLifetime)

	c, err := turn.Config{Secret: []byte("s"), PublicIP: net.IPv4(192, 0, 2, 1), MaxChannels: 3}.Check()
	require.NoError(t, err)
	require.Equal(t, 3, c.MaxChannels)
	require.Equal(t, 32, c.MaxPermissions)
}
