package impair_test

import (
	"encoding/binary"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/linkmodel"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/local"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pair is two endpoints of a perfect local network on the wall clock
// (fake inside synctest), a wrapped in cfg.
func pair(t *testing.T, cfg impair.Config) (impair.Transport, local.Endpoint) {
	t.Helper()
	net, err := local.NewNetwork(local.Config{})
	require.NoError(t, err)
	a, err := net.Endpoint("a")
	require.NoError(t, err)
	b, err := net.Endpoint("b")
	require.NoError(t, err)
	ia, err := impair.New(a, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ia.Close(); _ = b.Close() })
	return ia, b
}

func seqOf(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

func send(t *testing.T, tr transport.Transport, to transport.Peer, seq uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], seq)
	require.NoError(t, tr.Send(to, b[:]))
}

// drain receives everything due now.
func drain(tr transport.Transport, got func(seq uint32, from transport.Peer)) {
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, from, err := tr.Receive(buf)
		if err != nil {
			return
		}
		got(seqOf(buf[:n]), from)
	}
}

// nasty has every impairment the model knows.
var nasty = local.Link{
	Latency: 80 * time.Millisecond, Jitter: 20 * time.Millisecond,
	Loss: 0.03, Burst: local.Burst{Enter: 0.02, Leave: 0.3},
	Duplicate: 0.05, Reorder: 0.05,
}

// TestSameModelAsLocal checks that each datagram's fate is the one a
// local Network's model of the same link and seed draws: the wrapper applies local's
// model on the wall clock, it does not have one of its own. Both ways.
func TestSameModelAsLocal(t *testing.T) {
	for _, dir := range []string{"out", "in"} {
		t.Run(dir, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const seed, count = 7, 2000
				cfg := impair.Config{Seed: seed}
				var me string
				if dir == "out" {
					cfg.Out, me = nasty, "a"
				} else {
					cfg.In, me = nasty, "b"
				}
				net, err := local.NewNetwork(local.Config{})
				require.NoError(t, err)
				a, err := net.Endpoint("a")
				require.NoError(t, err)
				b, err := net.Endpoint("b")
				require.NoError(t, err)
				var snd, rcv transport.Transport = a, b
				wrapped := a
				if dir == "in" {
					wrapped = b
				}
				w, err := impair.New(wrapped, cfg)
				require.NoError(t, err)
				defer w.Close()
				if dir == "out" {
					snd = w
				} else {
					rcv = w
				}

				// The fates the model draws, and so the deliveries due.
				l, err := impair.ModelOf(nasty).Validate()
				require.NoError(t, err)
				m := linkmodel.New(l, linkmodel.Seed(seed, me, dir))
				want := map[uint32][]time.Duration{}
				start := time.Now()
				for i := range uint32(count) {
					f := m.Next()
					sent := time.Duration(i) * time.Millisecond
					if dir == "in" {
						// The in direction's delay starts when Receive first
						// sees the datagram: the poll a millisecond on.
						sent += time.Millisecond
					}
					if !f.Lost {
						want[i] = append(want[i], sent+f.Delay)
						if f.Duplicate {
							want[i] = append(want[i], sent+f.DuplicateDelay)
						}
					}
				}
				got := map[uint32][]time.Duration{}
				record := func(seq uint32, from transport.Peer) {
					require.Equal(t, transport.Peer("a"), from)
					got[seq] = append(got[seq], time.Since(start))
				}
				for i := range uint32(count) {
					send(t, snd, "b", i)
					time.Sleep(time.Millisecond)
					synctest.Wait()
					drain(rcv, record)
				}
				for range 400 { // the longest delay is 100 ms + the reorder delay
					time.Sleep(time.Millisecond)
					synctest.Wait()
					drain(rcv, record)
				}
				require.Equal(t, len(want), len(got), "datagrams delivered")
				for seq, at := range want {
					g := got[seq]
					require.Len(t, g, len(at), "copies of datagram %d", seq)
					for k := range at {
						// Received at the first poll at or after the delivery
						// time: within a millisecond of it (copies may swap).
						require.True(t, g[k] >= at[k] && g[k] < at[k]+time.Millisecond ||
							len(at) == 2 && g[1-k] >= at[k] && g[1-k] < at[k]+time.Millisecond,
							"datagram %d due at %v, received at %v", seq, at, g)
					}
				}
				s := w.Stats()
				if dir == "out" {
					require.EqualValues(t, count, s.Sent+s.LostOut-s.DuplicatedOut)
				} else {
					require.EqualValues(t, count, s.Received+s.LostIn-s.DuplicatedIn)
				}
				require.Zero(t, s.HeldOut+s.HeldIn)
			})
		})
	}
}

