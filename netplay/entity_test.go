package netplay_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// crowdCap is the tests' entity table: the players' avatars first (index
// = slot), then wanderers crossing a square world.
const (
	crowdCap    = 1024
	crowdSide   = 4000
	crowdRadius = 400
	crowdSpeed  = 3 // an avatar's step per tick of input
)

type Mob struct{ X, Y, VX, VY int32 }

// Crowd is the tests' world.
type Crowd struct {
	Slots [crowdCap]entity.Slot
	Mobs  [crowdCap]Mob
	Ready bool
}

func crowdSimulate(c *Crowd, in []Buttons, _ rollnet.Frame) {
	if !c.Ready {
		c.Ready = true
		for i := range c.Mobs {
			k, _ := entity.Spawn(c.Slots[:])
			c.Mobs[k.Index] = Mob{X: int32(i*7919) % crowdSide, Y: int32(i*104729) % crowdSide, VX: int32(i%7) - 3, VY: int32(i%5) - 2}
		}
		for p := range in {
			c.Mobs[p] = Mob{X: 1000 + 200*int32(p), Y: 2000}
		}
	}
	for i := range c.Mobs {
		m := &c.Mobs[i]
		if i < len(in) {
			m.X += crowdSpeed * int32(in[i])
			continue
		}
		m.X, m.Y = m.X+m.VX, m.Y+m.VY
		if m.X < 0 || m.X >= crowdSide {
			m.VX = -m.VX
		}
		if m.Y < 0 || m.Y >= crowdSide {
			m.VY = -m.VY
		}
	}
}

// The README's entity snippet is the body of crowdEntities
// (TestREADMESnippets checks it); the tests below play it.

func encodeMob(c *Crowd, dst []byte, i int) {
	binary.LittleEndian.PutUint32(dst, uint32(c.Mobs[i].X))
	binary.LittleEndian.PutUint32(dst[4:], uint32(c.Mobs[i].Y))
}

func decodeMob(c *Crowd, i int, a, b []byte, alpha float32) {
	lerp := func(a, b []byte) int32 {
		x, y := int32(binary.LittleEndian.Uint32(a)), int32(binary.LittleEndian.Uint32(b))
		return x + int32(alpha*float32(y-x))
	}
	c.Mobs[i].X, c.Mobs[i].Y = lerp(a, b), lerp(a[4:], b[4:])
}

// near is the entities within crowdRadius of slot's avatar.
func near(c *Crowd, slot int, dst []int32) []int32 {
	me := c.Mobs[slot]
	for i := range c.Mobs {
		dx, dy := int64(c.Mobs[i].X-me.X), int64(c.Mobs[i].Y-me.Y)
		if c.Slots[i].Live && dx*dx+dy*dy <= crowdRadius*crowdRadius {
			dst = append(dst, int32(i))
		}
	}
	return dst
}

func ownMob(c *Crowd, slot int) int {
	if c.Slots[slot].Live {
		return slot
	}
	return -1
}

func moveMob(c *Crowd, _, i int, in Buttons) { c.Mobs[i].X += crowdSpeed * int32(in) }

func crowdEntities() netplay.EntityConfig[Crowd, Buttons] {
	return netplay.EntityConfig[Crowd, Buttons]{
		Capacity: crowdCap, Size: 8, // an entity's wire encoding: the game's quantization
		Slots:    func(c *Crowd) []entity.Slot { return c.Slots[:] },
		Encode:   encodeMob, // the wire bytes of an entity
		Decode:   decodeMob, // an entity from them, at a blend of two
		Interest: near,      // the indices relevant to a slot's player (or an entity.Grid)
		Own:      ownMob,    // the index a slot's player controls, -1 for none
		Predict:  moveMob,   // the client's step of its own entity by one input
	}
}

// crowdLAN is a host and its clients on a local network and a fake clock.
type crowdLAN struct {
	t     *testing.T
	clock *local.Clock
	net   *local.Network
	ms    []*netplay.Match[Crowd, Buttons]
	sts   []netplay.Status
	errs  []error
	press []Buttons
}

func newCrowdLAN(t *testing.T, link local.Link, clients int) *crowdLAN {
	clock := local.NewClock(epoch)
	n, err := local.NewNetwork(local.Config{Seed: 3, Now: clock.Now, Link: link})
	require.NoError(t, err)
	l := &crowdLAN{t: t, clock: clock, net: n}
	add := func(name string, start func(netplay.Config, func(*Crowd, []Buttons, rollnet.Frame), ...netplay.Option[Crowd, Buttons]) (*netplay.Match[Crowd, Buttons], error), peers ...transport.Peer) {
		ep, err := n.Endpoint(name)
		require.NoError(t, err)
		m, err := start(netplay.Config{Transport: ep, Peers: peers, Now: clock.Now, Players: clients + 1, Name: name},
			crowdSimulate, netplay.Entities(crowdEntities()))
		require.NoError(t, err)
		t.Cleanup(func() { _ = m.Close() })
		l.ms = append(l.ms, m)
	}
	add("host", netplay.Host[Crowd, Buttons])
	for i := range clients {
		add(string(rune('a'+i)), netplay.Connect[Crowd, Buttons], "host")
	}
	l.sts = make([]netplay.Status, len(l.ms))
	l.errs = make([]error, len(l.ms))
	l.press = make([]Buttons, len(l.ms))
	return l
}

