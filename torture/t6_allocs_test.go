package torture

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// T6: zero allocation across the stack.
//
// One world holds every per-frame path at once: a typed and a byte state
// ring, a core session fed late and contradicting remote inputs (so it rolls
// back), the codec encoding and parsing every message (and truncated ones),
// raw datagrams through an impaired local network, and two P2P peers plus a
// spectator playing over that network on a fake clock, events drained into
// caller-owned slices. After a warm-up, 60,000 operations (times
// -torture.scale) are drawn from a seeded stream and run back to back; the
// heap's allocation count must not move. When it does, each kind of operation
// is measured on its own to name the one that allocates.
//
// It runs without -race (which allocates) and is named so that CI's
// `go test -run Allocs` picks it up.

const t6Ops = 60000

type t6Kind uint8

const (
	t6P2PTick t6Kind = iota
	t6Ring
	t6BytesRing
	t6Core
	t6Pack
	t6Codec
	t6Datagram
	t6Kinds
)

var t6Names = [t6Kinds]string{"P2P tick", "typed ring", "byte ring", "core session", "pack inputs", "codec", "local datagrams"}

type t6World struct {
	t     testing.TB
	rng   *rand.Rand
	clock *local.Clock
	net   *local.Network

	// P2P: two players and a spectator of player 0.
	peers  [2]*p2p.Session[testkit.World, uint16]
	spec   *p2p.Spectator[testkit.World, uint16]
	in     [2]uint16
	events []rollnet.Event
	frames int // P2P frames advanced by peer 0

	// Rings.
	ring      *rollback.Ring[testkit.World]
	bytesRing *rollback.Bytes

	// Core session, with player 1 remote and fed late.
	core       *session.Session[testkit.World, uint16]
	remoteNext rollnet.Frame
	remoteIn   uint16
	packBuf    []byte
	packed     int // successful PackInputs

	// Codec.
	pkt    []byte
	inputs []byte
	outIn  []byte
	status []wire.PeerStatus

	// Raw datagrams.
	x, y  local.Endpoint
	dgram []byte
	recv  []byte
}

func newT6World(t testing.TB, seed uint64) *t6World {
	w := &t6World{t: t, rng: rand.New(rand.NewPCG(seed, 6))}
	w.clock = local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var err error
	w.net, err = local.NewNetwork(local.Config{Seed: seed, Now: w.clock.Now, Link: local.Link{
		Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Loss: 0.02,
		Burst: local.Burst{Enter: 0.005, Leave: 0.3}, Duplicate: 0.02, Reorder: 0.02,
	}})
	require.NoError(t, err)

	names := [2]transport.Peer{"p0", "p1"}
	for i := range w.peers {
		ep, err := w.net.Endpoint(string(names[i]))
		require.NoError(t, err)
		remote := []transport.Peer{"", ""}
		remote[1-i] = names[1-i]
		nonces := rand.New(rand.NewPCG(seed, uint64(100+i)))
		cfg := p2p.Config[uint16]{
			Session: session.Config[uint16]{Players: 2, InputDelay: 2},
			Remote:  remote,
			Net:     rollnet.NetConfig{Now: w.clock.Now, Tuning: rollnet.NetTuning{Rand: nonces.Uint64}, ChecksumInterval: 30},
		}
		if i == 0 {
			cfg.Spectators = []transport.Peer{"s0"}
		}
		w.peers[i], err = p2p.New[testkit.World](cfg, ep, testkit.Simulate)
		require.NoError(t, err)
	}
	sep, err := w.net.Endpoint("s0")
	require.NoError(t, err)
	specNonces := rand.New(rand.NewPCG(seed, 200))
	w.spec, err = p2p.NewSpectator[testkit.World, uint16](p2p.SpectatorConfig{
		Players: 2, InputDelay: 2, Capacity: 64, Host: "p0",
		Net: rollnet.NetConfig{Now: w.clock.Now, Tuning: rollnet.NetTuning{Rand: specNonces.Uint64}, ChecksumInterval: 30},
	}, sep, testkit.Simulate)
	require.NoError(t, err)
	w.events = make([]rollnet.Event, 0, 1024)

	w.ring, err = rollback.New[testkit.World](16)
	require.NoError(t, err)
	w.bytesRing, err = rollback.NewBytes(32, 96)
	require.NoError(t, err)

	w.core, err = session.New[testkit.World](session.Config[uint16]{Players: 2, Capacity: 16, InputDelay: 1}, testkit.Simulate)
	require.NoError(t, err)
	w.packBuf = make([]byte, 0, codec.InputsHeaderLen+16*2*2)

	w.pkt = make([]byte, 0, wire.MaxPacket)
	w.inputs = make([]byte, 64*2*2)
	w.outIn = make([]byte, wire.MaxFrames*wire.MaxPlayers*wire.MaxInputSize)
	w.status = make([]wire.PeerStatus, wire.MaxPlayers)

	w.x, err = w.net.Endpoint("x")
	require.NoError(t, err)
	w.y, err = w.net.Endpoint("y")
	require.NoError(t, err)
	w.dgram = make([]byte, transport.MaxDatagram)
	w.recv = make([]byte, transport.MaxDatagram)
	return w
}

