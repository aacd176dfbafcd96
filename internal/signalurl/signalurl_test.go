package signalurl_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/signalurl"
)

func TestRoom(t *testing.T) {
	for _, c := range []struct{ signal, room, token, want string }{
		{"ws://h:1", "tr", "", "ws://h:1/room/tr"},
		{"ws://h:1/", "", "", "ws://h:1/room?next=2"},
		{"ws://h:1?token=T", "tr", "", "ws://h:1/room/tr?token=T"},
		{"wss://h/sig", "tr", "T2", "wss://h/sig/room/tr?token=T2"},
		{"ws://h:1/room/x", "ignored", "", "ws://h:1/room/x"},
	} {
		got, err := signalurl.Room(c.signal, c.room, c.token)
		require.NoError(t, err, c.signal)
		require.Equal(t, c.want, got, c.signal)
	}
	_, err := signalurl.Room("http://h:1?token=SECRET", "r", "")
	require.ErrorIs(t, err, rollnet.ErrConfig)
	require.NotContains(t, err.Error(), "SECRET", "the token is never echoed")
	require.Contains(t, err.Error(), "REDACTED")
}

func TestRedactError(t *testing.T) {
	u := "ws://h:1/room/tr?token=SECRET"
	base := errors.New("dial " + u + ": HTTP 403")
	err := signalurl.RedactError(base, u)
	require.NotContains(t, err.Error(), "SECRET")
	require.Contains(t, err.Error(), "token=REDACTED")
	require.ErrorIs(t, err, base)
	plain := errors.New("no token here")
	require.Equal(t, plain, signalurl.RedactError(plain, "ws://h:1/room/x"))
}
