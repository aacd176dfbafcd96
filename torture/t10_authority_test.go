package torture

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// T10: the server-authoritative mode under churn and attack.
//
// A dedicated host with eight slots; honest clients over the three
// impaired profiles (40 ± 6 ms 0.2% loss, 100 ± 15 ms 2%, 200 ± 30 ms
// 10%, each with duplicates and reordering, both ways), 12,000 frames
// (times -torture.scale; 3,000 under -race). Events drawn from the seed
// keep it moving: clients join, leave (Close), are cut off for half a
// second to two seconds and resume over a new connection with their
// token, or are cut past the grace window and start over. Each client
// mashes its own seeded inputs and runs its fixed step through Update at
// the host's advised rate. A client that joined properly floods the host
// every tick with random bytes, truncated and bit-flipped packets, inputs
// for slots it does not hold and for absurd frames, acks of states never
// sent, Nacks of everything and Hellos; a stranger sends random bytes,
// Hellos with the wrong settings and resume Hellos with forged tokens.
//
// Checked: every host state any client applied equals the host's for that
// frame (byte for byte, every tick, every client); every honest client that
// has been connected for 5 s is synchronized, and counts nothing
// malformed; every late input is accounted for; what the host sends the
// attacker and the stranger is bounded by what it decided (states,
// repairs of at most three Nacks each, the link's own messages, one
// answer per connection), not by what they sent; the heap stays flat.

// t10State is the authoritative mode's test game (the test kit's).
type t10State = testkit.Arena

var t10Simulate = testkit.SimulateArena

// t10Profiles are the three impaired links.
var t10Profiles = []local.Link{
	{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Loss: 0.002, Duplicate: 0.01, Reorder: 0.01, ReorderDelay: 10 * time.Millisecond},
	{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.02, Duplicate: 0.01, Reorder: 0.01, ReorderDelay: 20 * time.Millisecond},
	{Latency: 200 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.10, Duplicate: 0.01, Reorder: 0.01, ReorderDelay: 30 * time.Millisecond},
}

// t10Counter counts what the host sends each peer.
type t10Counter struct {
	transport.Transport
	sent map[transport.Peer]int
}

func (c *t10Counter) Send(to transport.Peer, b []byte) error {
	c.sent[to]++
	return c.Transport.Send(to, b)
}

type t10Client struct {
	name    string // the player's name; its connection's is conn
	conn    string
	c       *authority.Client[t10State, uint16]
	rng     *rand.Rand
	in      uint16
	seen    rollnet.Frame
	since   time.Time // connected (or reconnected) at
	cutTill time.Time // cut off until then (zero: not cut)
	gone    bool      // left
	conns   int
}

type t10World struct {
	t       *testing.T
	seed    uint64
	rng     *rand.Rand
	clock   *local.Clock
	net     *local.Network
	host    *authority.Host[t10State, uint16]
	counter *t10Counter
	clients []*t10Client
	states  map[rollnet.Frame]t10State // the host's, by frame
	checked int
	nc      rollnet.NetConfig
	grace   time.Duration
}

func (w *t10World) profile(conn string, k int) {
	p := t10Profiles[k%len(t10Profiles)]
	require.NoError(w.t, w.net.SetLink(conn, "host", p))
	require.NoError(w.t, w.net.SetLink("host", conn, p))
}

// join adds a client on a fresh connection.
func (w *t10World) join() {
	k := len(w.clients)
	name := fmt.Sprintf("c%d", k)
	ep, err := w.net.Endpoint(name)
	require.NoError(w.t, err)
	w.profile(name, k)
	nc := w.nc
	nc.Tuning.Rand = rand.New(rand.NewPCG(w.seed, 1000+uint64(k))).Uint64
	c, err := authority.NewClient[t10State, uint16](authority.ClientConfig{Host: "host", Players: 8, Net: nc}, ep, t10Simulate)
	require.NoError(w.t, err)
	w.clients = append(w.clients, &t10Client{name: name, conn: name, c: c, rng: rand.New(rand.NewPCG(w.seed, 2000+uint64(k))),
		seen: rollnet.NoFrame, since: w.clock.Now()})
}

