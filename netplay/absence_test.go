package netplay_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/local"
)

// hasNews reports whether a line of m's News contains s.
func hasNews(p *player, s string) bool {
	for _, line := range p.m.News() {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// TestAbsenceFreeze: under AbsenceFreeze, while bob's process is dead
// alice's match stops (Status.Awaiting names bob, for how long), and
// resumes when bob's new process rejoins from his token.
func TestAbsenceFreeze(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 20 * time.Millisecond})
	store := &memStore{tok: map[string]netplay.Token{}}
	cfg := netplay.Config{Players: 2, Room: "r", Absence: rollnet.AbsenceFreeze}
	cfg.Name = "alice"
	a := l.add("a", join, cfg, "b", "b2")
	cfg.Name, cfg.Tokens = "bob", store
	b := l.add("b", join, cfg, "a")
	l.until(300, "both running", func() bool { return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running })
	l.until(120, "b's token saved", func() bool { _, ok := store.tok["r"]; return ok })

	b.off = true // b's process dies: no goodbye
	l.until(600, "alice awaits bob", func() bool { return a.st.Awaiting == "bob" })
	stop := a.st.AwaitedAt
	require.Equal(t, stop, a.m.Frame())
	require.True(t, hasNews(a, "waiting at frame"), "%q", a.m.News())
	for range 120 {
		l.tick()
		require.Equal(t, stop, a.m.Frame(), "alice stays at the agreed frame")
		require.False(t, a.st.Advanced)
		require.Equal(t, "bob", a.st.Waiting)
	}
	require.Greater(t, a.st.AwaitedFor, 1900*time.Millisecond)
	require.Contains(t, a.st.String(), "waiting at frame")
	if !race.Enabled {
		n := testing.AllocsPerRun(60, func() { l.tick() })
		require.Zero(t, n, "a tick that waits allocates nothing")
	}

	b2 := l.add("b2", join, cfg, "a") // b started again, on a new address
	l.until(1200, "b2 playing", func() bool { return b2.err != nil || (b2.st.Phase == netplay.Running && b2.st.Advanced) })
	require.NoError(t, b2.err)
	l.until(60, "alice plays on", func() bool { return a.st.Awaiting == "" && a.st.Advanced })
	require.Greater(t, a.m.Frame(), stop)
	require.NoError(t, a.err)
	t.Logf("stopped at %d; %q", stop, a.m.News())
}

// TestAbsenceForfeit: under AbsenceForfeit the match ends at the agreed
// frame when bob's process dies, and says who forfeited.
func TestAbsenceForfeit(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 20 * time.Millisecond})
	cfg := netplay.Config{Players: 2, Absence: rollnet.AbsenceForfeit}
	cfg.Name = "alice"
	a := l.add("a", join, cfg, "b")
	cfg.Name = "bob"
	b := l.add("b", join, cfg, "a")
	l.until(300, "both running", func() bool { return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running })
	b.off = true
	l.until(600, "alice's match ends", func() bool { return a.st.Phase == netplay.Ended })
	require.Equal(t, netplay.EndForfeit, a.st.Ended)
	require.Equal(t, "bob", a.st.Away)
	require.True(t, hasNews(a, "bob forfeited"), "%q", a.m.News())
	require.NoError(t, a.err)
}

// TestEndedStatusSaysEnded: a match that ended (bob quit cleanly under
// AbsenceFreeze, the case that printed "ended: every other player left,
// waiting at frame 150 for bob (0s), bob left") waits for nobody: its
// status says it ended, at which frame, why and who left; a forfeit says
// who forfeited.
func TestEndedStatusSaysEnded(t *testing.T) {
	for _, absence := range []rollnet.Absence{rollnet.AbsenceFreeze, rollnet.AbsenceForfeit} {
		t.Run(absence.String(), func(t *testing.T) {
			l := newLAN(t, local.Link{Latency: 20 * time.Millisecond})
			cfg := netplay.Config{Players: 2, Absence: absence}
			cfg.Name = "alice"
			a := l.add("a", join, cfg, "b")
			cfg.Name = "bob"
			b := l.add("b", join, cfg, "a")
			l.until(300, "both running", func() bool { return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running })
			l.until(120, "a while", func() bool { return a.st.Frame > 120 })
			if absence == rollnet.AbsenceFreeze {
				require.NoError(t, b.m.Close()) // a clean quit
			}
			b.off = true
			l.until(600, "alice's match ends", func() bool { return a.st.Phase == netplay.Ended })
			st := a.st
			require.Empty(t, st.Awaiting)
			require.Empty(t, st.Waiting)
			require.Empty(t, st.Interrupted)
			require.Zero(t, st.ComeBack)
			require.Equal(t, "bob", st.Away)
			why := "every other player left"
			if absence == rollnet.AbsenceForfeit {
				why = "a player forfeited by leaving"
			}
			require.Equal(t, fmt.Sprintf("ended at frame %d: %s (bob)", st.Frame, why), st.String())
			require.Positive(t, st.Frame)
			require.NoError(t, a.err)
			require.NoError(t, a.m.Close())
			closed, err := a.m.AdvanceFrame(0)
			require.Error(t, err)
			require.Equal(t, fmt.Sprintf("ended at frame %d: closed", st.Frame), closed.String(), "a closed match still says where it ended")
		})
	}
	require.Equal(t, "ended: closed", netplay.Status{Phase: netplay.Ended, Ended: netplay.EndClosed}.String())
}

