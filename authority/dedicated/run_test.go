package dedicated

import (
	"bytes"
	"context"
	"github.com/rollnet/rollnet/internal/testkit"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// line is the test game: two counters, each moved by its player's input.
type line struct {
	Pos   [2]int32
	Frame int32
	_     [4]byte
}

func step(l *line, in []int8, f rollnet.Frame) {
	for p, v := range in {
		l.Pos[p] += int32(v)
	}
	l.Frame = int32(f)
}

// lineGame is the test game as a host runs it; testGames are the games
// the tests' hosts are handed.
var (
	lineGame  = Sim[line, int8]{Name: "line", Players: 2, Simulate: step, Settings: func(room string) uint64 { return uint64(len(room)) }}
	testGames = []Game{lineGame, line3Game}
)

// syncBuffer is where a test collects logs its goroutines write.
type syncBuffer = testkit.SyncBuffer

// TestHostTellsClientsOnShutdown: a dedicated host of a registered game,
// joined by a client over real WebRTC on loopback through the signaling
// server it started; the client synchronizes and plays; the host's context
// ending (SIGINT, SIGTERM in Main) makes it tell the client, which drops
// it on that notice while the host's transport is still open (checked to
// fail without Host.Close: the client then waits out its silence timeout).
func TestHostTellsClientsOnShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("real WebRTC")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hostCtx, stopHost := context.WithCancel(ctx)
	defer stopHost()
	logs := &syncBuffer{}
	joinURL := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(hostCtx, "rollnet-host", testGames, []string{"-game", "line", "-room", "r1", "-stats-every", "0"}, logs, func(u string) { joinURL <- u })
	}()
	var u string
	select {
	case u = <-joinURL:
	case err := <-done:
		t.Fatalf("host ended: %v\n%s", err, logs)
	case <-ctx.Done():
		t.Fatalf("waited for the host's join URL: %v\n%s", ctx.Err(), logs)
	}

	sc, err := client.Dial(ctx, u, client.Config{})
	require.NoError(t, err)
	defer sc.Close()
	tr, err := webrtc.New(webrtc.Config{LoopbackOnly: true}, sc)
	require.NoError(t, err)
	defer tr.Close()
	peers, err := tr.WaitPeers(ctx, 1)
	require.NoError(t, err)
	// The silence timeout outlasts the test's context (30 s): a disconnect
	// seen at all is the host's notice, on a machine however loaded, and
	// without the notice the test fails waiting for it.
	const timeout = time.Minute
	cl, err := authority.NewClient[line](authority.ClientConfig{Host: peers[0], Players: 2,
		Net: rollnet.NetConfig{DisconnectTimeout: timeout, Settings: uint64(len("r1"))}}, tr, step)
	require.NoError(t, err)
	defer cl.Close()

	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	var evs []rollnet.Event
	var stoppedAt time.Time
	for ticks := 0; ; ticks++ {
		select {
		case <-ctx.Done():
			t.Fatalf("no disconnect from the host:\n%s", logs)
		case <-tick.C:
		}
		if cl.Synchronized() {
			require.NoError(t, cl.AddLocalInput(0, 1))
		}
		_, err := cl.Update(time.Second / 60)
		require.NoError(t, err)
		// Stop once the client has applied enough states, not at a host frame:
		// on a loaded machine this loop ticks slower than the host, and a
		// host frame reached says little of how many states arrived.
		if _, f := cl.HostState(); f >= 60 && cl.Stats().StatesApplied > 30 && stoppedAt.IsZero() {
			stoppedAt = time.Now()
			stopHost() // as SIGTERM does
		}
		evs = cl.Events(evs[:0])
		if i := indexOf(evs, rollnet.EventDisconnected); i >= 0 {
			require.False(t, stoppedAt.IsZero(), "disconnected before the host stopped")
			// Before the host closed its transport (it logs "stopped"
			// first): the notice did it, not a broken connection, and
			// not the silence timeout.
			require.NotContains(t, logs.String(), "msg=stopped", "the client learnt of the host leaving only when its transport closed")
			t.Logf("dropped %v after the host was stopped", time.Since(stoppedAt).Round(time.Millisecond))
			break
		}
	}
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-ctx.Done():
		t.Fatalf("waited for the host to return after it stopped: %v\n%s", ctx.Err(), logs)
	}
	out := logs.String()
	require.Contains(t, out, "msg=hosting game=line room=r1")
	require.Contains(t, out, `msg="client joined"`)
	require.Contains(t, out, `msg="shutting down: telling the clients"`)
	require.Contains(t, out, "msg=stopped")
	st := cl.Stats()
	require.Zero(t, st.Malformed)
	require.Greater(t, st.StatesApplied, uint64(30))
}

func indexOf(evs []rollnet.Event, k rollnet.EventKind) int {
	for i, e := range evs {
		if e.Kind == k {
			return i
		}
	}
	return -1
}

