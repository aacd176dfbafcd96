package netplay_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// told is the news lines of p holding s.
func told(p *player, s string) []string {
	var out []string
	for _, n := range p.m.News() {
		if strings.Contains(n, s) {
			out = append(out, n)
		}
	}
	return out
}

// TestSpectatorSurvivesAPlayerDropping: bob vanishes (his process dies:
// no goodbye) in a P2P match a spectator watches through alice; the
// spectator neither ends nor stops advancing while alice plays on, and
// both tell what happened (News), with the figures of the match (Stats).
func TestSpectatorSurvivesAPlayerDropping(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 10 * time.Millisecond})
	cfg := netplay.Config{Players: 2, Room: "r", Tuning: netplay.Tuning{Net: rollnet.NetConfig{ChecksumInterval: 6}}}
	cfg.Name = "alice"
	a := l.add("a", join, cfg, "b", "s")
	cfg.Name = "bob"
	b := l.add("b", join, cfg, "a", "s")
	l.until(300, "both running", func() bool { return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running })
	cfg.Name = "eve"
	s := l.add("s", watch, cfg, "a", "b")
	l.until(300, "the spectator running", func() bool { return s.st.Phase == netplay.Running })
	for range 120 {
		l.tick()
	}
	b.off = true // bob's process dies
	l.until(600, "alice says bob is away", func() bool { return a.st.Away == "bob" })
	from := s.m.Frame()
	for range 10 * 60 { // ten seconds: the spectator watches alice play on alone
		l.tick()
		require.NoError(t, s.err)
		require.NotEqual(t, netplay.Ended, s.st.Phase, "the spectator's host, alice, is there")
	}
	require.NoError(t, a.err)
	require.Greater(t, s.m.Frame(), from+9*60, "the spectator kept advancing")
	require.Equal(t, "bob", s.st.Away)

	require.Len(t, told(a, "spectator eve joined at frame "), 1, "%q", a.m.News())
	dropped := told(a, "bob dropped at frame ")
	require.Len(t, dropped, 1, "%q", a.m.News())
	require.Regexp(t, `^bob dropped at frame \d+ \(nothing heard for 5s\): may rejoin for 60 s$`, dropped[0])
	require.Len(t, told(s, "bob dropped at frame "), 1, "%q", s.m.News())

	st := a.m.Stats()
	require.Equal(t, 1, st.Spectators)
	require.Positive(t, st.Compared, "alice compared checksums with bob")
	require.Equal(t, st.Compared, st.Agreed)
	require.Equal(t, rollnet.NoFrame, st.FirstDesync)
	require.Positive(t, st.BytesSent)
	require.Positive(t, st.RTT)
	sst := s.m.Stats()
	require.Positive(t, sst.Compared, "the spectator compared checksums with alice")
	require.Equal(t, sst.Compared, sst.Agreed)
	allocs.RequireZero(t, 100, func() { _ = a.m.Stats(); _ = a.m.News() }, "Stats and News")
}

// TestNewsOfARejoin: a player who comes back from its token is told on
// both sides: "bob rejoined at frame R" for alice, "rejoined at frame R:
// replayed N frames in T" for bob's new match.
func TestNewsOfARejoin(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 10 * time.Millisecond})
	store := &memStore{tok: map[string]netplay.Token{}}
	cfg := netplay.Config{Players: 2, Room: "r", Name: "alice"}
	a := l.add("a", join, cfg, "b", "b2")
	cfg.Name, cfg.Tokens = "bob", store
	b := l.add("b", join, cfg, "a")
	l.until(300, "both running", func() bool { return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running })
	l.until(120, "bob's token saved", func() bool { _, ok := store.tok["r"]; return ok })
	b.off = true
	l.until(600, "alice says bob is away", func() bool { return a.st.Away == "bob" })
	b2 := l.add("b2", join, cfg, "a") // bob started again, on a new address
	l.until(900, "bob is back", func() bool { return len(told(b2, "rejoined at frame ")) > 0 })
	l.until(300, "alice is told", func() bool { return len(told(a, "bob rejoined at frame ")) > 0 })
	require.Regexp(t, `^rejoined at frame \d+: replayed \d+ frames in `, told(b2, "rejoined")[0])
	var back rollnet.Frame
	_, err := fmt.Sscanf(told(b2, "rejoined")[0], "rejoined at frame %d:", &back)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("bob rejoined at frame %d", back), told(a, "bob rejoined")[0])
	require.Equal(t, 1, a.m.Stats().Rejoins)
}

// TestNewsOfAClient: a host tells who joined which slot, and a client
// whom it joined.
func TestNewsOfAClient(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 10 * time.Millisecond})
	h := l.add("h", host, netplay.Config{Players: 2, LocalPlayers: 1, Name: "hana"}, "c")
	c := l.add("c", connectTo, netplay.Config{Players: 2, Name: "carl"}, "h")
	l.until(600, "the client running", func() bool { return c.st.Phase == netplay.Running })
	l.until(60, "the host tells", func() bool { return len(told(h, "carl joined at frame ")) > 0 })
	require.Regexp(t, `^carl joined at frame \d+ \(slot 2\)$`, told(h, "carl")[0])
	require.Regexp(t, `^joined the host hana at frame -?\d+ \(slot 2\)$`, told(c, "joined the host")[0])
	l.until(600, "the client checked a host state", func() bool { return c.m.Stats().Compared > 0 })
	require.Equal(t, c.m.Stats().Compared, c.m.Stats().Agreed)
	for range 60 {
		l.tick()
	}
	require.Positive(t, h.m.Stats().BytesReceived, "%+v", h.m.Stats())
}

