//go:build !js

package fleet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
)

// TestPlacerConfigCheck: Check fills the placer's defaults and its
// Config's even without a Secret (what rollnet-signal's -fleet-* flags
// show), and reports the missing Secret.
func TestPlacerConfigCheck(t *testing.T) {
	def, err := PlacerConfig{}.Check()
	require.ErrorIs(t, err, rollnet.ErrConfig)
	require.Equal(t, 20, def.AddrRate)
	require.Equal(t, 40, def.AddrBurst)
	require.Equal(t, 64, def.MaxInFlight)
	require.Equal(t, "rollnet", def.Config.Name)
	require.Equal(t, 2*time.Second, def.Config.Tuning.DeadAfter)
}
