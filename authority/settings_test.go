package authority

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport/local"
)

// A client of other settings than the host's (another game, frame rate,
// state) is refused at its Hello with the host's values, and fails at
// once with an ErrSettings naming both sides, where it used to wait
// unanswered forever; the host holds nothing for it and counts it.
func TestWrongSettingsRefusedClearly(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*ClientConfig)
		want string
	}{
		{"game", func(c *ClientConfig) { c.Net.Settings = 0xbad }, "game settings 0xbad (host 0x0)"},
		{"frame rate", func(c *ClientConfig) { c.Net.FrameRate = 30 }, "30 frames a second (host 60)"},
		{"players", func(c *ClientConfig) { c.Players = 3 }, "3 players (host 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, clusterOpts{seed: 31, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
			good := c.add("good", ClientConfig{}, mash(1, 3))
			ep, err := c.net.Endpoint("wrong")
			require.NoError(t, err)
			cfg := ClientConfig{Host: "host", Players: 2, Net: rollnet.NetConfig{Now: c.clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { return 7 }}}}
			tc.cfg(&cfg)
			cl, err := NewClient[world, uint16](cfg, ep, simWorld)
			require.NoError(t, err)
			var got error
			for range 60 { // a second: the refusal takes a round trip
				c.run(tick)
				if got = cl.AdvanceFrame(); got != nil {
					break
				}
			}
			require.ErrorIs(t, got, ErrSettings)
			var se *SettingsError
			require.True(t, errors.As(got, &se))
			require.Equal(t, 2, se.Host.Players)
			require.Equal(t, 60, se.Host.FrameRate)
			require.Equal(t, Protocol, se.Host.Protocol)
			require.Contains(t, got.Error(), tc.want)
			require.ErrorIs(t, cl.AdvanceFrame(), ErrSettings, "and on every call after")
			c.run(time.Second)
			require.True(t, good.c.Synchronized(), "the honest client plays on")
			require.Equal(t, 1, c.h.Stats().Clients, "no record held for the refused one")
			require.GreaterOrEqual(t, c.h.Stats().HellosRefused, uint64(1))
		})
	}
}

// The state's size is in the settings too: a client of another game's
// state (a pong client reaching a host of another game) is told so.
func TestWrongStateRefused(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 32, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
	ep, err := c.net.Endpoint("other")
	require.NoError(t, err)
	type other struct{ A, B [3]uint64 }
	cl, err := NewClient[other, uint16](ClientConfig{Host: "host", Players: 2, Net: rollnet.NetConfig{Now: c.clock.Now}}, ep,
		func(*other, []uint16, rollnet.Frame) {})
	require.NoError(t, err)
	var got error
	for range 60 {
		c.run(tick)
		if got = cl.AdvanceFrame(); got != nil {
			break
		}
	}
	require.ErrorIs(t, got, ErrSettings)
	require.Contains(t, got.Error(), "a 48-byte state (host ")
}

