// Package transporttest holds the conformance checks every transport.Transport
// runs, so that the in-memory network and the WebRTC transport keep the same
// contract (see the transport package documentation).
//
// A transport's own test calls Run with a function that builds a fresh,
// connected Pair for each check:
//
//	func TestConformance(t *testing.T) {
//		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
//			a, b := connect(t) // two endpoints that know each other
//			t.Cleanup(func() { a.Close(); b.Close() })
//			return transporttest.Pair{A: a, B: b, Tick: advanceClock}
//		})
//	}
//
// The suite never sleeps: whenever it waits for a datagram it calls the
// pair's Tick between polls, which advances a fake clock or sleeps briefly on
// a real-time transport, and gives up after Patience ticks.
package transporttest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// defaultPatience is the number of ticks the suite waits for a datagram when
// Pair.Patience is zero.
const defaultPatience = 200

// BurstLen is the number of datagrams the Burst check sends back to back.
const BurstLen = 64

// Pair is two transports that know each other, built fresh for each check.
type Pair struct {
	// A and B are the two endpoints. Each must accept Send to the other's
	// Local() at once, without waiting for a first packet.
	A, B transport.Transport

	// Tick lets time pass while the suite polls for a datagram: a fake-clock
	// transport advances its clock (by less than its delivery delay or more,
	// either works), a real-time transport sleeps briefly. Required.
	Tick func()

	// Patience is how many Ticks the suite waits for an expected datagram
	// before it calls the datagram lost. Zero means 200.
	Patience int

	// Lossy is set for a pair whose link may lose, duplicate or reorder
	// datagrams. The suite then accepts losses (but insists that at least
	// one datagram of every burst arrives, that none arrives corrupted, and
	// that none arrives that was never sent). On a pair that is not Lossy
	// every datagram must arrive exactly once and in a quiet link's order.
	Lossy bool

	// Unknown is a peer identity that neither transport has ever known, for
	// the ErrUnknownPeer check. Zero means Peer("transporttest-nobody").
	Unknown transport.Peer
}

// Run runs every conformance check as a subtest, each on a fresh pair from
// newPair. newPair should register the pair's cleanup with t.Cleanup; the
// suite may Close either transport itself (Close is idempotent).
func Run(t *testing.T, newPair func(t *testing.T) Pair) {
	t.Helper()
	checks := []struct {
		name string
		fn   func(t *testing.T, p Pair)
	}{
		{"Identity", checkIdentity},
		{"NoPacket", checkNoPacket},
		{"RoundTrip", checkRoundTrip},
		{"MaxDatagram", checkMaxDatagram},
		{"TooLarge", checkTooLarge},
		{"ShortBuffer", checkShortBuffer},
		{"SendDoesNotRetain", checkSendDoesNotRetain},
		{"ReceiveDoesNotRetain", checkReceiveDoesNotRetain},
		{"UnknownPeer", checkUnknownPeer},
		{"Burst", checkBurst},
		{"Close", checkClose},
		{"SendToClosedPeer", checkSendToClosedPeer},
		{"Expect", checkExpect},
		{"PeerSet", checkPeerSet},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			p := newPair(t)
			require.NotNil(t, p.A, "Pair.A")
			require.NotNil(t, p.B, "Pair.B")
			require.NotNil(t, p.Tick, "Pair.Tick")
			if p.Patience == 0 {
				p.Patience = defaultPatience
			}
			if p.Unknown == "" {
				p.Unknown = "transporttest-nobody"
			}
			c.fn(t, p)
		})
	}
}

// datagram builds a self-checking datagram of size n (n >= 16): a 4-byte
// tag, a 4-byte length, a 4-byte CRC32-C of the payload, then a payload
// derived from tag. A datagram that arrives truncated, padded or with a
// flipped byte fails check.
func datagram(tag uint32, n int) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b[0:], tag)
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	x := tag*2654435761 + 1
	for i := 12; i < n; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	binary.LittleEndian.PutUint32(b[8:], crc32.Checksum(b[12:], castagnoli))
	return b
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// check reports whether b is a whole, uncorrupted datagram and returns its tag.
func check(b []byte) (tag uint32, ok bool) {
	if len(b) < 12 || int(binary.LittleEndian.Uint32(b[4:])) != len(b) {
		return 0, false
	}
	tag = binary.LittleEndian.Uint32(b[0:])
	return tag, bytes.Equal(b, datagram(tag, len(b)))
}