func TestLatencyBothWays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ia, b := pair(t, impair.Config{Out: local.Link{Latency: 50 * time.Millisecond}, In: local.Link{Latency: 30 * time.Millisecond}})
		var got []uint32
		rec := func(seq uint32, _ transport.Peer) { got = append(got, seq) }
		send(t, ia, "b", 1)
		time.Sleep(49 * time.Millisecond)
		synctest.Wait()
		drain(b, rec)
		require.Empty(t, got, "delivered before the 50 ms latency")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		drain(b, rec)
		require.Equal(t, []uint32{1}, got)

		send(t, b, "a", 2) // b's link is perfect: waiting in a's endpoint at once
		drain(ia, rec)     // the wrapper takes it in: due in 30 ms
		time.Sleep(29 * time.Millisecond)
		drain(ia, rec)
		require.Equal(t, []uint32{1}, got, "received before the 30 ms latency")
		time.Sleep(time.Millisecond)
		drain(ia, rec)
		require.Equal(t, []uint32{1, 2}, got)
	})
}

// stream sends n numbered datagrams through link, one a millisecond, and
// returns the order they arrived in.
func stream(t *testing.T, link local.Link, n uint32) []uint32 {
	ia, b := pair(t, impair.Config{Out: link, Seed: 3})
	var got []uint32
	rec := func(seq uint32, _ transport.Peer) { got = append(got, seq) }
	for i := range n {
		send(t, ia, "b", i)
		time.Sleep(time.Millisecond)
		synctest.Wait()
		drain(b, rec)
	}
	time.Sleep(100 * time.Millisecond)
	synctest.Wait()
	drain(b, rec)
	require.Len(t, got, int(n))
	return got
}

func TestOrdered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		got := stream(t, local.Link{Latency: 40 * time.Millisecond, Jitter: 30 * time.Millisecond, Ordered: true}, 500)
		for i, s := range got {
			require.EqualValues(t, i, s, "out of order at %d", i)
		}
	})
}

func TestJitterReorders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		got := stream(t, local.Link{Latency: 40 * time.Millisecond, Jitter: 30 * time.Millisecond}, 200)
		swaps := 0
		for i := 1; i < len(got); i++ {
			if got[i] < got[i-1] {
				swaps++
			}
		}
		require.Greater(t, swaps, 10, "jitter of 30 ms over 1 ms spacing reorders")
	})
}

func TestQueueFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ia, b := pair(t, impair.Config{Out: local.Link{Latency: 10 * time.Millisecond}, In: local.Link{Latency: 10 * time.Millisecond}, QueueLen: 4})
		for i := range uint32(10) {
			send(t, ia, "b", i)
			send(t, b, "a", i)
		}
		drain(ia, func(uint32, transport.Peer) {})
		s := ia.Stats()
		require.EqualValues(t, 12, s.DroppedFull)
		require.Equal(t, 4, s.HeldOut)
		require.Equal(t, 4, s.HeldIn)
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		n := 0
		drain(b, func(uint32, transport.Peer) { n++ })
		drain(ia, func(uint32, transport.Peer) { n++ })
		require.Equal(t, 8, n)
	})
}

func TestShortBufferAndTooLarge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ia, b := pair(t, impair.Config{})
		require.ErrorIs(t, ia.Send("b", make([]byte, transport.MaxDatagram+1)), transport.ErrTooLarge)
		require.NoError(t, b.Send("a", make([]byte, 100)))
		_, _, err := ia.Receive(make([]byte, 10))
		require.ErrorIs(t, err, transport.ErrShortBuffer)
		_, _, err = ia.Receive(make([]byte, 100))
		require.ErrorIs(t, err, transport.ErrNoPacket, "the short-buffer datagram is dropped")
	})
}