// TestBadFlags: each bad command line is a usage error (status 2), with
// one line saying what is wrong.
func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fps", "0"}, "-fps 0"},
		{[]string{"-game", "chess"}, `unknown game "chess"`},
		{[]string{"-signal", "http://x"}, "-signal wants ws://"},
		{[]string{"-timeout", "0s"}, "-timeout > 0"},
		{[]string{"-max-joins-per-tick", "0"}, "-max-joins-per-tick"},
		{[]string{"-join-timeout", "0"}, "-join-timeout"},
		{[]string{"-max-clients-per-address", "0"}, "-max-clients-per-address"},
		{[]string{"-client-budget", "0"}, "-client-budget"},
		{[]string{"-wait-for", "-1"}, "-wait-for"},
		{[]string{"-lobby-timeout", "-1s"}, "-lobby-timeout"},
		{[]string{"-room", ""}, "-room is empty"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-nope"}, "flag provided but not defined"},
	} {
		var out, errs bytes.Buffer
		status := Main("rollnet-host", testGames, tc.args, &out, &errs)
		require.Equal(t, exitUsage, status, "%v: %s", tc.args, errs.String())
		require.Contains(t, errs.String(), tc.want, "%v", tc.args)
	}
	var errs bytes.Buffer
	require.Equal(t, exitOK, Main("rollnet-host", testGames, []string{"-h"}, &errs, &errs))
	require.True(t, strings.Contains(errs.String(), "Games: "), errs.String())
}

// TestGamesChecked: a list with a game named twice, a game with no name,
// or one with no simulation is refused before anything starts; -game
// picks a game by name, or the only one without it.
func TestGamesChecked(t *testing.T) {
	for _, list := range [][]Game{
		{lineGame, Sim[line, int8]{Name: "line", Players: 2, Simulate: step}},
		{Sim[line, int8]{Players: 2, Simulate: step}},
		{Sim[line, int8]{Name: "x", Players: 2}},
		{nil},
	} {
		err := Run(context.Background(), "rollnet-host", list, nil, io.Discard, nil)
		require.ErrorIs(t, err, rollnet.ErrConfig)
	}
	gs, err := checkGames(testGames)
	require.NoError(t, err)
	_, name, err := gs.lookup("line3")
	require.NoError(t, err)
	require.Equal(t, "line3", name)
	_, _, err = gs.lookup("")
	require.ErrorIs(t, err, ErrUsage)
	_, name, err = games{lineGame}.lookup("")
	require.NoError(t, err)
	require.Equal(t, "line", name)
	require.Equal(t, []string{"line", "line3"}, gs.names())
}

var _ transport.Transport = (webrtc.Transport)(nil)

// TestHostAnnouncesThroughNetplay: a dedicated host is found by
// netplay.Connect (its Announcer answers the client's hello), and a
// client of another game, whose settings differ, is told so at once
// (netplay.ErrSettings), not after a timeout.
func TestHostAnnouncesThroughNetplay(t *testing.T) {
	if testing.Short() {
		t.Skip("real WebRTC")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hostCtx, stopHost := context.WithCancel(ctx)
	logs := &syncBuffer{}
	joinURL := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(hostCtx, "rollnet-host", testGames, []string{"-game", "line", "-room", "r1", "-stats-every", "0"}, logs, func(u string) { joinURL <- u })
	}()
	defer func() { stopHost(); require.NoError(t, <-done) }()
	var u string
	select {
	case u = <-joinURL:
	case err := <-done:
		t.Fatalf("the host ended before joining its room: %v\n%s", err, logs)
	case <-ctx.Done():
		t.Fatalf("the host never joined its room\n%s", logs)
	}
	signal := strings.TrimSuffix(u, "/room/r1")
	play := func(settings uint64) (netplay.Status, error) {
		m, err := netplay.Connect[line, int8](netplay.Config{Signal: signal, Room: "r1", Players: 2, Settings: settings, Name: "cli", Timeout: 20 * time.Second}, step)
		require.NoError(t, err)
		defer m.Close()
		tick := time.NewTicker(time.Second / 60)
		defer tick.Stop()
		for {
			st, err := m.AdvanceFrame(1)
			if err != nil || st.Phase == netplay.Running && st.Frame > 10 {
				return st, err
			}
			select {
			case <-ctx.Done():
				return st, ctx.Err()
			case <-tick.C:
			}
		}
	}
	st, err := play(uint64(len("r1")))
	require.NoError(t, err, "the line client plays")
	require.Equal(t, netplay.Running, st.Phase)
	// The refusal itself, not a timeout (which would end play with the
	// context's error or netplay's own timeout, not ErrSettings).
	_, err = play(99)
	require.ErrorIs(t, err, netplay.ErrSettings)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
}
