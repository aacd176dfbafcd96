package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/stretchr/testify/require"
)

// The feed on its own: what it sends next, when it goes back, when it
// sends the lost datagram again, and its budget, without a session.

func TestFeedNextWindowAndBudget(t *testing.T) {
	var f feed
	f.start(9, 0)
	start, end, ok := f.next(100)
	require.True(t, ok)
	require.Equal(t, rollnet.Frame(10), start)
	require.Equal(t, rollnet.Frame(100), end, "up to the newest frame")
	f.sent(10, 91, 500)
	_, _, ok = f.next(100)
	require.False(t, ok, "everything up to last is in flight")
	require.Equal(t, rollnet.Frame(100), f.high)

	f.start(9, 0)
	_, end, _ = f.next(100_000)
	require.Equal(t, rollnet.Frame(9+feedWindow), end, "no more than feedWindow past the ack")
	f.tokens = 0
	_, _, ok = f.next(100_000)
	require.False(t, ok, "the budget is spent")
	f.refill(int64(time.Second) / 60)
	require.Equal(t, int64(feedRate/60), f.tokens, "a tick's budget back")
	f.refill(int64(time.Hour))
	require.Equal(t, int64(feedBurst*wire.MaxPacket), f.tokens, "at most feedBurst packets banked")
}

func TestFeedRewindBacksOff(t *testing.T) {
	var f feed
	f.start(9, 0)
	f.sent(10, 100, 500)
	wait := int64(100)
	require.False(t, f.rewind(wait, wait), "not stalled yet")
	require.True(t, f.rewind(wait+1, wait), "stalled: back to the ack")
	require.Equal(t, rollnet.Frame(9), f.to)
	f.sent(10, 100, 500)
	require.False(t, f.rewind(wait+1+2*wait, wait), "the second wait is twice as long")
	require.True(t, f.rewind(wait+2+2*wait, wait))
	f.acked(50, 1000)
	require.Equal(t, 0, f.backs, "progress resets the back-off")
	require.False(t, f.rewind(1000+wait, wait))
}

func TestFeedLostOncePerWait(t *testing.T) {
	var f feed
	f.start(9, 0)
	f.sent(10, 100, 500)
	f.acked(20, 1)
	require.False(t, f.lost(2, 10), "one ack is no loss")
	f.acked(20, 2)
	f.acked(20, 3)
	require.True(t, f.lost(3, 10), "the ack repeated twice with frames in flight: the next datagram was lost")
	f.acked(20, 4)
	f.acked(20, 5)
	require.False(t, f.lost(5, 10), "sent again for this ack within a round trip")
	require.True(t, f.lost(14, 10), "and again a round trip later")
	f.acked(110, 20)
	f.acked(110, 21)
	f.acked(110, 22)
	require.False(t, f.lost(22, 10), "nothing in flight: nothing lost")
}

func TestArchive(t *testing.T) {
	a := newArchive(10, 2, 3, 1)
	require.Equal(t, 10, a.frames())
	require.True(t, a.holds(0, 2))
	require.False(t, a.holds(0, 3), "frame 2 not in yet")
	rows := map[rollnet.Frame][]byte{}
	get := func(f rollnet.Frame, pl int) ([]byte, bool) {
		if f > 5 {
			return nil, false
		}
		b := []byte{byte(f), byte(pl), 7}
		rows[f] = append(rows[f], b...)
		return b, true
	}
	a.fill(100, 2, get)
	require.Equal(t, rollnet.Frame(5), a.newest, "stops at the first frame not held")
	b, ok := a.input(4, 1)
	require.True(t, ok)
	require.Equal(t, []byte{4, 1, 7}, b)
	require.Equal(t, rows[3], a.span(3, 1))
	_, ok = a.input(6, 0)
	require.False(t, ok)
	_, ok = a.input(-1, 0)
	require.False(t, ok)

	full := newArchive(3, 1, 1, -1)
	full.fill(100, 1, func(rollnet.Frame, int) ([]byte, bool) { return []byte{1}, true })
	require.Equal(t, rollnet.Frame(2), full.newest, "stops when full")
	var none archive
	require.False(t, none.holds(0, 1))
	require.Equal(t, 0, none.frames())
}

func TestCatchRingOutOfOrder(t *testing.T) {
	c := newCatchRing(2, 1, 1)
	c.hold(4, []byte{4, 4})
	c.hold(3, []byte{3, 3})
	c.extend(100)
	require.Equal(t, rollnet.Frame(1), c.caught, "frame 2 missing: nothing contiguous")
	c.hold(2, []byte{2, 2})
	c.extend(4)
	require.Equal(t, rollnet.Frame(3), c.caught, "contiguous, below R")
	c.extend(100)
	require.Equal(t, rollnet.Frame(4), c.caught)
	require.Equal(t, []byte{3, 3}, c.row(3))
	c.hold(4+catchFrames, []byte{9, 9})
	c.extend(100 + catchFrames)
	require.Equal(t, rollnet.Frame(4), c.caught, "a frame a ring later does not count as the next")
}

func TestIdentityProves(t *testing.T) {
	n := uint64(0)
	id := newIdentity(func() uint64 { n++; return n * 0x9e3779b97f4a7c15 })
	_, ok := id.token()
	require.False(t, ok, "no match id yet")
	id.match, id.known = 42, true
	tok, ok := id.token()
	require.True(t, ok)
	require.Equal(t, uint64(42), tok.Match)
	key := id.keyFor(1 << 1)
	hash := sha256Of(key)
	m := id.request(1, key)
	require.True(t, id.proves(&hash, &m))
	m.Match ^= 1 << 40
	require.False(t, id.proves(&hash, &m), "another match")
	m = id.request(1, key)
	m.Secret[3] ^= 1
	require.False(t, id.proves(&hash, &m), "another key")
	m = id.request(1, id.keyFor(1<<2))
	require.False(t, id.proves(&hash, &m), "the key given another peer")
	m = id.request(1, id.secret)
	require.False(t, id.proves(&hash, &m), "the secret itself")
	require.NotEqual(t, id.keyFor(1<<1), id.keyFor(1<<2), "each peer its own key")
	require.NotEqual(t, id.joinProof(), id.keyFor(0), "a join proof is no key")
}

func TestRebindGateRefusals(t *testing.T) {
	var g rebindGate
	retry := int64(400)
	require.True(t, g.refuse(100, retry))
	require.False(t, g.refuse(199, retry), "at most four per SyncRetry")
	require.True(t, g.refuse(200, retry))
}