// TestAbsenceFreezeAuthoritative: under the host's AbsenceFreeze, while
// bob's client process is dead the host and alice's client stop at one
// frame (Status.Awaiting names bob, for how long; News says so), and
// both resume when bob's new process rejoins from his token.
func TestAbsenceFreezeAuthoritative(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 20 * time.Millisecond})
	store := &memStore{tok: map[string]netplay.Token{}}
	cfg := netplay.Config{Players: 2, Room: "r", Absence: rollnet.AbsenceFreeze, Name: "host"}
	h := l.add("h", host, cfg, "a", "b", "b2")
	cfg.Name = "alice"
	a := l.add("a", connectTo, cfg, "h")
	cfg.Name, cfg.Tokens = "bob", store
	b := l.add("b", connectTo, cfg, "h")
	l.until(300, "both clients running", func() bool {
		return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running && a.m.Seat() >= 0 && b.m.Seat() >= 0
	})
	l.until(120, "b's token saved", func() bool { _, ok := store.tok["r"]; return ok })
	l.until(60, "names known", func() bool { return a.m.Name(b.m.Seat()) == "bob" && h.m.Name(b.m.Seat()) == "bob" })

	b.off = true // b's process dies: no goodbye
	l.until(600, "alice awaits bob", func() bool {
		return a.st.Awaiting == "bob" && a.m.Frame() == a.st.AwaitedAt && h.m.Frame() == a.st.AwaitedAt
	})
	stop := a.st.AwaitedAt
	require.Equal(t, "bob", h.st.Awaiting)
	require.Equal(t, stop, h.st.AwaitedAt)
	for range 120 {
		l.tick()
		require.Equal(t, stop, a.m.Frame(), "alice stays at the host's stop")
		require.Equal(t, stop, h.m.Frame(), "so does the host")
		require.False(t, a.st.Advanced)
	}
	require.Greater(t, a.st.AwaitedFor, 1900*time.Millisecond)
	require.Contains(t, a.st.String(), "waiting at frame")
	require.True(t, hasNews(a, "waiting at frame"), "%q", a.m.News())
	require.True(t, hasNews(h, "waiting at frame"), "%q", h.m.News())

	b2 := l.add("b2", connectTo, cfg, "h") // b started again, on a new address
	l.until(600, "b2 playing", func() bool { return b2.err != nil || (b2.st.Phase == netplay.Running && b2.m.Frame() > stop) })
	require.NoError(t, b2.err)
	l.until(60, "alice plays on", func() bool { return a.st.Awaiting == "" && a.m.Frame() > stop+10 })
	require.Greater(t, h.m.Frame(), stop)
	require.Empty(t, h.st.Awaiting)
	require.True(t, hasNews(a, "bob is back"), "%q", a.m.News())
	require.NoError(t, a.err)
	require.NoError(t, h.err)
	t.Logf("stopped at %d; alice %q; host %q", stop, a.m.News(), h.m.News())
}

// TestAbsenceForfeitAuthoritative: under the host's AbsenceForfeit the
// match ends at the host's stop for the host and every client.
func TestAbsenceForfeitAuthoritative(t *testing.T) {
	l := newLAN(t, local.Link{Latency: 20 * time.Millisecond})
	cfg := netplay.Config{Players: 2, Absence: rollnet.AbsenceForfeit, Name: "host"}
	h := l.add("h", host, cfg, "a", "b")
	cfg.Name = "alice"
	a := l.add("a", connectTo, cfg, "h")
	cfg.Name = "bob"
	b := l.add("b", connectTo, cfg, "h")
	l.until(300, "both clients running", func() bool {
		return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running && a.m.Seat() >= 0 && b.m.Seat() >= 0
	})
	l.until(60, "names known", func() bool { return a.m.Name(b.m.Seat()) == "bob" })
	b.off = true
	l.until(600, "alice's match ends", func() bool { return a.st.Phase == netplay.Ended && h.st.Phase == netplay.Ended })
	require.Equal(t, netplay.EndForfeit, a.st.Ended)
	require.Equal(t, netplay.EndForfeit, h.st.Ended)
	require.Equal(t, "bob", a.st.Away)
	require.True(t, hasNews(a, "bob forfeited"), "%q", a.m.News())
	require.Equal(t, h.m.Frame(), a.m.Frame(), "both at the stop")
	require.Equal(t, *h.m.State(), *a.m.State(), "with the same state")
}

// TestAbsenceInvalid: a policy that is none of them is a config error, as
// is one the entity mode does not take.
func TestAbsenceInvalid(t *testing.T) {
	_, err := netplay.Join[World, Buttons](netplay.Config{Players: 2, Absence: 9}, simulate)
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = netplay.Host(netplay.Config{Players: 2, Absence: rollnet.AbsenceFreeze}, crowdSimulate, netplay.Entities(crowdEntities()))
	require.ErrorIs(t, err, rollnet.ErrConfig, "not the entity mode yet")
}