// fail reports a broken invariant without allocating on the happy path.
func (w *t6World) fail(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf(format, args...)
}

func (w *t6World) do(k t6Kind) {
	switch k {
	case t6P2PTick:
		w.tickP2P()
	case t6Ring:
		w.opRing()
	case t6BytesRing:
		w.opBytesRing()
	case t6Core:
		w.opCore()
	case t6Pack:
		w.opPack()
	case t6Codec:
		w.opCodec()
	case t6Datagram:
		w.opDatagram()
	}
}

// tickP2P is one 60 Hz tick of both peers and the spectator.
func (w *t6World) tickP2P() {
	w.clock.Advance(time.Second / 60)
	for i, p := range w.peers {
		if w.rng.IntN(8) == 0 {
			w.in[i] = uint16(w.rng.Uint32())
		}
		var err error
		if p.WaitRecommendation() > 0 {
			err = p.Poll()
		} else {
			if err = p.AddLocalInput(i, w.in[i]); err != nil {
				w.fail("peer %d AddLocalInput: %v", i, err)
			}
			err = p.AdvanceFrame()
			if err == nil && i == 0 {
				w.frames++
			}
		}
		if err != nil && !errors.Is(err, p2p.ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) {
			w.fail("peer %d: %v", i, err)
		}
		w.drainEvents(p.Events(w.events[:0]))
	}
	err := w.spec.AdvanceFrame()
	if err != nil && !errors.Is(err, p2p.ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) {
		w.fail("spectator: %v", err)
	}
	w.drainEvents(w.spec.Events(w.events[:0]))
}

func (w *t6World) drainEvents(evs []rollnet.Event) {
	for i := range evs {
		switch evs[i].Kind {
		case rollnet.EventDesyncDetected, rollnet.EventSyncFailed, rollnet.EventDisconnected:
			w.fail("P2P event %v", evs[i])
		}
	}
}

func (w *t6World) opRing() {
	r := w.ring
	switch w.rng.IntN(6) {
	case 0, 1, 2:
		l := r.Live()
		l.Frame++
		l.Acc[w.rng.IntN(4)] ^= w.rng.Uint32()
		r.Commit()
	case 3:
		if d := r.Depth(); d > 0 {
			n := w.rng.IntN(d)
			want, _ := r.ChecksumAt(n)
			if err := r.Rollback(n); err != nil {
				w.fail("ring Rollback(%d): %v", n, err)
			}
			if got := r.Checksum(); got != want {
				w.fail("ring rolled back to %08x, want %08x", got, want)
			}
		}
	case 4:
		if d := r.Depth(); d > 0 {
			p, err := r.Peek(w.rng.IntN(d))
			if err != nil || p == nil {
				w.fail("ring Peek: %v", err)
			}
		}
		if _, err := r.Peek(r.Capacity()); err == nil {
			w.fail("ring Peek(capacity) succeeded")
		}
	case 5:
		if w.rng.IntN(50) == 0 {
			r.Reset()
		}
		_ = r.Checksum()
	}
}