// reconnect gives cl a new connection (its old one cut), resuming with its
// token.
func (w *t10World) reconnect(cl *t10Client, k int) {
	cl.conns++
	cl.conn = fmt.Sprintf("%s.%d", cl.name, cl.conns)
	ep, err := w.net.Endpoint(cl.conn)
	require.NoError(w.t, err)
	w.profile(cl.conn, k)
	require.NoError(w.t, cl.c.Rejoin(ep))
	cl.cutTill, cl.since, cl.seen = time.Time{}, w.clock.Now(), rollnet.NoFrame
}

func (w *t10World) live() (n int) {
	for _, cl := range w.clients {
		if !cl.gone {
			n++
		}
	}
	return n
}

// event draws one event: a join, a leave, a short cut and resume, or a cut
// past the grace window.
func (w *t10World) event() {
	var up []int
	for i, cl := range w.clients {
		if !cl.gone && cl.cutTill.IsZero() && w.clock.Now().Sub(cl.since) > 3*time.Second {
			up = append(up, i)
		}
	}
	switch r := w.rng.IntN(10); {
	case r < 3 && w.live() < 6:
		w.join()
	case r < 4 && len(up) > 3:
		cl := w.clients[up[w.rng.IntN(len(up))]]
		require.NoError(w.t, cl.c.Close())
		cl.gone = true
	case r < 9 && len(up) > 0:
		cl := w.clients[up[w.rng.IntN(len(up))]]
		w.net.Partition(cl.conn, "host")
		cl.cutTill = w.clock.Now().Add(500*time.Millisecond + time.Duration(w.rng.IntN(1500))*time.Millisecond)
	case len(up) > 0:
		cl := w.clients[up[w.rng.IntN(len(up))]]
		w.net.Partition(cl.conn, "host")
		cl.cutTill = w.clock.Now().Add(w.grace + w.nc.DisconnectTimeout + time.Second)
	}
}

// tick runs the host, then every client, then moves the clock.
func (w *t10World) tick() {
	const dt = time.Second / 60
	f := w.host.Frame()
	require.NoError(w.t, w.host.AdvanceFrame())
	w.states[f] = *w.host.State()
	delete(w.states, f-600)
	for k, cl := range w.clients {
		if cl.gone {
			continue
		}
		if !cl.cutTill.IsZero() && !w.clock.Now().Before(cl.cutTill) {
			w.reconnect(cl, k)
		}
		if cl.c.Synchronized() {
			if cl.rng.IntN(4) == 0 {
				cl.in = uint16(cl.rng.Uint32())
			}
			require.NoError(w.t, cl.c.AddLocalInput(0, cl.in))
		}
		_, err := cl.c.Update(dt)
		require.NoError(w.t, err)
		if s, g := cl.c.HostState(); g > cl.seen {
			cl.seen = g
			want, ok := w.states[g]
			require.True(w.t, ok, "seed %d: %s: host state %d the host never made (or long ago)", w.seed, cl.name, g)
			require.Equal(w.t, want, *s, "seed %d: %s: host state %d differs from the host's", w.seed, cl.name, g)
			w.checked++
		}
	}
	w.clock.Advance(dt)
}

// t10Attacker is a client that joined properly and then sends junk.
type t10Attacker struct {
	ep     local.Endpoint
	rng    *rand.Rand
	real   [][]byte // what it received, to truncate and flip
	newest uint32   // the newest state body it saw
	sent   int
	seq    uint16 // its own sequence numbers: it owns its connection
}

func (a *t10Attacker) read() {
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, _, err := a.ep.Receive(buf)
		if errors.Is(err, transport.ErrNoPacket) {
			return
		}
		if err != nil {
			continue
		}
		if m, _, err := wire.ParseStateFragment(buf[:n]); err == nil {
			a.newest = max(a.newest, m.Msg)
		}
		if m, _, err := wire.ParseQualityReport(buf[:n]); err == nil {
			// Answered, as a client does, or the host's link would
			// give up on it (its sequence numbers outrun the anchor).
			a.seq++
			_ = a.ep.Send("host", wire.QualityReply{Seq: a.seq, Pong: m.Ping}.Append(nil))
		}
		if len(a.real) < 256 {
			a.real = append(a.real, append([]byte(nil), buf[:n]...))
		}
	}
}