// A game prints what happened in its match from News: here alice's view
// of a match whose other player, bob, quits after two seconds.
func ExampleMatch_News() {
	clock := local.NewClock(epoch)
	nw, _ := local.NewNetwork(local.Config{Now: clock.Now, Link: local.Link{Latency: 10 * time.Millisecond}})
	start := func(me, other string) *netplay.Match[World, Buttons] {
		ep, _ := nw.Endpoint(me)
		m, _ := netplay.Join[World, Buttons](netplay.Config{
			Name: me, Players: 2, Transport: ep, Peers: []transport.Peer{transport.Peer(other)}, Now: clock.Now,
			Tuning: netplay.Tuning{Net: rollnet.NetConfig{RejoinWindow: -1}}, // a player who leaves does not come back
		}, simulate)
		return m
	}
	alice, bob := start("alice", "bob"), start("bob", "alice")
	defer alice.Close()
	told := 0
	for tick := 0; tick < 300; tick++ {
		if tick == 120 {
			_ = bob.Close() // bob quits: he says goodbye
		}
		if tick < 120 {
			_, _ = bob.AdvanceFrame(0)
		}
		st, _ := alice.AdvanceFrame(0)
		for _, line := range alice.News()[told:] {
			fmt.Println(line[:strings.Index(line, " at frame")], "at frame ...") // frame numbers vary with the handshake
		}
		told = len(alice.News())
		if st.Phase == netplay.Ended {
			fmt.Println("ended:", st.Ended)
			break
		}
		clock.Advance(time.Second / 60)
	}
	s := alice.Stats()
	fmt.Println("checksums compared with bob, all agreed:", s.Compared > 0 && s.Compared == s.Agreed)
	// Output:
	// bob quit at frame ...
	// ended: every other player left
	// checksums compared with bob, all agreed: true
}

// TestNewsOfAClientRejoin: a host whose client vanished and came back from
// its token says so, and its status no longer says the client is
// interrupted (its old connection's silence ended with the rejoin).
func TestNewsOfAClientRejoin(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 10 * time.Millisecond})
	store := &memStore{tok: map[string]netplay.Token{}}
	h := l.add("h", host, netplay.Config{Players: 2, LocalPlayers: 1, Room: "r", Name: "hana"}, "c", "c2")
	cfg := netplay.Config{Players: 2, Room: "r", Name: "carl", Tokens: store}
	c := l.add("c", connectTo, cfg, "h")
	l.until(600, "the client running", func() bool { return c.st.Phase == netplay.Running })
	l.until(120, "carl's token saved", func() bool { _, ok := store.tok["r"]; return ok })
	c.off = true
	l.until(600, "the host says carl is interrupted", func() bool { return h.st.Interrupted == "carl" })
	c2 := l.add("c2", connectTo, cfg, "h") // carl started again, on a new address
	l.until(900, "the host tells carl rejoined", func() bool { return len(told(h, "carl rejoined at frame ")) > 0 })
	l.tick()
	require.Empty(t, h.st.Interrupted, "%v", h.st)
	require.NotContains(t, h.st.String(), "interrupted")
	l.until(600, "carl plays on", func() bool { return c2.st.Phase == netplay.Running })
}

// TestHostScreenQuitAndThirdClient: on an authoritative host (three
// slots, as pong's authority mode: two paddles and a third client's), a
// third client that plays no paddle is neither marked away nor dropped
// while it watches, and a client that quits cleanly (Close) reads as
// "quit", in the news and the status, not "dropped".
func TestHostScreenQuitAndThirdClient(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 10 * time.Millisecond})
	h := l.add("h", host, netplay.Config{Players: 3, LocalPlayers: 1, Room: "r", Name: "hana"}, "c", "s")
	c := l.add("c", connectTo, netplay.Config{Players: 3, Room: "r", Name: "carl"}, "h")
	l.until(600, "carl running", func() bool { return c.st.Phase == netplay.Running })
	s := l.add("s", connectTo, netplay.Config{Players: 3, Room: "r", Name: "sam"}, "h")
	l.until(600, "sam running", func() bool { return s.st.Phase == netplay.Running })
	for range 60 * 40 { // 40 s: past every timeout a silent or idle client meets
		l.tick()
		require.NotContains(t, h.st.String(), "sam", "%v", h.st)
	}
	require.Empty(t, told(h, "sam dropped"), "%q", h.m.News())
	require.Empty(t, told(h, "sam quit"), "%q", h.m.News())
	require.NoError(t, c.m.Close()) // carl quits
	c.off = true
	_, err := l.net.Endpoint("c") // its address taken again: the host's sends to it go on, unanswered
	require.NoError(t, err)       // (only carl's goodbye says it quit)
	l.until(600, "the host tells carl quit", func() bool { return len(told(h, "carl quit at frame ")) > 0 })
	for range 60 * 10 {
		l.tick()
		require.NotContains(t, h.st.String(), "dropped", "%v", h.st)
	}
	require.Empty(t, told(h, "carl dropped"), "%q", h.m.News())
	require.NoError(t, errors.Join(h.err, s.err))
}