func (w *t6World) opBytesRing() {
	r := w.bytesRing
	switch w.rng.IntN(5) {
	case 0, 1, 2:
		l := r.Live()
		l[w.rng.IntN(len(l))]++
		r.Commit()
	case 3:
		if d := r.Depth(); d > 1 {
			n := 1 + w.rng.IntN(d-1)
			want, _ := r.Peek(n)
			sum := rollback.Checksum(want)
			if err := r.Rollback(n); err != nil {
				w.fail("bytes Rollback(%d): %v", n, err)
			}
			if got := r.Checksum(); got != sum {
				w.fail("bytes rolled back to %08x, want %08x", got, sum)
			}
		}
	case 4:
		if d := r.Depth(); d > 0 {
			if _, err := r.ChecksumAt(w.rng.IntN(d)); err != nil {
				w.fail("bytes ChecksumAt: %v", err)
			}
		}
	}
}

// opCore steps the core session once. Player 0 is local; player 1's inputs
// arrive zero to three frames late, and one in eight differs from the
// prediction, so the session rolls back.
func (w *t6World) opCore() {
	c := w.core
	if err := c.AddLocalInput(0, uint16(w.rng.Uint32())); err != nil {
		w.fail("core AddLocalInput: %v", err)
	}
	upto := c.Frame() - rollnet.Frame(w.rng.IntN(4))
	for ; w.remoteNext <= upto; w.remoteNext++ {
		if w.rng.IntN(8) == 0 {
			w.remoteIn = uint16(w.rng.Uint32())
		}
		if err := c.AddRemoteInput(1, w.remoteNext, w.remoteIn); err != nil {
			w.fail("core AddRemoteInput(%d): %v", w.remoteNext, err)
		}
	}
	if err := c.AdvanceFrame(); err != nil && !errors.Is(err, session.ErrPredictionLimit) {
		w.fail("core Step: %v", err)
	}
}

// opPack packs the core session's newest confirmed frames in the plain
// format and parses them back.
func (w *t6World) opPack() {
	c := w.core
	f := c.ConfirmedFrame()
	if f < 0 || f < c.Frame()-8 {
		return
	}
	n := 1 + w.rng.IntN(4)
	b, err := c.PackInputs(w.packBuf[:0], f, n, 0b11)
	if err != nil {
		return // the frame left the window since: allowed, and must not allocate
	}
	w.packed++
	base, mask, block, err := codec.ParseInputs(b)
	if err != nil || base != uint32(f) || mask != 0b11 || len(block)%4 != 0 {
		w.fail("ParseInputs of PackInputs: base %d mask %b len %d: %v", base, mask, len(block), err)
	}
}

