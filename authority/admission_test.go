package authority

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/transport/local"
)

// squatter is a raw peer that says Hello once and then only what keeps its
// connection alive: a keep-alive a second (play, when set: a frame marker
// a tick, which makes it a player).
type squatter struct {
	ep   *local.Endpoint
	seq  uint16
	play bool
	in   bool // answered
}

func (s *squatter) hello(t *testing.T, c *cluster) {
	s.seq++
	require.NoError(t, s.ep.Send("host", codec.Hello{Seq: s.seq, Settings: c.h.Settings(), Nonce: uint64(s.seq) | 1}.Append(nil)))
}

func (s *squatter) tick(t *testing.T, c *cluster, n int) {
	switch {
	case !s.in && n%12 == 0:
		s.hello(t, c) // as an honest client retries
	case s.in && s.play:
		s.seq++
		_ = s.ep.Send("host", codec.AuthInput{Seq: s.seq, Ack: -1, Start: int32(c.h.Frame()), Slots: 1, Size: 2}.Append(nil))
	case s.in && n%60 == 0:
		s.seq++
		_ = s.ep.Send("host", codec.KeepAlive{Seq: s.seq}.Append(nil))
	}
	if _, kinds := drain(s.ep); kinds[codec.TypeWelcome] > 0 {
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
