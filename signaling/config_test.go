package signaling

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
)

// TestServerConfigCheck: Check resolves every zero field to its default,
// the cluster's too (what rollnet-signal's flags show), keeps what is set,
// and refuses a negative value.
func TestServerConfigCheck(t *testing.T) {
	def, err := ServerConfig{}.Check()
	require.NoError(t, err)
	require.Equal(t, 8, def.MaxRoomSize)
	require.Equal(t, 16<<10, def.Tuning.MaxMessageSize)
	require.Equal(t, 15*time.Second, def.Tuning.PingInterval)
	require.Equal(t, time.Hour, def.Tuning.TURNCredentialTTL)
	require.Equal(t, "rollnet", def.Cluster.Name)
	require.Equal(t, 3*time.Second, def.Cluster.DeadAfter)

	set, err := ServerConfig{MaxRoomSize: 3, Cluster: ClusterConfig{DeadAfter: 5 * time.Second}}.Check()
	require.NoError(t, err)
	require.Equal(t, 3, set.MaxRoomSize)
	require.Equal(t, 5*time.Second, set.Cluster.DeadAfter)

	_, err = ServerConfig{Tuning: ServerTuning{MessageRate: -1}}.Check()
	require.ErrorIs(t, err, client.ErrConfig)
}
