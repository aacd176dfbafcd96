package netplay_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/local"
)

// A host with WaitForPlayers holds frame 0 (Connecting, Have of Need)
// until its players are there; a client admitted meanwhile waits past its
// Timeout, told why; both clients' worlds start at the host's frame 0.
func TestHostLobby(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 20 * time.Millisecond})
	h := l.add("h", host, netplay.Config{Players: 2, Name: "court", WaitForPlayers: 2}, "c1", "c2")
	c1 := l.add("c1", connectTo, netplay.Config{Players: 2, Name: "alice", Timeout: 2 * time.Second}, "h")
	l.until(300, "alice admitted", func() bool { return c1.st.Waiting != "" })
	for range 180 { // 3 s: past alice's Timeout
		l.tick()
	}
	require.NoError(t, c1.err)
	require.NoError(t, h.err)
	require.Equal(t, netplay.Connecting, h.st.Phase)
	require.Equal(t, 1, h.st.Have)
	require.Equal(t, 2, h.st.Need)
	require.Equal(t, rollnet.Frame(0), h.m.Frame())
	require.Equal(t, netplay.Synchronizing, c1.st.Phase)
	require.Contains(t, c1.st.String(), "waiting for the host to start the match")

	c2 := l.add("c2", connectTo, netplay.Config{Players: 2, Name: "bob"}, "h")
	l.until(120, "both clients running", func() bool {
		return c1.st.Phase == netplay.Running && c2.st.Phase == netplay.Running
	})
	require.Equal(t, netplay.Running, h.st.Phase)
	require.Less(t, int(h.m.Frame()), 40, "the match started when bob came")
	require.Less(t, int(c1.m.Frame()), 50)
	require.Empty(t, c1.st.Waiting)
	require.True(t, strings.Contains(strings.Join(h.m.News(), "\n"), "the match started with 2 of 2 players"), h.m.News())
}

func TestHostLobbyConfig(t *testing.T) {
	l := newLAN(t, local.Link{})
	ep, err := l.net.Endpoint("h")
	require.NoError(t, err)
	_, err = netplay.Host[World, Buttons](netplay.Config{Players: 2, WaitForPlayers: 3, Transport: ep}, simulate)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// TestKeepWaiting: a player alone in its room times out after
// Config.Timeout, returned once; a later AdvanceFrame waits another
// Timeout, in which the other player comes and the match starts.
func TestKeepWaiting(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 10 * time.Millisecond})
	cfg := netplay.Config{Players: 2, Name: "alice", Timeout: 2 * time.Second}
	a := l.add("a", join, cfg, "b")
	l.until(3*60, "alice's lobby timed out", func() bool { return a.err != nil })
	require.ErrorIs(t, a.err, netplay.ErrTimeout)
	require.Equal(t, netplay.Connecting, a.st.Phase)
	a.err = nil // keep waiting
	for range 60 {
		l.tick()
	}
	require.NoError(t, a.err, "a second later: still waiting")
	cfg.Name = "bob"
	b := l.add("b", join, cfg, "a")
	l.until(60, "both running", func() bool { return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running })
	require.NoError(t, errors.Join(a.err, b.err))
}