// receive polls r until a datagram arrives, calling Tick between polls, and
// fails the test after Patience ticks. It returns a copy of the datagram.
func receive(t *testing.T, p Pair, r transport.Transport) ([]byte, transport.Peer) {
	t.Helper()
	b, from, ok := tryReceive(t, p, r, make([]byte, transport.MaxDatagram))
	require.True(t, ok, "no datagram arrived within %d ticks", p.Patience)
	return b, from
}

// tryReceive is receive that reports a timeout instead of failing.
func tryReceive(t *testing.T, p Pair, r transport.Transport, buf []byte) ([]byte, transport.Peer, bool) {
	t.Helper()
	for range p.Patience + 1 {
		n, from, err := r.Receive(buf)
		if errors.Is(err, transport.ErrNoPacket) {
			require.Zero(t, n, "Receive returned ErrNoPacket with n != 0")
			p.Tick()
			continue
		}
		require.NoError(t, err, "Receive")
		require.LessOrEqual(t, n, len(buf), "Receive returned n beyond its buffer")
		return bytes.Clone(buf[:n]), from, true
	}
	return nil, "", false
}

// quiet ticks Patience times and fails if r receives anything meanwhile.
func quiet(t *testing.T, p Pair, r transport.Transport) {
	t.Helper()
	buf := make([]byte, transport.MaxDatagram)
	for range p.Patience {
		n, from, err := r.Receive(buf)
		require.ErrorIs(t, err, transport.ErrNoPacket,
			"%s received an unexpected %d-byte datagram from %q", r.Local(), n, from)
		p.Tick()
	}
}

// sameBytes fails unless got equals want, naming the first difference rather
// than printing both (a datagram is up to 1200 bytes).
func sameBytes(t *testing.T, want, got []byte, msg string) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	t.Fatalf("%s: want %d bytes, got %d, first difference at byte %d", msg, len(want), len(got), i)
}

func checkIdentity(t *testing.T, p Pair) {
	a, b := p.A.Local(), p.B.Local()
	require.NotEmpty(t, a, "A.Local() is the zero Peer")
	require.NotEmpty(t, b, "B.Local() is the zero Peer")
	require.NotEqual(t, a, b, "A and B have the same identity")
	require.Equal(t, a, p.A.Local(), "A.Local() is not stable")
	require.NotEqual(t, p.Unknown, a, "Pair.Unknown is A")
	require.NotEqual(t, p.Unknown, b, "Pair.Unknown is B")
}

func checkNoPacket(t *testing.T, p Pair) {
	buf := make([]byte, transport.MaxDatagram)
	for _, r := range []transport.Transport{p.A, p.B} {
		n, from, err := r.Receive(buf)
		require.ErrorIs(t, err, transport.ErrNoPacket, "%s: Receive on a fresh transport", r.Local())
		require.Zero(t, n)
		require.Empty(t, from)
	}
	// Still nothing after time passes, and nothing after a datagram is
	// drained: a transport does not invent datagrams.
	quiet(t, p, p.A)
	sendUntil(t, p, p.A, p.B, datagram(1, 32))
	if !p.Lossy {
		quiet(t, p, p.B)
		quiet(t, p, p.A)
	}
}

func checkRoundTrip(t *testing.T, p Pair) {
	sizes := []int{16, 17, 100, 513, 1024}
	for i, n := range sizes {
		ping := datagram(uint32(100+i), n)
		pong := datagram(uint32(200+i), sizes[len(sizes)-1-i])
		sendUntil(t, p, p.A, p.B, ping)
		sendUntil(t, p, p.B, p.A, pong)
	}
}

// sendUntil sends want from s to r and waits for it at r; on a Lossy pair it
// sends again when the datagram was lost. Other whole datagrams (duplicates
// of earlier ones) are skipped on a Lossy pair and fail the test otherwise.
func sendUntil(t *testing.T, p Pair, s, r transport.Transport, want []byte) {
	t.Helper()
	tries := 1
	if p.Lossy {
		tries = 20
	}
	buf := make([]byte, transport.MaxDatagram)
	for range tries {
		require.NoError(t, s.Send(r.Local(), want), "%s: Send", s.Local())
		for {
			got, from, ok := tryReceive(t, p, r, buf)
			if !ok {
				break
			}
			require.Equal(t, s.Local(), from, "%s: wrong sender", r.Local())
			_, whole := check(got)
			require.True(t, whole, "%s: received a corrupted %d-byte datagram", r.Local(), len(got))
			if bytes.Equal(got, want) {
				return
			}
			require.True(t, p.Lossy, "%s: received a datagram other than the one sent", r.Local())
		}
		require.True(t, p.Lossy, "%s: datagram from %s never arrived", r.Local(), s.Local())
	}
	t.Fatalf("%s: datagram from %s lost %d times in a row", r.Local(), s.Local(), tries)
}

