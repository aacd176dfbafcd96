package main

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// sink is a transport that records what is sent through it, with when.
type sink struct {
	mu   sync.Mutex
	sent []sent
}

type sent struct {
	at time.Time
	b  string
}

func (s *sink) Local() transport.Peer { return "me" }
func (s *sink) Send(_ transport.Peer, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, sent{time.Now(), string(b)})
	return nil
}
func (s *sink) Receive([]byte) (int, transport.Peer, error) { return 0, "", transport.ErrNoPacket }
func (s *sink) Close() error                                { return nil }

func (s *sink) all() []sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sent(nil), s.sent...)
}

func TestImpairedDelaysWithinJitter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := &sink{}
		im := newImpaired(in, impairment{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond}, 1)
		defer im.Close()
		start := time.Now()
		for i := range 200 {
			require.NoError(t, im.Send("you", []byte{byte(i)}))
		}
		time.Sleep(50 * time.Millisecond)
		synctest.Wait()
		require.Empty(t, in.all(), "nothing before latency-jitter")
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		got := in.all()
		require.Len(t, got, 200, "everything by latency+jitter")
		reordered := false
		for i, s := range got {
			d := s.at.Sub(start)
			require.GreaterOrEqual(t, d, 85*time.Millisecond)
			require.LessOrEqual(t, d, 115*time.Millisecond)
			if i > 0 && s.b < got[i-1].b {
				reordered = true
			}
		}
		require.True(t, reordered, "jitter reorders")
		lostIn, lostOut := im.lost()
		require.Zero(t, lostIn+lostOut)
	})
}

func TestImpairedLoses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := &sink{}
		im := newImpaired(in, impairment{Loss: 0.25}, 7)
		defer im.Close()
		for range 40 { // in batches under the delay line's bound
			for range 100 {
				require.NoError(t, im.Send("you", []byte("x")))
			}
			time.Sleep(time.Millisecond)
			synctest.Wait()
		}
		n := len(in.all())
		_, lost := im.lost()
		require.Equal(t, 4000, n+lost)
		require.InDelta(t, 1000, lost, 150)
		require.NoError(t, im.Close())
		require.NoError(t, im.Close())
		require.ErrorIs(t, im.Send("you", []byte("x")), transport.ErrClosed)
		require.ErrorIs(t, im.Send("you", make([]byte, transport.MaxDatagram+1)), transport.ErrTooLarge)
	})
}

// TestImpairedDelaysWhatArrives: what the other side sends is held back
// and lost like what this side sends, so -impair's rollbacks show on the
// screen of the player who asked for them.
func TestImpairedDelaysWhatArrives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ea, eb := localPair(t, local.Config{Seed: 1, Now: time.Now})
		im := newImpaired(ea, impairment{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.1}, 1)
		defer im.Close()
		buf := make([]byte, transport.MaxDatagram)
		start := time.Now()
		for i := range 200 { // under the local network's queue
			require.NoError(t, eb.Send("a", []byte{byte(i)}))
		}
		got := 0
		for time.Since(start) < 200*time.Millisecond {
			for {
				_, from, err := im.Receive(buf)
				if errors.Is(err, transport.ErrNoPacket) {
					break
				}
				require.NoError(t, err)
				require.Equal(t, transport.Peer("b"), from)
				d := time.Since(start)
				require.GreaterOrEqual(t, d, 85*time.Millisecond, "held back by latency-jitter")
				require.LessOrEqual(t, d, 116*time.Millisecond, "by latency+jitter (and a poll)")
				got++
			}
			time.Sleep(time.Millisecond)
		}
		in, out := im.lost()
		require.Zero(t, out)
		require.Equal(t, 200, got+in)
		require.InDelta(t, 20, in, 12, "about a tenth lost")
	})
}

// TestMostImpairedStillPlays: two players who both impair their links as
// much as -impair allows still complete the handshake (within the demo's
// sync timeout) and play.
func TestMostImpairedStillPlays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nw, err := local.NewNetwork(local.Config{Seed: 2, Now: time.Now})
		require.NoError(t, err)
		most := impairment{Latency: maxImpair - 100*time.Millisecond, Jitter: 100 * time.Millisecond, Loss: 0.05}
		var sides [2]*netMatch
		for i, name := range []transport.Peer{"left", "right"} {
			e, err := nw.Endpoint(string(name))
			require.NoError(t, err)
			defer e.Close()
			im := newImpaired(e, most, uint32(i))
			defer im.Close()
			o := options{delay: 2, fps: 60, seed: 5}
			r := rand.New(rand.NewPCG(5, uint64(i)))
			sides[i], err = newP2PMatch(im, []transport.Peer{"right", "left"}[i], i, o, time.Now, r.Uint64)
			require.NoError(t, err)
			defer sides[i].Close()
		}
		start := time.Now()
		for sides[0].p.Frame() < 60 || sides[1].p.Frame() < 60 {
			require.Less(t, time.Since(start), time.Minute, "frames %d, %d", sides[0].p.Frame(), sides[1].p.Frame())
			time.Sleep(time.Second / 60)
			for i, m := range sides {
				require.NoError(t, m.Tick(Bot(m.State(), i)))
			}
		}
		t.Logf("60 frames after %v at %v each way on both sides", time.Since(start), most)
	})
}

// TestImpairedAllocs: once its buffers are warm, holding datagrams back
// and handing them on, each way, allocates nothing.
func TestImpairedAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	clock := local.NewClock(time.Unix(1_700_000_000, 0))
	ea, eb := localPair(t, local.Config{Seed: 3, Now: clock.Now})
	im := newImpaired(ea, impairment{Loss: 0.1}, 1) // no latency: due at once
	defer im.Close()
	buf := make([]byte, transport.MaxDatagram)
	msg := []byte("a frame's inputs")
	sent := func() bool { // the delay line handed everything on
		im.mu.Lock()
		defer im.mu.Unlock()
		return len(im.out) == 0
	}
	round := func() {
		for range 8 {
			_ = eb.Send("a", msg)
			_ = im.Send("b", msg)
		}
		for !sent() {
			runtime.Gosched()
		}
		for {
			if _, _, err := im.Receive(buf); err != nil {
				break
			}
		}
		for {
			if _, _, err := eb.Receive(buf); err != nil {
				break
			}
		}
	}
	for range 100 {
		round()
	}
	allocs.RequireZero(t, 200, round)
}
