package authority

import (
	"errors"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// entityWorld is 1024 entities of 16 bytes (16 KiB), eight of them moving a
// frame, each player steering one: the world of issue 29's host figures.
type entityWorld struct {
	E [1024]struct{ X, Y, VX, VY int32 }
}

func simEntities(w *entityWorld, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		e := &w.E[p%len(w.E)]
		e.VX, e.VY = int32(int8(v)), int32(int8(v>>8))
	}
	for k := range 8 {
		e := &w.E[(int(f)*8+k)%len(w.E)]
		e.X += e.VX + 1
		e.Y += e.VY - 1
	}
}

// entityMatch is a host of entityWorld on a local network on a fake clock.
type entityMatch struct {
	clock *local.Clock
	net   *local.Network
	h     *Host[entityWorld, uint16]
}

func newEntityMatch(t testing.TB, players int, cfg HostConfig[uint16]) *entityMatch {
	m := &entityMatch{clock: local.NewClock(epoch)}
	var err error
	m.net, err = local.NewNetwork(local.Config{Seed: 3, Now: m.clock.Now, Link: local.Link{Latency: 20 * time.Millisecond}, QueueLen: 4096})
	require.NoError(t, err)
	hep, err := m.net.Endpoint("host")
	require.NoError(t, err)
	seed := uint64(1)
	cfg.Players = players
	cfg.Net.Now = m.clock.Now
	cfg.Net.Tuning.Rand = func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }
	m.h, err = NewHost(cfg, transport.Transport(hep), simEntities)
	require.NoError(t, err)
	for i := range m.h.State().E {
		m.h.State().E[i].X, m.h.State().E[i].Y = int32(i*100), int32(i*7)
	}
	return m
}

func (m *entityMatch) client(t testing.TB, name string) *Client[entityWorld, uint16] {
	ep, err := m.net.Endpoint(name)
	require.NoError(t, err)
	seed := uint64(len(name)) + 7
	c, err := NewClient[entityWorld, uint16](ClientConfig{Host: "host", Players: m.h.s.players,
		Net: rollnet.NetConfig{Now: m.clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }}}}, ep, simEntities)
	require.NoError(t, err)
	return c
}

// Issue 28 item 3: a client that never acknowledges. One Hello, then a
// frame marker a tick that acknowledges nothing (so it is a player, and
// no join timeout frees it), with Nacks for every fragment of every body
// it sees when nacks is set. Every state it was sent was full: 990 KB/s
// out for a 16 KiB state, 3.96 MB/s with the Nacks. Now a full state
// waits for one acknowledged (the gap doubling from a frame to 128) and
// what a client is sent is budgeted: it costs a few KB/s; an honest client
// beside it gets every state, as before.
func TestNeverAcknowledgingClientCost(t *testing.T) {
	for _, nacks := range []bool{false, true} {
		t.Run("nacks="+strconv.FormatBool(nacks), func(t *testing.T) {
			m := newEntityMatch(t, 2, HostConfig[uint16]{})
			honest := m.client(t, "honest")
			raw, err := m.net.Endpoint("raw")
			require.NoError(t, err)
			require.NoError(t, raw.Send("host", wire.Hello{Protocol: protocol, Seq: 1, Settings: m.h.Settings(), Nonce: 1}.Append(nil)))
			buf := make([]byte, transport.MaxDatagram)
			seq := uint16(1)
			var in, out uint64
			const seconds = 10
			for n := range (seconds + 1) * 60 {
				m.clock.Advance(tick)
				require.NoError(t, m.h.AdvanceFrame())
				_ = honest.AddLocalInput(0, uint16(n/7))
				require.NoError(t, honest.AdvanceFrame())
				for {
					k, _, err := raw.Receive(buf)
					if errors.Is(err, transport.ErrNoPacket) {
						break
					}
					if n >= 60 {
						out += uint64(k)
					}
					if fr, _, err := wire.ParseStateFragment(buf[:k]); err == nil && nacks && fr.Index == 0 {
						seq++
						p := wire.Nack{Seq: seq, Msg: fr.Msg, Missing: fullMask(fr.Count)}.Append(nil)
						for range 4 {
							_ = raw.Send("host", p)
							in += uint64(len(p))
						}
					}
				}
				seq++
				p := wire.AuthInput{Seq: seq, Ack: -1, Start: int32(m.h.Frame()), Slots: 1, Size: 2}.Append(nil)
				_ = raw.Send("host", p)
				if n >= 60 {
					in += uint64(len(p))
				}
			}
			var rawStats, honestStats HostClientStats
			for _, s := range m.h.Clients(nil) {
				switch s.Peer {
				case "raw":
					rawStats = s
				case "honest":
					honestStats = s
				}
			}
			st := honest.Stats()
			t.Logf("raw: %d B/s out for %d B/s in (%d states sent, %d full, %d deferred, %d fragments resent); honest: %d B/s, %d states applied, %d dropped",
				out/seconds, in/seconds, rawStats.StatesSent, rawStats.FullStates, rawStats.StatesDeferred, rawStats.FragmentsResent,
				honestStats.Link.BytesSent/(seconds+1), st.StatesApplied, st.StatesDropped)
			require.Less(t, out/seconds, uint64(40_000), "what a client that acknowledges nothing costs")
			require.LessOrEqual(t, out, uint64(ClientBudgetDefault*seconds))
			require.Greater(t, st.StatesApplied, uint64(seconds*60-30), "the honest client got every state")
			require.True(t, honest.Synchronized())
		})
	}
}