// opCodec encodes one message of a random type, parses it back and compares,
// then parses a truncated copy, which must fail.
func (w *t6World) opCodec() {
	seq := uint16(w.rng.Uint32())
	b := w.pkt[:0]
	var err error
	switch w.rng.IntN(5) {
	case 0:
		frames := 1 + w.rng.IntN(16)
		in := w.inputs[:frames*2*2]
		for i := range in {
			if w.rng.IntN(4) == 0 {
				in[i] = byte(w.rng.Uint32())
			}
		}
		m := wire.Input{Seq: seq, Ack: int32(w.rng.IntN(1000)) - 1, Start: int32(w.rng.IntN(1 << 20)),
			Frames: frames, Players: 0b11, Size: 2, Inputs: in}
		b = m.Append(b)
		got := wire.Input{Size: 2}
		if _, err = wire.ParseInput(b, &got, w.outIn, w.status); err != nil ||
			got.Seq != m.Seq || got.Ack != m.Ack || got.Start != m.Start || got.Frames != m.Frames ||
			got.Players != m.Players || !bytes.Equal(got.Inputs, m.Inputs) {
			w.fail("Input round trip: %v", err)
		}
		if _, err = wire.ParseInput(b[:len(b)-1], &got, w.outIn, w.status); err == nil {
			w.fail("truncated Input parsed")
		}
	case 1:
		m := wire.SyncRequest{Seq: seq, Nonce: w.rng.Uint64(), Protocol: 1, Settings: w.rng.Uint64()}
		b = m.Append(b)
		got, _, err := wire.ParseSyncRequest(b)
		if err != nil || got != m {
			w.fail("SyncRequest round trip: %v", err)
		}
		if _, _, err = wire.ParseSyncRequest(b[:len(b)-1]); err == nil {
			w.fail("truncated SyncRequest parsed")
		}
	case 2:
		m := wire.QualityReport{Seq: seq, FrameAdvantage: int32(w.rng.IntN(41)) - 20, Ping: w.rng.Uint64() >> 8}
		b = m.Append(b)
		got, _, err := wire.ParseQualityReport(b)
		if err != nil || got != m {
			w.fail("QualityReport round trip: %v", err)
		}
		if _, _, err = wire.ParseQualityReport(b[:len(b)-1]); err == nil {
			w.fail("truncated QualityReport parsed")
		}
	case 3:
		m := wire.Checksum{Seq: seq, Frame: int32(w.rng.IntN(1 << 24)), Checksum: w.rng.Uint32()}
		b = m.Append(b)
		got, _, err := wire.ParseChecksum(b)
		if err != nil || got != m {
			w.fail("Checksum round trip: %v", err)
		}
		if _, _, err = wire.ParseChecksum(b[:len(b)-1]); err == nil {
			w.fail("truncated Checksum parsed")
		}
	case 4:
		m := wire.InputAck{Seq: seq, Ack: int32(w.rng.IntN(1<<16)) - 1}
		b = m.Append(b)
		got, _, err := wire.ParseInputAck(b)
		if err != nil || got != m {
			w.fail("InputAck round trip: %v", err)
		}
		// Garbage: a header with a wrong version.
		b[0] ^= 0xf0
		if _, _, err = wire.ParseInputAck(b); err == nil {
			w.fail("InputAck with a wrong version parsed")
		}
	}
}

// opDatagram sends a few datagrams x → y (and one back) over the impaired
// network and receives whatever is due, checking that what arrives is whole.
func (w *t6World) opDatagram() {
	for range 1 + w.rng.IntN(3) {
		n := 8 + w.rng.IntN(transport.MaxDatagram-7)
		d := w.dgram[:n]
		d[0], d[1] = byte(n), byte(n>>8)
		for i := 2; i < n; i += 97 {
			d[i] = byte(i + n)
		}
		if err := w.x.Send("y", d); err != nil {
			w.fail("x.Send: %v", err)
		}
	}
	if err := w.y.Send("x", w.dgram[:16]); err != nil {
		w.fail("y.Send: %v", err)
	}
	w.clock.Advance(time.Duration(w.rng.IntN(20)) * time.Millisecond)
	for {
		n, from, err := w.y.Receive(w.recv)
		if errors.Is(err, transport.ErrNoPacket) {
			break
		}
		if err != nil || from != "x" || n != int(w.recv[0])|int(w.recv[1])<<8 {
			w.fail("y.Receive: %d bytes from %q: %v", n, from, err)
		}
	}
	for {
		if _, _, err := w.x.Receive(w.recv); err != nil {
			break
		}
	}
}

// draw returns n operation kinds: P2P ticks about a quarter of the time,
// the rest spread over the other kinds.
func t6Draw(rng *rand.Rand, n int) []t6Kind {
	ks := make([]t6Kind, n)
	for i := range ks {
		if rng.IntN(4) == 0 {
			ks[i] = t6P2PTick
		} else {
			ks[i] = t6Kind(1 + rng.IntN(int(t6Kinds)-1))
		}
	}
	return ks
}