// Raw peers that say Hello with wrong settings, from many addresses and
// over and over, and forge refusals: the host answers each address at
// most once a second and MaxJoinsPerTick a tick, counts every one, holds
// nothing, never panics; a forged refusal (a wrong nonce, or after the
// answer) does not stop a client.
func TestRefusalsBounded(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 33, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	var eps []local.Endpoint
	for i := range 20 {
		ep, err := c.net.Endpoint("raw" + string(rune('a'+i)))
		require.NoError(t, err)
		eps = append(eps, ep)
	}
	const ticks = 120 // two seconds
	for k := range ticks {
		for _, ep := range eps {
			for range 3 {
				require.NoError(t, ep.Send("host", wire.Hello{Protocol: protocol, Seq: uint16(k), Settings: c.h.Settings() ^ 1, Nonce: 5}.Append(nil)))
			}
			require.NoError(t, ep.Send("host", wire.Hello{Protocol: 2, Seq: uint16(k), Settings: 9, Nonce: 5}.Append(nil)))
		}
		c.run(tick)
	}
	c.run(100 * time.Millisecond)
	total := 0
	for _, ep := range eps {
		got, kinds := drain(ep)
		require.Equal(t, got, kinds[wire.TypeWelcome])
		require.LessOrEqual(t, got, 3, "at most one refusal a second per connection")
		total += got
	}
	require.GreaterOrEqual(t, total, 20, "every connection was told once")
	st := c.h.Stats()
	require.Equal(t, uint64(total), st.RefusalsSent)
	require.Equal(t, uint64(ticks*len(eps)*4), st.HellosRefused)
	require.Equal(t, 1, st.Clients)
	require.True(t, a.c.Synchronized())

	// Forged refusals to a: a wrong nonce, and the right one after the
	// answer, change nothing.
	hc := c.h.clients[c.record("a")]
	for _, nonce := range []uint64{a.c.nonce ^ 1, a.c.nonce} {
		w := wire.Welcome{Seq: hc.l.Seq(), Kind: wire.WelcomeRefused, Nonce: nonce,
			Host: wire.AuthSettings{Protocol: 9, Players: 1, StateSize: 1, InputSize: 1, FrameRate: 1}}
		require.NoError(t, c.hep.Send("a", w.Append(nil)))
	}
	c.run(time.Second)
	require.NoError(t, a.c.AdvanceFrame())
	require.True(t, a.c.Synchronized())
}

// A state taken unverified (no checksum rides on it) that was not the
// host's, forged here with a plausible sequence number and a baseline the
// client holds: the next checked state coded against it does not match,
// so the client drops it and every unverified state after it, goes back
// to its newest verified baseline, and the host's states are right again
// within a few checked states (without that, every state after it would
// be coded against a wrong baseline, for good).
func TestUnverifiedStateDropped(t *testing.T) {
	c, a, hc, spoof := oneSpoofed(t, 74, "a")
	c.noCheck = true // the forged state is taken, once
	before := a.c.Stats()
	f := a.c.newestHost + 1
	for int(f)%checkedEvery == 0 {
		f++ // an unchecked frame
	}
	data := make([]byte, len(a.c.bodyData))
	data[len(data)-1] = 0x5a // the last byte of the state, XORed
	body := wire.StateBody{Frame: int32(f), Base: int32(a.c.newestHost), Data: data}
	spoof.forged = append(spoof.forged, wire.StateFragment{Seq: hc.l.Seq(), Count: 1, Chunk: body.Append(nil)}.Append(nil))
	c.run(time.Second)
	after := a.c.Stats()
	require.Equal(t, before.StatesUnverified+1, after.StatesUnverified, "the wrong baseline was found")
	s, g := a.c.HostState()
	sum, ok := c.sums.Sum(g)
	require.True(t, ok)
	require.Equal(t, sum, rollback.Checksum(rollback.BytesOf(s)), "the client's newest host state is the host's again")
}

// Over a link whose round trip is longer than the baselines a client
// keeps (300 ms each way: the host hears every acknowledgement about 36
// frames late), the host sends whole states (one per acknowledged one:
// 11 in 3 s, as protocol 2 did); the client takes every one, though it
// acknowledged states a few frames before them: they are not the unasked
// whole states a forger would send (without the round trip allowed for,
// it took 4 and dropped 7).
func TestLongRoundTripTakesWholeStates(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 35, players: 2, link: local.Link{Latency: 300 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	c.run(3 * time.Second)
	before := a.c.Stats()
	c.run(3 * time.Second)
	after := a.c.Stats()
	t.Logf("states applied %d, dropped %d in 3 s", after.StatesApplied-before.StatesApplied, after.StatesDropped-before.StatesDropped)
	require.GreaterOrEqual(t, after.StatesApplied-before.StatesApplied, uint64(9))
	require.Zero(t, after.StatesDropped-before.StatesDropped)
}