func (a *t10Attacker) attack(frame int32, settings uint64) {
	r := a.rng
	// One valid input a tick for its own slot keeps it a player, so its
	// junk is held against its own record.
	a.seq++
	_ = a.ep.Send("host", wire.AuthInput{Seq: a.seq, Ack: -1, Start: frame + 2, Frames: 1, Slots: 1, Size: 2, Inputs: []byte{byte(r.Uint32()), 0}}.Append(nil))
	for range 6 { // Nacks of the newest bodies, far more than are answered
		a.seq++
		_ = a.ep.Send("host", wire.Nack{Seq: a.seq, Msg: a.newest - uint32(r.IntN(2)), Missing: ^uint64(0)}.Append(nil))
		a.sent++
	}
	for range 12 {
		a.seq++
		var b []byte
		switch r.IntN(8) {
		case 0:
			b = make([]byte, r.IntN(120))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
		case 1:
			if len(a.real) == 0 {
				continue
			}
			b = append([]byte(nil), a.real[r.IntN(len(a.real))]...)
			if r.IntN(2) == 0 {
				b = b[:r.IntN(len(b)+1)]
			} else {
				b[r.IntN(len(b))] ^= byte(1 << r.IntN(8))
			}
		case 2: // another's slots too
			b = wire.AuthInput{Seq: a.seq, Ack: -1, Start: frame, Frames: 1, Slots: 2, Size: 2, Inputs: []byte{1, 0, 1, 0}}.Append(nil)
		case 3: // absurd frames
			b = wire.AuthInput{Seq: a.seq, Ack: -1, Start: frame + 1000 + r.Int32N(1<<20), Frames: 1, Slots: 1, Size: 2, Inputs: []byte{1, 0}}.Append(nil)
		case 4: // an ack of a state never sent
			b = wire.AuthInput{Seq: a.seq, Ack: frame + 500, Start: frame, Frames: 1, Slots: 1, Size: 2, Inputs: []byte{1, 0}}.Append(nil)
		case 5:
			b = wire.Nack{Seq: a.seq, Msg: a.newest - uint32(r.IntN(3)), Missing: ^uint64(0)}.Append(nil)
		case 6:
			b = wire.Hello{Protocol: authority.Protocol, Seq: a.seq, Settings: settings, Nonce: r.Uint64()}.Append(nil)
		default:
			b = wire.QualityReport{Seq: a.seq, FrameAdvantage: r.Int32(), Ping: r.Uint64()}.Append(nil)
		}
		_ = a.ep.Send("host", b)
		a.sent++
	}
}