func (l *crowdLAN) tick() {
	for i, m := range l.ms {
		if l.errs[i] == nil {
			l.sts[i], l.errs[i] = m.AdvanceFrame(l.press[i])
		}
	}
	l.clock.Advance(time.Second / 60)
}

func (l *crowdLAN) run(n int) {
	for range n {
		l.tick()
	}
	require.NoError(l.t, errors.Join(l.errs...))
}

// TestEntityMatch: a dedicated host and two clients over a lossy link.
// Each client gets a slot, predicts its avatar (agreeing with the host's
// encoding of the same inputs), and holds the entities within its radius
// (and none far outside it), drawn at the render time.
func TestEntityMatch(t *testing.T) {
	l := newCrowdLAN(t, local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}, 2)
	l.press[1], l.press[2] = 1, -1
	l.run(400)
	host := l.ms[0].State()
	for i := 1; i < len(l.ms); i++ {
		m, st := l.ms[i], l.sts[i]
		require.Equal(t, netplay.Running, st.Phase, "client %d", i)
		slot := i - 1 // a dedicated host's clients take slots from 0
		require.Equal(t, slot, m.Seat())
		c := m.State()
		me := c.Mobs[slot]
		// Its avatar is the host's, predicted a round trip or so ahead.
		ahead := (me.X - host.Mobs[slot].X) * int32(l.press[i])
		require.True(t, ahead >= 0 && ahead <= crowdSpeed*20, "client %d's avatar at %d, the host's at %d", i, me.X, host.Mobs[slot].X)
		live, far := 0, 0
		for j := range c.Slots {
			if !c.Slots[j].Live || j == slot {
				continue
			}
			live++
			dx, dy := int64(c.Mobs[j].X-me.X), int64(c.Mobs[j].Y-me.Y)
			if dx*dx+dy*dy > (crowdRadius+200)*(crowdRadius+200) {
				far++
			}
		}
		require.Greater(t, live, 5, "client %d holds entities", i)
		require.Less(t, live, crowdCap/4, "client %d holds only those near it", i)
		require.Zero(t, far, "client %d holds entities far outside its radius", i)
		s := m.Stats()
		require.Greater(t, s.Compared, uint64(300), "client %d compared its predictions", i)
		require.GreaterOrEqual(t, s.Agreed, s.Compared*9/10, "client %d: %d of %d predictions agreed", i, s.Agreed, s.Compared)
		t.Logf("client %d: %d entities held, avatar %d ahead, %d of %d predictions agreed, %d corrections, %d B received", i, live, ahead, s.Agreed, s.Compared, s.Rollbacks, s.BytesReceived)
		require.Zero(t, s.Rebuilds)
		require.Zero(t, s.Malformed)
	}
	// The host counts what crossed the link both ways, as its clients do:
	// what they sent less the 2% lost and what is still in flight.
	hs := l.ms[0].Stats()
	var sent, received uint64
	for _, m := range l.ms[1:] {
		s := m.Stats()
		sent, received = sent+s.BytesSent, received+s.BytesReceived
	}
	require.True(t, hs.BytesReceived <= sent && hs.BytesReceived > sent*9/10, "the host received %d B of the %d its clients sent", hs.BytesReceived, sent)
	require.True(t, received <= hs.BytesSent && received > hs.BytesSent*9/10, "the clients received %d B of the %d the host sent", received, hs.BytesSent)
}

// TestEntityMismatchedSettings: a client of another entity size is
// refused with ErrSettings.
func TestEntityMismatchedSettings(t *testing.T) {
	clock := local.NewClock(epoch)
	n, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now})
	require.NoError(t, err)
	he, err := n.Endpoint("host")
	require.NoError(t, err)
	h, err := netplay.Host(netplay.Config{Transport: he, Now: clock.Now, Players: 2}, crowdSimulate, netplay.Entities(crowdEntities()))
	require.NoError(t, err)
	defer h.Close()
	ce, err := n.Endpoint("c")
	require.NoError(t, err)
	other := crowdEntities()
	other.Size = 12
	c, err := netplay.Connect(netplay.Config{Transport: ce, Peers: []transport.Peer{"host"}, Now: clock.Now, Players: 2}, crowdSimulate, netplay.Entities(other))
	require.NoError(t, err)
	defer c.Close()
	for range 120 {
		_, _ = h.AdvanceFrame(0)
		if _, err = c.AdvanceFrame(0); err != nil {
			break
		}
		clock.Advance(time.Second / 60)
	}
	require.ErrorIs(t, err, netplay.ErrSettings)
}