func checkMaxDatagram(t *testing.T, p Pair) {
	sendUntil(t, p, p.A, p.B, datagram(7, transport.MaxDatagram))
	sendUntil(t, p, p.B, p.A, datagram(8, transport.MaxDatagram))
}

func checkTooLarge(t *testing.T, p Pair) {
	for _, n := range []int{transport.MaxDatagram + 1, 2 * transport.MaxDatagram, 65536} {
		err := p.A.Send(p.B.Local(), make([]byte, n))
		require.ErrorIs(t, err, transport.ErrTooLarge, "Send of %d bytes", n)
	}
	// Nothing of the refused datagrams arrives, and the transport still works.
	if !p.Lossy {
		quiet(t, p, p.B)
	}
	sendUntil(t, p, p.A, p.B, datagram(9, 64))
}

func checkShortBuffer(t *testing.T, p Pair) {
	big := datagram(10, 600)
	small := make([]byte, 100)
	if !p.Lossy {
		require.NoError(t, p.A.Send(p.B.Local(), big))
		var err error
		for range p.Patience + 1 {
			_, _, err = p.B.Receive(small)
			if !errors.Is(err, transport.ErrNoPacket) {
				break
			}
			p.Tick()
		}
		require.ErrorIs(t, err, transport.ErrShortBuffer, "Receive of a 600-byte datagram into 100 bytes")
		// The datagram that did not fit was dropped, not left queued.
		quiet(t, p, p.B)
	} else {
		// On a lossy link the big datagram may be lost or duplicated: send
		// until one short-buffer error is seen.
		seen := false
		for try := 0; try < 20 && !seen; try++ {
			require.NoError(t, p.A.Send(p.B.Local(), big))
			for range p.Patience + 1 {
				_, _, err := p.B.Receive(small)
				if errors.Is(err, transport.ErrNoPacket) {
					p.Tick()
					continue
				}
				require.ErrorIs(t, err, transport.ErrShortBuffer)
				seen = true
				break
			}
		}
		require.True(t, seen, "never saw ErrShortBuffer")
	}
	// The transport still works with a big enough buffer.
	sendUntil(t, p, p.A, p.B, datagram(11, 64))
}

func checkSendDoesNotRetain(t *testing.T, p Pair) {
	want := datagram(12, 300)
	buf := bytes.Clone(want)
	require.NoError(t, p.A.Send(p.B.Local(), buf))
	for i := range buf {
		buf[i] = ^buf[i]
	}
	if !p.Lossy {
		got, _ := receive(t, p, p.B)
		sameBytes(t, want, got, "the datagram changed after Send returned: Send kept the caller's buffer")
		return
	}
	// Lossy: whatever arrives must be the original bytes; resend a fresh
	// copy, mutated after each Send, until one arrives.
	for range 20 {
		got, _, ok := tryReceive(t, p, p.B, make([]byte, transport.MaxDatagram))
		if ok {
			sameBytes(t, want, got, "the datagram changed after Send returned: Send kept the caller's buffer")
			return
		}
		copy(buf, want)
		require.NoError(t, p.A.Send(p.B.Local(), buf))
		clear(buf)
	}
	t.Fatal("datagram lost 20 times in a row")
}

func checkReceiveDoesNotRetain(t *testing.T, p Pair) {
	first := datagram(13, 200)
	second := datagram(14, 200)
	buf1 := make([]byte, transport.MaxDatagram)
	buf2 := make([]byte, transport.MaxDatagram)
	var n1 int
	for range 20 {
		require.NoError(t, p.A.Send(p.B.Local(), first))
		got, _, ok := tryReceive(t, p, p.B, buf1)
		if ok && bytes.Equal(got, first) {
			n1 = len(got)
			break
		}
		require.True(t, p.Lossy, "first datagram did not arrive intact")
	}
	require.Equal(t, len(first), n1, "first datagram never arrived")
	snapshot := bytes.Clone(buf1)
	sendUntilInto(t, p, second, buf2)
	// A transport that kept buf1 (to decode into later, say) would have
	// written the second datagram over it.
	sameBytes(t, snapshot, buf1, "Receive wrote into an earlier caller buffer after returning")
}