func TestT10Authority(t *testing.T) {
	frames := scaled(12000)
	if race.Enabled {
		frames = scaled(3000)
	}
	seed := baseSeed() + 1000
	clock, nw := testkit.NewNet(t, local.Config{Seed: seed})
	hep, err := nw.Endpoint("host")
	require.NoError(t, err)
	nc := rollnet.NetConfig{Now: clock.Now, DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
	hnc := nc
	hnc.Tuning.Rand = rand.New(rand.NewPCG(seed, 1)).Uint64
	counter := &t10Counter{Transport: hep, sent: map[transport.Peer]int{}}
	const grace = 3 * time.Second
	host, err := authority.NewHost[t10State, uint16](authority.HostConfig[uint16]{Players: 8, Grace: grace, Net: hnc}, counter, t10Simulate)
	require.NoError(t, err)
	w := &t10World{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 2)), clock: clock, net: nw, host: host, counter: counter,
		states: map[rollnet.Frame]t10State{}, nc: nc, grace: grace}
	for range 4 {
		w.join()
	}

	// The attacker joins properly; the stranger never does.
	mal := &t10Attacker{rng: rand.New(rand.NewPCG(seed, 3))}
	mal.ep, err = nw.Endpoint("mal")
	require.NoError(t, err)
	w.profile("mal", 0)
	require.NoError(t, mal.ep.Send("host", wire.Hello{Protocol: authority.Protocol, Settings: host.Settings(), Nonce: 7}.Append(nil)))
	stranger, err := nw.Endpoint("stranger")
	require.NoError(t, err)
	srng := rand.New(rand.NewPCG(seed, 4))
	strangerHellos := 0

	// The last fifth is steady (no joins, leaves or cuts; the attack
	// goes on): the heap must stay flat over it.
	var before runtime.MemStats
	quiet := frames * 4 / 5
	ticks := 0
	for int(host.Frame()) < frames {
		ticks++
		if ticks == quiet {
			runtime.GC()
			runtime.ReadMemStats(&before)
		}
		if ticks%120 == 0 && ticks < quiet-int(grace/time.Second+5)*60 {
			w.event()
		}
		mal.read()
		mal.attack(int32(host.Frame()), host.Settings())
		for range 4 {
			junk := make([]byte, 1+srng.IntN(200))
			for i := range junk {
				junk[i] = byte(srng.Uint32())
			}
			_ = stranger.Send("host", junk)
			_ = stranger.Send("host", wire.Hello{Protocol: authority.Protocol, Settings: host.Settings() ^ 1, Nonce: srng.Uint64()}.Append(nil))
		}
		if ticks%300 == 0 { // a resume Hello with a forged token: it may squat a free slot for a second
			var tok [wire.TokenLen]byte
			for i := range tok {
				tok[i] = byte(srng.Uint32())
			}
			_ = stranger.Send("host", wire.Hello{Protocol: authority.Protocol, Settings: host.Settings(), Nonce: srng.Uint64(), Resume: true, Token: tok}.Append(nil))
			strangerHellos++
		}
		w.tick()
		for _, cl := range w.clients {
			if cl.gone || !cl.cutTill.IsZero() || w.clock.Now().Sub(cl.since) < 5*time.Second {
				continue
			}
			st := cl.c.Stats()
			require.True(t, st.Synchronized, "seed %d: %s connected 5 s and not synchronized: %+v", seed, cl.name, st)
			require.Zero(t, st.Malformed, "seed %d: %s", seed, cl.name)
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	hs := host.Stats()
	var malStats authority.HostClientStats
	late, accounted := uint64(0), uint64(0)
	for _, s := range host.Clients(nil) {
		if s.Peer == "mal" {
			malStats = s
		}
		late += s.LateInputs
		accounted += s.LateApplied + s.LateRolledBack + s.LateSuperseded + s.LateDropped
		t.Logf("host's %s: depth %.1f rate %+.3f late %d applied %d superseded %d displaced %d lost %d predicted %d malformed %d flooded %d",
			s.Peer, s.Depth, s.Rate, s.LateInputs, s.LateApplied, s.LateSuperseded, s.Displaced, s.InputsLost, s.PredictedInputs, s.Link.Malformed, s.Flooded)
	}
	// The queue of late inputs still waiting is at most a few frames each.
	require.LessOrEqual(t, late-accounted, uint64(8*16), "seed %d: late inputs unaccounted for", seed)
	require.Equal(t, transport.Peer("mal"), malStats.Peer, "seed %d: the attacker stayed connected", seed)
	require.Greater(t, malStats.Link.Malformed, uint64(ticks), "seed %d: the attacker's junk counted", seed)
	// Bounded replies: to the attacker, its states, at most three repairs
	// of each, the link's own (a quality report and its replies, at most a
	// few a tick) and one answer; to the stranger, for each forged resume
	// Hello at most a reject and a sync (three copies each) and, on the
	// squatted slot until its connection times out, its states and link
	// messages.
	toMal := counter.sent["mal"]
	require.LessOrEqual(t, malStats.FragmentsResent, 3*malStats.StatesSent, "seed %d", seed)
	require.LessOrEqual(t, toMal, int(malStats.StatesSent+malStats.FragmentsResent)+3*ticks+6, "seed %d: %d packets to the attacker in %d ticks", seed, toMal, ticks)
	toStranger := counter.sent["stranger"]
	require.LessOrEqual(t, toStranger, strangerHellos*(6+4*60*int(nc.DisconnectTimeout/time.Second)+60), "seed %d: %d packets to the stranger", seed, toStranger)
	require.Greater(t, hs.UnknownPackets+hs.HellosRefused+hs.HellosDropped, uint64(ticks), "seed %d", seed)
	require.GreaterOrEqual(t, hs.Rejoined, uint64(3), "seed %d: resumes happened", seed)
	require.Greater(t, w.checked, frames, "seed %d: host states checked", seed)
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	// The test keeps 600 states and the attacker 256 packets, both
	// full by then; the host and clients keep nothing per packet.
	require.Less(t, growth, int64(1<<20), "seed %d: heap grew by %d bytes over the steady part", seed, growth)
	t.Logf("seed %d: %d frames, %d ticks, %d clients over the run, %d host states checked; host %+v; to mal %d (it sent %d), to the stranger %d (%d resume Hellos); heap %+d bytes over the steady part",
		seed, frames, ticks, len(w.clients), w.checked, hs, toMal, mal.sent, toStranger, strangerHellos, growth)
}