func TestCloseClosesInner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ia, _ := pair(t, impair.Config{Out: local.Link{Latency: time.Second}})
		send(t, ia, "b", 1)
		require.NoError(t, ia.Close())
		require.NoError(t, ia.Close())
		require.ErrorIs(t, ia.Send("b", []byte{1}), transport.ErrClosed)
		_, _, err := ia.Receive(make([]byte, 10))
		require.ErrorIs(t, err, transport.ErrClosed)
		require.ErrorIs(t, impair.Inner(ia).Send("b", []byte{1}), transport.ErrClosed, "the wrapped transport is closed too")
	})
}

func TestExpectForwarded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ia, b := pair(t, impair.Config{})
		ia.Expect("c")
		require.NoError(t, b.Send("a", []byte{1, 0, 0, 0}))
		_, _, err := ia.Receive(make([]byte, 10))
		require.ErrorIs(t, err, transport.ErrNoPacket, "b is not expected by the wrapped endpoint")
		ia.ExpectAnyone()
		require.NoError(t, b.Send("a", []byte{1, 0, 0, 0}))
		_, from, err := ia.Receive(make([]byte, 10))
		require.NoError(t, err)
		require.Equal(t, transport.Peer("b"), from)
	})
}

func TestConfigRefused(t *testing.T) {
	net, err := local.NewNetwork(local.Config{})
	require.NoError(t, err)
	a, err := net.Endpoint("a")
	require.NoError(t, err)
	for _, cfg := range []impair.Config{
		{QueueLen: -1},
		{QueueLen: 1<<16 + 1},
		{Out: local.Link{Latency: time.Millisecond, Jitter: time.Second}},
		{In: local.Link{Loss: 2}},
	} {
		_, err := impair.New(a, cfg)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", cfg)
	}
	_, err = impair.New(nil, impair.Config{})
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = impair.New(a, impair.Config{In: local.Link{Loss: -1}})
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// TestAllocs holds, loses and duplicates datagrams both ways without
// allocating once the lines hold every buffer they can need (the wall
// clock: synctest's bubble allocates on its own). Each line makes its
// buffers as it first needs them, up to QueueLen+1: on a loaded machine
// more are held at once and a new high-water mark allocated one in 2,000
// steps, which AllocsPerRun's mean read as 0 and RequireZero does not.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	link := local.Link{Loss: 0.1, Duplicate: 0.2, Reorder: 0.2, ReorderDelay: time.Microsecond}
	ia, b := pair(t, impair.Config{Out: link, In: link, QueueLen: 64})
	msg := make([]byte, 200)
	buf := make([]byte, transport.MaxDatagram)
	step := func() {
		_ = ia.Send("b", msg)
		_ = b.Send("a", msg)
		for {
			if _, _, err := ia.Receive(buf); err != nil {
				break
			}
		}
		for {
			if _, _, err := b.Receive(buf); err != nil {
				break
			}
		}
	}
	impair.Prime(ia)
	for range 200 {
		step()
	}
	allocs.RequireZero(t, 2000, step, "a datagram each way, impaired")
}

// TestWrap: Config.Wrap is New behind an interface (netplay.Config.Impair
// holds it): a wrapped Transport, or New's refusal.
func TestWrap(t *testing.T) {
	net, err := local.NewNetwork(local.Config{})
	require.NoError(t, err)
	a, err := net.Endpoint("a")
	require.NoError(t, err)
	var w interface {
		Wrap(transport.Transport) (transport.Transport, error)
	} = &impair.Config{Seed: 1}
	tr, err := w.Wrap(a)
	require.NoError(t, err)
	it, ok := tr.(impair.Transport)
	require.True(t, ok, "Wrap returns the impair.Transport: %T", tr)
	require.Equal(t, a.Local(), it.Local())
	require.NoError(t, it.Close())
	_, err = (&impair.Config{QueueLen: -1}).Wrap(a)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}
