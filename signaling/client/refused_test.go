//go:build !js

package client_test

import (
	"context"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
)

// A server that is not running: the error names its host once and asks
// whether rollnet-signal runs there, and still unwraps to the refusal.
func TestDialRefusedSaysWhatToCheck(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = client.Dial(ctx, "ws://"+addr+"/room/r", client.Config{})
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	msg := err.Error()
	require.Contains(t, msg, "is rollnet-signal running there?")
	require.Equal(t, 1, strings.Count(msg, addr), "the address once: %s", msg)
}
