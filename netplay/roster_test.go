package netplay

import (
	"github.com/rollnet/rollnet/internal/greeting"

	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func FuzzParseRoster(f *testing.F) {
	f.Add([]byte{greeting.AppByte, greeting.KindRoster, 2, 1, 0, 3, 'b', 'o', 'b', 2, 15, 1, 'a'})
	f.Add([]byte{greeting.AppByte, greeting.KindRoster, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m := &Match[int32, int8]{names: make([]string, 4), cfg: Config{Now: time.Now}, seat: 1}
		if m.parseRoster(b) != nil {
			return
		}
		for _, n := range m.names {
			require.True(t, greeting.ValidName([]byte(n)))
		}
	})
}
