package impair_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/local"
)

func TestParseLink(t *testing.T) {
	for _, c := range []struct {
		in   string
		want local.Link
	}{
		{"100ms", local.Link{Latency: 100 * time.Millisecond}},
		{"100ms,15ms", local.Link{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond}},
		{"100ms, 15ms, 2%", local.Link{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.02}},
		{"0s,0s,100%", local.Link{Loss: 1}},
	} {
		got, err := impair.ParseLink(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
		back, err := impair.ParseLink(impair.FormatLink(got))
		require.NoError(t, err)
		require.Equal(t, got, back)
	}
	for _, in := range []string{"", "fast", "100ms,15ms,2", "100ms,15ms,101%", "-1ms", "1ms,2ms,3%,4", "100ms,x"} {
		_, err := impair.ParseLink(in)
		require.ErrorIs(t, err, impair.ErrSpec, in)
	}
	_, err := impair.ParseLink("10ms,20ms")
	require.ErrorIs(t, err, rollnet.ErrConfig, "jitter above latency")
}