// sendUntilInto sends want from A to B until B receives it into buf.
func sendUntilInto(t *testing.T, p Pair, want, buf []byte) {
	t.Helper()
	for range 20 {
		require.NoError(t, p.A.Send(p.B.Local(), want))
		for {
			got, _, ok := tryReceive(t, p, p.B, buf)
			if !ok {
				break
			}
			if bytes.Equal(got, want) {
				return
			}
			require.True(t, p.Lossy, "received a datagram other than the one sent")
		}
		require.True(t, p.Lossy, "datagram never arrived")
	}
	t.Fatal("datagram lost 20 times in a row")
}

func checkUnknownPeer(t *testing.T, p Pair) {
	err := p.A.Send(p.Unknown, datagram(15, 32))
	require.ErrorIs(t, err, transport.ErrUnknownPeer, "Send to a peer never known")
	err = p.A.Send("", datagram(15, 32))
	require.ErrorIs(t, err, transport.ErrUnknownPeer, "Send to the zero Peer")
	// The transport still works.
	sendUntil(t, p, p.A, p.B, datagram(16, 32))
}

func checkBurst(t *testing.T, p Pair) {
	for _, dir := range []struct {
		name string
		s, r transport.Transport
	}{{"AtoB", p.A, p.B}, {"BtoA", p.B, p.A}} {
		t.Run(dir.name, func(t *testing.T) {
			sent := make(map[uint32]bool, BurstLen)
			for i := range BurstLen {
				tag := uint32(1000 + i)
				n := 16 + (i*397)%(transport.MaxDatagram-16+1)
				if i == 0 {
					n = transport.MaxDatagram
				}
				require.NoError(t, dir.s.Send(dir.r.Local(), datagram(tag, n)), "Send %d of the burst", i)
				sent[tag] = true
			}
			got := make(map[uint32]int, BurstLen)
			var order []uint32
			buf := make([]byte, transport.MaxDatagram)
			for len(got) < BurstLen {
				b, from, ok := tryReceive(t, p, dir.r, buf)
				if !ok {
					break
				}
				require.Equal(t, dir.s.Local(), from, "wrong sender")
				tag, whole := check(b)
				require.True(t, whole, "datagram %d of the burst arrived corrupted or cut (%d bytes)", len(order), len(b))
				require.True(t, sent[tag], "received datagram %d that was never sent", tag)
				got[tag]++
				order = append(order, tag)
			}
			if p.Lossy {
				require.NotEmpty(t, got, "no datagram of a %d-datagram burst arrived", BurstLen)
				t.Logf("%d of %d distinct datagrams arrived, %d deliveries", len(got), BurstLen, len(order))
				return
			}
			require.Len(t, got, BurstLen, "datagrams lost from a burst on a quiet link")
			for tag, c := range got {
				require.Equal(t, 1, c, "datagram %d delivered %d times on a quiet link", tag, c)
			}
			quiet(t, p, dir.r)
		})
	}
}

func checkClose(t *testing.T, p Pair) {
	local := p.A.Local()
	require.NoError(t, p.A.Close(), "first Close")
	require.NotPanics(t, func() { _ = p.A.Close() }, "second Close")
	require.NoError(t, p.A.Close(), "Close after Close")
	require.Equal(t, local, p.A.Local(), "Local changed after Close")

	err := p.A.Send(p.B.Local(), datagram(17, 32))
	require.ErrorIs(t, err, transport.ErrClosed, "Send after Close")
	err = p.A.Send(p.A.Local(), make([]byte, transport.MaxDatagram+1))
	require.ErrorIs(t, err, transport.ErrClosed, "Send after Close takes precedence over ErrTooLarge")
	n, _, err := p.A.Receive(make([]byte, transport.MaxDatagram))
	require.ErrorIs(t, err, transport.ErrClosed, "Receive after Close")
	require.Zero(t, n)
}

func checkSendToClosedPeer(t *testing.T, p Pair) {
	// Datagrams waiting for A when it closes are discarded with it; B's
	// Sends to the closed A either succeed (the news has not reached B yet)
	// or fail with ErrPeerGone, never anything else, and never panic.
	require.NoError(t, p.B.Send(p.A.Local(), datagram(18, 32)))
	require.NoError(t, p.A.Close())
	for range p.Patience {
		err := p.B.Send(p.A.Local(), datagram(19, 32))
		if err != nil {
			require.ErrorIs(t, err, transport.ErrPeerGone, "Send to a closed peer")
			break
		}
		p.Tick()
	}
	// B itself is unharmed.
	_, _, err := p.B.Receive(make([]byte, transport.MaxDatagram))
	require.ErrorIs(t, err, transport.ErrNoPacket)
}

