package authority

import (
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/transport/local"
)

// squatter is a raw peer that says Hello once and then only what keeps its
// connection alive: a keep-alive a second (play, when set: a frame marker
// a tick, which makes it a player).
type squatter struct {
	ep   local.Endpoint
	seq  uint16
	play bool
	in   bool // answered
}

func (s *squatter) hello(t *testing.T, c *cluster) {
	s.seq++
	require.NoError(t, s.ep.Send("host", wire.Hello{Protocol: protocol, Seq: s.seq, Settings: c.h.Settings(), Nonce: uint64(s.seq) | 1}.Append(nil)))
}

func (s *squatter) tick(t *testing.T, c *cluster, n int) {
	switch {
	case !s.in && n%12 == 0:
		s.hello(t, c) // as an honest client retries
	case s.in && s.play:
		s.seq++
		_ = s.ep.Send("host", wire.AuthInput{Seq: s.seq, Ack: -1, Start: int32(c.h.Frame()), Slots: 1, Size: 2}.Append(nil))
	case s.in && n%60 == 0:
		s.seq++
		_ = s.ep.Send("host", wire.KeepAlive{Seq: s.seq}.Append(nil))
	}
	if _, kinds := drain(s.ep); kinds[wire.TypeWelcome] > 0 {
		s.in = true
	}
}

// squat fills a room of eight with raw peers named by name(i) and runs
// an honest client beside them for 30 s; it returns how long the honest
// client took to synchronize (-1: never) and the host's refusals.
func squat(t *testing.T, name func(i int) string, play bool) (time.Duration, uint64) {
	c := newCluster(t, clusterOpts{seed: 80, players: 8, link: local.Link{Latency: 10 * time.Millisecond}})
	var sq []*squatter
	for i := range 8 {
		ep, err := c.net.Endpoint(name(i))
		require.NoError(t, err)
		s := &squatter{ep: ep, seq: uint16(100 * i), play: play}
		s.hello(t, c)
		sq = append(sq, s)
	}
	c.run(500 * time.Millisecond)
	honest := c.add("honest", ClientConfig{}, mash(1, 3))
	start, took := c.clock.Now(), time.Duration(-1)
	for n := range 30 * 60 {
		for _, s := range sq {
			s.tick(t, c, n)
		}
		c.run(tick)
		if took < 0 && honest.c.Synchronized() {
			took = c.clock.Now().Sub(start)
		}
	}
	st := c.h.Stats()
	t.Logf("honest synchronized after %v; host: %d Hellos refused, %d join timeouts, %d clients", took, st.HellosRefused, st.JoinTimeouts, st.Clients)
	return took, st.HellosRefused
}

// Issue 28 item 4, first half: eight raw peers, each from its own address,
// say Hello and then send a keep-alive a second (32 B/s between them),
// never an input. Before the join timeout they held every slot of the
// room for as long as they liked: the honest client was refused for the
// whole 30 s and never synchronized. Now a record that sent no valid input
// within JoinTimeout (5 s) is freed however alive its connection, and its
// address may not join again for as long: the honest client is in once
// the first squatter's timeout ran out.
func TestJoinTimeoutFreesSquattedSlots(t *testing.T) {
	took, _ := squat(t, func(i int) string { return "10.0.0." + strconv.Itoa(i+1) + ":4000" }, false)
	require.GreaterOrEqual(t, took, time.Duration(0), "the honest client never got a slot")
	require.Less(t, took, 7*time.Second, "in once the squatters' join timeout (5 s) ran out")
}

// Issue 28 item 4, second half: eight sockets of one address, each a
// player (a frame marker a tick, so no join timeout frees them), would
// hold every slot; one address holds at most MaxClientsPerAddress (4)
// records, so the honest client is in at once.
func TestClientsPerAddressCapped(t *testing.T) {
	took, refused := squat(t, func(i int) string { return "10.0.0.9:" + strconv.Itoa(5000+i) }, true)
	require.GreaterOrEqual(t, took, time.Duration(0), "the honest client never got a slot")
	require.Less(t, took, time.Second, "in at once: one address holds at most four of eight")
	require.GreaterOrEqual(t, refused, uint64(4), "four of the eight sockets were refused")
}

