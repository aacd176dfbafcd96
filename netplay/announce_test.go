package netplay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// dedicated is an authority.Host of its own (a host command's) on the
// endpoint "h" of l, announcing itself through a greeting.Announcer.
type dedicated struct {
	h  *authority.Host[World, Buttons]
	an *greeting.Announcer
	cs []authority.HostClientStats
}

// roster sends the announcer's roster of d's clients, as the dedicated
// host does.
func (d *dedicated) roster() {
	d.an.Roster(len(d.cs), func(i int) (transport.Peer, int, bool) { c := &d.cs[i]; return c.Peer, c.First, c.Away })
}

func newDedicated(t *testing.T, l *lan, players int, settings uint64) *dedicated {
	ep, err := l.net.Endpoint("h")
	require.NoError(t, err)
	an, err := greeting.NewAnnouncer(ep, greeting.Announcement{Name: "arena", Players: players, Settings: settings, Grace: 10 * time.Second, Now: l.clock.Now})
	require.NoError(t, err)
	h, err := authority.NewHost[World](authority.HostConfig[Buttons]{Players: players, Net: rollnet.NetConfig{Settings: settings, Now: l.clock.Now}}, an, simulate)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close(); _ = ep.Close() })
	return &dedicated{h: h, an: an}
}

// frame advances the host one frame and sends the roster every 15th.
func (d *dedicated) frame(t *testing.T) {
	require.NoError(t, d.h.AdvanceFrame())
	d.cs = d.h.Clients(d.cs[:0])
	if d.h.Frame()%15 == 0 {
		d.roster()
	}
}

// TestAnnouncerDedicatedHost: clients Connect to a host that is not a
// Match (a dedicated host command's authority.Host behind an Announcer):
// they find it by its hello, name each other from its roster, and the
// survivor of a client killed sees who is away and for how long it may
// come back. A client with other settings, and a P2P player, fail at once
// with netplay's errors.
func TestAnnouncerDedicatedHost(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 20 * time.Millisecond})
	d := newDedicated(t, l, 2, 7)
	cfg := netplay.Config{Players: 2, Settings: 7, Name: "alice"}
	c1 := l.add("c1", connectTo, cfg, "h")
	cfg.Name = "bob"
	c2 := l.add("c2", connectTo, cfg, "h")
	tick := func() { d.frame(t); l.tick() }
	for i := 0; i < 600 && (c1.st.Phase != netplay.Running || c2.st.Phase != netplay.Running || c1.m.Name(1-c1.m.Seat()) == ""); i++ {
		tick()
	}
	require.NoError(t, c1.err)
	require.NoError(t, c2.err)
	require.Equal(t, netplay.Running, c1.st.Phase)
	require.Equal(t, "bob", c1.m.Name(c2.m.Seat()), "a client names the other player from the dedicated host's roster")
	require.Equal(t, "alice", c2.m.Name(c1.m.Seat()))
	require.Equal(t, "alice", d.an.Name("c1"))
	require.Zero(t, d.h.Stats().UnknownPackets, "the host never saw netplay's messages")

	c2.off = true // kill -9
	for i := 0; i < 900 && c1.st.Away != "bob"; i++ {
		tick()
	}
	require.Equal(t, "bob", c1.st.Away, "the survivor says who is away")
	require.Greater(t, c1.st.ComeBack, 5*time.Second)
	require.LessOrEqual(t, c1.st.ComeBack, 10*time.Second, "within the host's grace")

	wrong := l.add("w", connectTo, netplay.Config{Players: 2, Settings: 8, Name: "eve"}, "h")
	p2p := l.add("p", join, netplay.Config{Players: 2, Settings: 7, Name: "mallory"}, "h")
	for i := 0; i < 60 && (wrong.err == nil || p2p.err == nil); i++ {
		tick()
	}
	require.ErrorIs(t, wrong.err, netplay.ErrSettings)
	require.ErrorIs(t, p2p.err, netplay.ErrAuthorityRoom)
}

// TestAnnouncerAllocs: answering hellos and pings and sending the roster
// allocate nothing once the peers' names are known.
func TestAnnouncerAllocs(t *testing.T) {
	l := newLAN(t, local.Link{})
	d := newDedicated(t, l, 2, 0)
	c1 := l.add("c1", connectTo, netplay.Config{Players: 2, Name: "alice"}, "h")
	for i := 0; i < 300 && c1.st.Phase != netplay.Running; i++ {
		d.frame(t)
		l.tick()
	}
	require.Equal(t, netplay.Running, c1.st.Phase)
	d.cs = d.h.Clients(d.cs[:0])
	allocs.RequireZero(t, 100, func() { d.roster() }, "Announcer.Roster")
}

// TestOnSessionAndHostOrConnect: the first peer in a room hosts, the next
// connects; OnSession sets each session's state before frame 0.
func TestOnSessionAndHostOrConnect(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 10 * time.Millisecond})
	either := func(cfg netplay.Config, sim func(*World, []Buttons, rollnet.Frame)) (*netplay.Match[World, Buttons], error) {
		return netplay.HostOrConnect[World, Buttons](cfg, sim)
	}
	h := l.add("a", either, netplay.Config{Players: 2, Name: "alice"})
	c := l.add("b", either, netplay.Config{Players: 2, Name: "bob"}, "a")
	for _, p := range []*player{h, c} {
		m := p.m
		m.OnSession(func() error {
			m.State().T = 1000 // the game's state before frame 0
			return nil
		})
	}
	require.Equal(t, netplay.ModeHost, h.m.Mode())
	require.Equal(t, netplay.ModeClient, c.m.Mode())
	l.until(600, "the client running", func() bool { return c.st.Phase == netplay.Running && c.st.Frame > 30 })
	require.NoError(t, h.err)
	require.Equal(t, 0, h.m.Seat(), "the host plays slot 0")
	require.Equal(t, 1, c.m.Seat())
	require.Equal(t, "alice", c.m.Name(0))
	require.Greater(t, h.m.State().T, int32(1000), "the host's state started from OnSession's")
	require.Greater(t, c.m.State().T, int32(1000), "the client's too (from the host's states)")
}