// checkExpect runs on a transport that implements transport.Expecter:
// naming the other side keeps its datagrams coming, naming nobody drops
// them (those waiting too), naming it again lets new ones through, and so
// does ExpectAnyone after naming nobody, until Expect closes the gate
// again. Send is unaffected throughout.
func checkExpect(t *testing.T, p Pair) {
	ea, ok := p.A.(transport.Expecter)
	if !ok {
		t.Skip("A does not implement transport.Expecter")
	}
	ea.Expect(p.B.Local(), p.Unknown)
	sendUntil(t, p, p.B, p.A, datagram(20, 32))

	// Waiting when A stops expecting B: dropped.
	require.NoError(t, p.B.Send(p.A.Local(), datagram(21, 32)))
	if !p.Lossy {
		// Let it arrive (a real transport needs time), then drop it.
		for range p.Patience / 4 {
			p.Tick()
		}
	}
	ea.Expect()
	quiet(t, p, p.A)
	// Arriving while B is not expected: dropped; A's own Send still works.
	require.NoError(t, p.B.Send(p.A.Local(), datagram(22, 32)))
	sendUntil(t, p, p.A, p.B, datagram(23, 32))
	quiet(t, p, p.A)

	ea.Expect(p.B.Local())
	sendUntil(t, p, p.B, p.A, datagram(24, 32))
	if !p.Lossy {
		quiet(t, p, p.A)
	}

	// A stranger again, then anyone: B's datagrams arrive though A never
	// named it, until A names only someone else.
	ea.Expect(p.Unknown)
	require.NoError(t, p.B.Send(p.A.Local(), datagram(25, 32)))
	sendUntil(t, p, p.A, p.B, datagram(26, 32))
	quiet(t, p, p.A)
	ea.ExpectAnyone()
	sendUntil(t, p, p.B, p.A, datagram(27, 32))
	if !p.Lossy {
		quiet(t, p, p.A)
	}
	require.NoError(t, p.B.Send(p.A.Local(), datagram(28, 32)))
	if !p.Lossy {
		for range p.Patience / 4 {
			p.Tick()
		}
	}
	ea.Expect(p.Unknown)
	quiet(t, p, p.A)
	require.NoError(t, p.B.Send(p.A.Local(), datagram(29, 32)))
	sendUntil(t, p, p.A, p.B, datagram(30, 32))
	quiet(t, p, p.A)
}

// checkPeerSet: when both transports are transport.PeerSets (skipped
// otherwise), each reports the other: Peers appends it to dst, sorted,
// WaitPeers returns it, and Events reported it connected, once (a second
// call has drained it). After Close, WaitPeers fails with ErrClosed.
func checkPeerSet(t *testing.T, p Pair) {
	a, okA := p.A.(transport.PeerSet)
	b, okB := p.B.(transport.PeerSet)
	if !okA || !okB {
		t.Skip("not transport.PeerSets")
	}
	for _, c := range []struct {
		name  string
		ps    transport.PeerSet
		other transport.Peer
	}{{"A", a, p.B.Local()}, {"B", b, p.A.Local()}} {
		connected := false
		for range p.Patience {
			if connected = slices.Contains(c.ps.Peers(nil), c.other); connected {
				break
			}
			p.Tick()
		}
		require.True(t, connected, "%s's Peers never named its peer %q", c.name, c.other)
		got := c.ps.Peers([]transport.Peer{"\x00dst"})
		require.Equal(t, transport.Peer("\x00dst"), got[0], "%s: Peers appends to dst", c.name)
		require.True(t, slices.IsSorted(got[1:]), "%s: Peers sorted", c.name)
		waited, err := c.ps.WaitPeers(context.Background(), len(got)-1)
		require.NoError(t, err, c.name)
		require.Contains(t, waited, c.other, "%s: WaitPeers", c.name)
		evs := c.ps.Events(nil)
		require.Contains(t, evs, transport.PeerEvent{Kind: transport.PeerConnected, Peer: c.other}, "%s: Events", c.name)
		require.NotContains(t, c.ps.Events(nil), transport.PeerEvent{Kind: transport.PeerConnected, Peer: c.other},
			"%s: a second Events finds again what the first drained", c.name)
	}
	require.NoError(t, p.A.Close())
	_, err := a.WaitPeers(context.Background(), 1<<20)
	require.ErrorIs(t, err, transport.ErrClosed, "WaitPeers after Close")
}