// TestAllocsEntityTick: an entity match's host and clients allocate
// nothing per tick at steady state.
func TestAllocsEntityTick(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	l := newCrowdLAN(t, local.Link{Latency: 20 * time.Millisecond}, 2)
	l.press[1], l.press[2] = 1, -1
	l.run(300)
	require.Zero(t, testing.AllocsPerRun(200, l.tick))
	require.NoError(t, errors.Join(l.errs...))
}

// TestEntityHostileClient: beside an honest client, a peer that floods
// joins, garbage and inputs with forged numbers and acks gets at most one
// welcome per 10 ticks, costs the honest client nothing, and the host
// counts what it dropped.
func TestEntityHostileClient(t *testing.T) {
	l := newCrowdLAN(t, local.Link{Latency: 10 * time.Millisecond}, 1)
	l.ms[0].Close() // a host of two slots instead
	clock, n := l.clock, l.net
	he, err := n.Endpoint("host2")
	require.NoError(t, err)
	h, err := netplay.Host(netplay.Config{Transport: he, Now: clock.Now, Players: 2}, crowdSimulate, netplay.Entities(crowdEntities()))
	require.NoError(t, err)
	defer h.Close()
	ce, err := n.Endpoint("honest")
	require.NoError(t, err)
	c, err := netplay.Connect(netplay.Config{Transport: ce, Peers: []transport.Peer{"host2"}, Now: clock.Now, Players: 2}, crowdSimulate, netplay.Entities(crowdEntities()))
	require.NoError(t, err)
	defer c.Close()
	bad, err := n.Endpoint("bad")
	require.NoError(t, err)
	defer bad.Close()
	join := []byte{0xE8, 4, 0x80, 0x08, 8, 1} // version 4: capacity 1024, size 8, input size 1
	welcomes, ticks := 0, 600
	buf := make([]byte, transport.MaxDatagram)
	for tick := range ticks {
		_ = bad.Send("host2", []byte{0xEB, 4, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 8, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0xE6, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
		_ = bad.Send("host2", []byte{0xEB, 7, 1, 2, 3})
		_ = bad.Send("host2", []byte{byte(tick)})
		for range 20 {
			_ = bad.Send("host2", join)
		}
		for {
			k, _, err := bad.Receive(buf)
			if err != nil {
				break
			}
			if k > 0 && buf[0] == 0xE9 {
				welcomes++
			}
		}
		_, err := h.AdvanceFrame(0)
		require.NoError(t, err)
		_, err = c.AdvanceFrame(1)
		require.NoError(t, err)
		clock.Advance(time.Second / 60)
	}
	require.LessOrEqual(t, welcomes, ticks/10+1)
	require.Greater(t, welcomes, 0)
	s := c.Stats()
	require.Greater(t, s.Compared, uint64(ticks/2))
	require.GreaterOrEqual(t, s.Agreed, s.Compared*9/10)
	require.Greater(t, h.Stats().Malformed, uint64(ticks))
}

// newCrowdLANWith is newCrowdLAN with the clients' EntityConfig changed
// by client (the host's stays crowdEntities).
func newCrowdLANWith(t *testing.T, link local.Link, clients int, change func(*netplay.EntityConfig[Crowd, Buttons])) *crowdLAN {
	clock := local.NewClock(epoch)
	n, err := local.NewNetwork(local.Config{Seed: 5, Now: clock.Now, Link: link})
	require.NoError(t, err)
	l := &crowdLAN{t: t, clock: clock, net: n}
	for i := range clients + 1 {
		name, ec := "host", crowdEntities()
		change(&ec)
		ep, err := n.Endpoint(name)
		if i > 0 {
			name = string(rune('a' + i - 1))
			ep, err = n.Endpoint(name)
		}
		require.NoError(t, err)
		cfg := netplay.Config{Transport: ep, Now: clock.Now, Players: clients + 1, Name: name}
		var m *netplay.Match[Crowd, Buttons]
		if i == 0 {
			m, err = netplay.Host(cfg, crowdSimulate, netplay.Entities(ec))
		} else {
			cfg.Peers = []transport.Peer{"host"}
			m, err = netplay.Connect(cfg, crowdSimulate, netplay.Entities(ec))
		}
		require.NoError(t, err)
		t.Cleanup(func() { _ = m.Close() })
		l.ms = append(l.ms, m)
	}
	l.sts = make([]netplay.Status, len(l.ms))
	l.errs = make([]error, len(l.ms))
	l.press = make([]Buttons, len(l.ms))
	return l
}

// TestEntityClientCorrectsAWrongPrediction: a client whose Predict is
// wrong (a step one unit too long) finds out at each comparison with the
// host's encoding, takes the host's values and predicts again from
// them, so its avatar stays within the inputs in flight of the host's
// instead of drifting by a unit a tick.
func TestEntityClientCorrectsAWrongPrediction(t *testing.T) {
	l := newCrowdLANWith(t, local.Link{Latency: 30 * time.Millisecond, Loss: 0.02}, 1, func(ec *netplay.EntityConfig[Crowd, Buttons]) {
		ec.Predict = func(c *Crowd, _, i int, in Buttons) { c.Mobs[i].X += (crowdSpeed + 1) * int32(in) }
	})
	l.press[1] = 1
	l.run(400)
	host, c := l.ms[0].State(), l.ms[1].State()
	s := l.ms[1].Stats()
	require.Greater(t, s.Compared, uint64(300))
	require.Greater(t, s.Rollbacks, s.Compared/2, "a wrong prediction is found at (nearly) every comparison")
	ahead := c.Mobs[0].X - host.Mobs[0].X
	// Redone from the host's values, it is ahead by its inputs in flight
	// (a round trip, about 4 ticks, and the host's input buffer) at
	// crowdSpeed+1 each: never 400 units of drift.
	require.True(t, ahead >= 0 && ahead <= (crowdSpeed+1)*20, "the client's avatar at %d, the host's at %d", c.Mobs[0].X, host.Mobs[0].X)
}

// TestEntityClientDrawsOthersAtOneRenderTime: over a lossy, jittery link
// (the updates of some ticks lost, others late), every wanderer a client
// draws is where the host had it at one render time T: the wanderers
// move at constant velocity, so host position − drawn position =
// (host tick − T) × velocity with the same T for all, behind every
// entity's newest state. An entity drawn from its newest state instead
// is a tick or more off whenever its last update was lost or late; a
// render time run past the newest states holds them all (a stall).
func TestEntityClientDrawsOthersAtOneRenderTime(t *testing.T) {
	for _, link := range []local.Link{
		{Latency: 30 * time.Millisecond, Jitter: 8 * time.Millisecond, Loss: 0.2},
		{Latency: 45 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.05}, // the jitter needs a render delay past the default 3 ticks
	} {
		t.Run(fmt.Sprintf("%v±%v_loss%.2f", link.Latency, link.Jitter, link.Loss), func(t *testing.T) { testDrawsAtOneRenderTime(t, link) })
	}
}

func testDrawsAtOneRenderTime(t *testing.T, link local.Link) {
	l := newCrowdLANWith(t, link, 1, func(ec *netplay.EntityConfig[Crowd, Buttons]) {
		ec.BytesPerSecond = 1 << 20 // every changed entity every tick: only loss and jitter make them differ
	})
	l.run(200)
	const ticks = 240
	apart, stalled, measured := 0, 0, 0
	last := 0.0
	for range ticks {
		l.run(1)
		host, c := l.ms[0].State(), l.ms[1].State()
		me := host.Mobs[0]
		lo, hi, n := 1e9, -1e9, 0
		for i := range c.Mobs {
			h := host.Mobs[i]
			dx, dy := int64(h.X-me.X), int64(h.Y-me.Y)
			if !c.Slots[i].Live || i < 2 || (h.VX != 3 && h.VX != -3) || dx*dx+dy*dy > (crowdRadius-50)*(crowdRadius-50) ||
				h.X < 200 || h.X > crowdSide-200 || h.Y < 200 || h.Y > crowdSide-200 {
				continue // a wanderer in sight at full speed in x, far from the walls (no bounce in the last 60 ticks)
			}
			delay := float64(h.X-c.Mobs[i].X) / float64(h.VX) // ticks behind the host's present
			lo, hi, n = min(lo, delay), max(hi, delay), n+1
		}
		if n < 2 {
			continue
		}
		measured++
		if hi-lo >= 0.5 { // truncating a blend costs under 1/3 tick
			apart++
		}
		if lo >= last+0.9 { // the whole crowd a tick further behind: held
			stalled++
		}
		last = lo
	}
	t.Logf("%d ticks measured: wanderers drawn apart on %d, the crowd held on %d", measured, apart, stalled)
	require.Greater(t, measured, ticks/2)
	require.LessOrEqual(t, apart, measured/20, "drawn at one render time")
	require.LessOrEqual(t, stalled, measured/20, "the render time stays behind the newest states")
}
