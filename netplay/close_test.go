package netplay_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/netplay"
)

// A Match whose dial failed (here: nothing listens at the signaling
// address) returns the error from AdvanceFrame, and Close then returns at
// once instead of waiting for a dial that already ended.
func TestCloseAfterFailedDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // a port nothing listens on

	m, err := netplay.Join[World, Buttons](netplay.Config{Signal: "ws://" + addr, Room: "r", Players: 2, Timeout: 10 * time.Second}, simulate)
	require.NoError(t, err)
	deadline := time.Now().Add(10 * time.Second)
	for err == nil {
		require.True(t, time.Now().Before(deadline), "AdvanceFrame reported no dial error within 10 s")
		_, err = m.AdvanceFrame(0)
		time.Sleep(time.Millisecond) // a game's tick; the dial runs in the background
	}
	closed := make(chan error, 1)
	go func() { closed <- m.Close() }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return within 5 s of a failed dial")
	}
}