// An honest client whose acknowledgements stop (its return path cut) gets
// full states backed off, and deltas again as soon as it acknowledges.
func TestFullStateBackoffRecovers(t *testing.T) {
	m := newEntityMatch(t, 1, HostConfig[uint16]{})
	a := m.client(t, "a")
	tickBoth := func(n int) {
		for range n {
			m.clock.Advance(tick)
			require.NoError(t, m.h.AdvanceFrame())
			require.NoError(t, a.AdvanceFrame())
		}
	}
	tickBoth(120)
	require.True(t, a.Synchronized())
	require.NoError(t, m.net.SetLink("a", "host", local.Link{Latency: 20 * time.Millisecond, Loss: 1}))
	tickBoth(4 * 60)
	hc := m.h.clients[0]
	full := hc.stats.FullStates
	require.Less(t, full, uint64(12), "full states backed off while nothing was acknowledged")
	require.NoError(t, m.net.SetLink("a", "host", local.Link{Latency: 20 * time.Millisecond}))
	before := a.Stats().StatesApplied
	tickBoth(3 * 60)
	require.Greater(t, a.Stats().StatesApplied-before, uint64(3*60-20), "deltas every tick again")
	require.LessOrEqual(t, hc.stats.FullStates-full, uint64(2))
	_ = rollback.BytesOf(m.h.State())
}

// The budget binds: a client of a host budgeted at 12 KiB/s (three quarters of what
// this world's states cost) is sent at most that, a second's worth of
// burst aside; the states past it wait, and those sent still decode
// (each is coded against a state the client acknowledged), checked.
func TestClientBudgetBinds(t *testing.T) {
	const budget, seconds = 12 << 10, 10
	m := newEntityMatch(t, 1, HostConfig[uint16]{ClientBudget: budget})
	a := m.client(t, "a")
	for n := range seconds * 60 {
		m.clock.Advance(tick)
		require.NoError(t, m.h.AdvanceFrame())
		_ = a.AddLocalInput(0, uint16(n/5))
		require.NoError(t, a.AdvanceFrame())
		if s, f := a.HostState(); s != nil {
			sum, err := m.h.ChecksumAt(f)
			require.NoError(t, err)
			require.Equal(t, sum, rollback.Checksum(rollback.BytesOf(s)))
		}
	}
	hs := m.h.Clients(nil)[0]
	st := a.Stats()
	t.Logf("sent %d B in %d s (budget %d B/s); %d states sent, %d deferred; client applied %d, dropped %d, malformed %d",
		hs.Link.BytesSent, seconds, budget, hs.StatesSent, hs.StatesDeferred, st.StatesApplied, st.StatesDropped, st.Malformed)
	require.LessOrEqual(t, hs.Link.BytesSent, uint64(budget*(seconds+1)+4096), "states, repairs and the link's own")
	require.NotZero(t, hs.StatesDeferred)
	require.Greater(t, st.StatesApplied, uint64(seconds*60/4))
	require.Zero(t, st.Malformed)
	require.True(t, a.Synchronized())
}

// A host tick allocates nothing with many clients sharing coded parts
// (most acknowledge the same few bases) and some past the cache.
func TestHostSharedCodingAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := newEntityMatch(t, 24, HostConfig[uint16]{Tuning: HostTuning{MaxJoinsPerTick: 24}, MaxClientsPerAddress: 24})
	var cs []*Client[entityWorld, uint16]
	for i := range 24 {
		cs = append(cs, m.client(t, "c"+strconv.Itoa(i)))
		// Latencies of 5 to 235 ms: more bases a tick than the cache holds.
		require.NoError(t, m.net.SetLink("c"+strconv.Itoa(i), "host", local.Link{Latency: time.Duration(5+10*i) * time.Millisecond}))
	}
	n := 0
	round := func() {
		n++
		m.clock.Advance(tick)
		_ = m.h.AdvanceFrame()
		for i, c := range cs {
			_ = c.AddLocalInput(0, uint16((n+i)/20))
			_ = c.AdvanceFrame()
		}
	}
	for range 240 {
		round()
	}
	for _, c := range cs {
		require.True(t, c.Synchronized())
	}
	runtime.GC() // the setup's garbage (24 worlds' rings) collected before the count, not during it
	allocs.RequireZero(t, 1, func() {
		for range 300 {
			round()
		}
	})
	for _, c := range cs {
		require.Zero(t, c.Stats().Malformed)
	}
}