// Issue 28 item 5: a client silent past the disconnect timeout (5 s) that
// keeps its socket says Hello with its token from the same address. The
// host used to ignore it for the whole grace window (the address stayed
// bound to the away record, whose link drops all but a Rejoin), then
// answered RESUME_REJECT and a fresh slot (its world lost, 12 s after
// the Hello). Now an away record lets go of its connection: the Hello
// reaches the join logic and resumes the same slot at once.
func TestResumeSameAddress(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 81, players: 2, link: local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	b := c.add("b", ClientConfig{}, mash(2, 4))
	c.run(3 * time.Second)
	slot, token := a.c.Stats().First, a.c.token
	c.net.Partition("a", "host")
	c.run(8 * time.Second)
	require.Equal(t, clientAway, c.h.clients[c.record("a")].state, "the host noticed the silence")
	c.net.Heal("a", "host")
	require.NoError(t, a.c.Rejoin(a.ep)) // the same socket
	start, took := c.clock.Now(), time.Duration(-1)
	for range 20 * 60 {
		c.run(tick)
		if a.c.answer != 0 {
			took = c.clock.Now().Sub(start)
			break
		}
	}
	st := a.c.Stats()
	t.Logf("answer %v after %v; host %+v", a.c.answer, took, c.h.Stats())
	require.Equal(t, wire.WelcomeResume, a.c.answer, "resumed, not rejected")
	require.Less(t, took, time.Second)
	require.Equal(t, slot, st.First)
	require.Equal(t, token, a.c.token)
	require.Zero(t, c.h.Stats().RejoinsRefused)
	c.run(2 * time.Second)
	require.True(t, a.c.Synchronized())
	require.Greater(t, c.checked, 0)
	require.True(t, b.c.Synchronized(), "the other client played on")
}

// Issue 28 item 5, the other half: a valid token from another address
// while its owner is connected. It used to take the live slot at once.
// Now it is refused (no answer, HostStats.RejoinsWhileHeard) while the owner
// is heard, and takes the slot over once the owner's connection is
// interrupted (silent past Net.DisconnectNotify, 750 ms): so a client
// whose address changed (a NAT rebinding, a network switch), silent on
// its old one, resumes within that, not after the disconnect timeout.
func TestResumeFromAnotherAddress(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 82, players: 2, link: local.Link{Latency: 20 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	c.run(3 * time.Second)
	token := a.c.token
	thief, err := c.net.Endpoint("thief")
	require.NoError(t, err)
	for k := range 120 {
		require.NoError(t, thief.Send("host", wire.Hello{Protocol: protocol, Seq: uint16(k), Settings: c.h.Settings(), Nonce: 5, Resume: true, Token: token.Secret}.Append(nil)))
		c.run(tick)
	}
	c.run(100 * time.Millisecond)
	_, kinds := drain(thief)
	require.Zero(t, kinds[wire.TypeWelcome], "no answer while the owner is heard")
	require.Equal(t, "a", string(c.h.clients[c.record("a")].peer), "the owner kept its slot")
	require.Equal(t, uint64(120), c.h.Stats().RejoinsWhileHeard)
	require.Zero(t, c.h.Stats().Rejoined)

	// The owner moves to a new address; its old one falls silent.
	ep2, err := c.net.Endpoint("a2")
	require.NoError(t, err)
	c.net.Partition("a", "host")
	require.NoError(t, a.c.Rejoin(ep2))
	start, took := c.clock.Now(), time.Duration(-1)
	for range 5 * 60 {
		c.run(tick)
		if a.c.answer != 0 {
			took = c.clock.Now().Sub(start)
			break
		}
	}
	t.Logf("moved: answer %v after %v", a.c.answer, took)
	require.Equal(t, wire.WelcomeResume, a.c.answer)
	require.Less(t, took, 1200*time.Millisecond, "about DisconnectNotify (750 ms) and a Hello retry")
	c.run(time.Second)
	require.True(t, a.c.Synchronized())
}

// Past 64 players the host simulates without the core session: three
// clients of a 200-slot room over a lossy, jittery link agree with the
// host on every state they apply (the cluster checks each), and a
// recorder is refused clearly.
func TestHostPast64Players(t *testing.T) {
	link := local.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05, Reorder: 0.02, ReorderDelay: 10 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 83, players: 200, locals: 1, link: link})
	c.hinput = mash(9, 5)
	nodes := []*node{c.add("a", ClientConfig{}, mash(1, 3)), c.add("b", ClientConfig{}, mash(2, 4)), c.add("c", ClientConfig{}, mash(3, 7))}
	c.run(10 * time.Second)
	for _, nd := range nodes {
		st := nd.c.Stats()
		require.True(t, st.Synchronized, nd.name)
		require.Zero(t, st.Malformed, nd.name)
	}
	require.Greater(t, c.checked, 1200)
	require.Equal(t, 3, c.h.Stats().Clients)
	r, err := replay.NewRecorder[world, uint16](replay.RecorderConfig{Players: 2}, io.Discard, c.h.State())
	require.NoError(t, err)
	require.ErrorIs(t, c.h.SetRecorder(r), replay.ErrArgument)
}