// mallocs counts the heap allocations f makes, the runtime's own included.
func mallocs(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

var t6RuntimeCache = map[string]bool{
	"runtime.buildTypeAssertCache":      true,
	"runtime.buildInterfaceSwitchCache": true,
}

// t6Allocs runs f with every allocation profiled and returns the
// allocations whose call stack passes through rollnet code (this test's
// operations included), as readable stacks with counts. The runtime's own
// background allocations (the scavenger growing its timer heap, say) count
// in MemStats.Mallocs but not here: they are not ours to fix.
func t6Allocs(f func()) (n int64, report string) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	snapshot := func() map[[32]uintptr]int64 {
		// The profile is published at the end of a GC cycle, up to two
		// cycles late.
		runtime.GC()
		runtime.GC()
		var recs []runtime.MemProfileRecord
		n, _ := runtime.MemProfile(nil, true)
		for {
			recs = make([]runtime.MemProfileRecord, n+64)
			var ok bool
			if n, ok = runtime.MemProfile(recs, true); ok {
				recs = recs[:n]
				break
			}
		}
		m := make(map[[32]uintptr]int64, len(recs))
		for _, r := range recs {
			m[r.Stack0] += r.AllocObjects
		}
		return m
	}
	before := snapshot()
	f()
	after := snapshot()
	for stack, c := range after {
		d := c - before[stack]
		if d <= 0 {
			continue
		}
		var lines []string
		ours := false
		frames := runtime.CallersFrames(stack[:])
		for {
			fr, more := frames.Next()
			if t6RuntimeCache[fr.Function] {
				// The runtime filling its type-assertion caches the first
				// time a dynamic type reaches an assertion site: bounded by
				// the number of types, not ours.
				ours = false
				break
			}
			if fr.Function != "" {
				lines = append(lines, "      "+fr.Function)
				if strings.HasPrefix(fr.Function, "github.com/rollnet/rollnet/") &&
					!strings.Contains(fr.Function, "torture.t6Allocs") && !strings.Contains(fr.Function, "torture.TestT6") {
					ours = true
				}
			}
			if !more {
				break
			}
		}
		if ours {
			n += d
			report += fmt.Sprintf("\n  %d allocations at\n%s", d, strings.Join(lines, "\n"))
		}
	}
	return n, report
}

func TestT6AllocsMixed(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	seed := baseSeed()
	w := newT6World(t, seed)

	// Warm up: the handshake (which may allocate, once), then every kind of
	// operation until its buffers have reached their steady size.
	for range 600 {
		w.tickP2P()
	}
	require.True(t, w.peers[0].Running() && w.peers[1].Running(), "peers not synchronized after 10 s")
	require.Greater(t, w.frames, 300, "peers barely advanced during warm-up")
	for k := t6Ring; k < t6Kinds; k++ {
		for range 500 {
			w.do(k)
		}
	}

	ops := t6Draw(w.rng, scaled(t6Ops))
	var count [t6Kinds]int
	for _, k := range ops {
		count[k]++
	}
	framesBefore := w.frames

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var total uint64
	n, report := t6Allocs(func() {
		total = mallocs(func() {
			for _, k := range ops {
				w.do(k)
			}
		})
	})
	if n != 0 {
		t.Fatalf("seed %d: %d allocations in rollnet code in %d mixed operations (%d by the whole process):%s",
			seed, n, len(ops), total, report)
	}

	// The work was real: the peers advanced and agree.
	advanced := w.frames - framesBefore
	require.Greater(t, advanced, count[t6P2PTick]/2, "P2P peers advanced %d frames in %d ticks", advanced, count[t6P2PTick])
	f := min(w.peers[0].ConfirmedFrame(), w.peers[1].ConfirmedFrame(), w.peers[0].Frame()-1, w.peers[1].Frame()-1)
	a, errA := w.peers[0].ChecksumAt(f)
	b, errB := w.peers[1].ChecksumAt(f)
	require.NoError(t, errA)
	require.NoError(t, errB)
	require.Equal(t, a, b, "peers disagree at frame %d", f)
	cs := w.core.Stats()
	require.NotZero(t, cs.Rollbacks, "the core session never rolled back")
	require.Zero(t, cs.Desyncs)
	require.Greater(t, w.packed, count[t6Pack]/2, "PackInputs mostly failed")
	st := w.net.LinkStats("x", "y")
	require.NotZero(t, st.Delivered)
	require.NotZero(t, st.Lost+st.Duplicated)
	perKind := ""
	for k := range t6Kinds {
		perKind += fmt.Sprintf(" %s %d,", t6Names[k], count[k])
	}
	t.Logf("seed %d: %d operations (%s), 0 allocations in rollnet code (%d by the runtime); %d P2P frames; core %+v; x→y %+v",
		seed, len(ops), strings.TrimSuffix(perKind[1:], ","), total, advanced, cs, st)
}
