//go:build !js

package transportfigures

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRowsWithoutFirstState: figures measured without an Authority (the
// first state 0) have no first-state rows and no first-state ratio, and
// with one they have both. (The figures themselves are measured in
// bench's TestTransportFigures, which hands Measure package authority.)
func TestRowsWithoutFirstState(t *testing.T) {
	tr := func(name string, state time.Duration) Transport {
		return Transport{Name: name, Wire: Wire{UpBytes: 60, UpPackets: 1}, Connect: time.Millisecond, FirstState: state, HostCPU: time.Microsecond}
	}
	for _, tc := range []struct {
		state time.Duration
		rows  int
	}{{0, 6}, {50 * time.Millisecond, 8}} {
		f := Figures{Config: Config{}.withDefaults(), Transports: []Transport{tr("quic", tc.state), tr("webrtc", tc.state)}}
		require.Len(t, f.Rows(), tc.rows)
		var b strings.Builder
		f.Print(&b)
		require.NotContains(t, b.String(), "NaN")
		require.Equal(t, tc.state > 0, strings.Contains(b.String(), "first state"), b.String())
	}
}
