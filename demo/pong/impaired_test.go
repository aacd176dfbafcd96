package main

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
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
		require.Zero(t, im.lost())
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
		require.Equal(t, 4000, n+im.lost())
		require.InDelta(t, 1000, im.lost(), 150)
		require.NoError(t, im.Close())
		require.NoError(t, im.Close())
		require.ErrorIs(t, im.Send("you", []byte("x")), transport.ErrClosed)
		require.ErrorIs(t, im.Send("you", make([]byte, transport.MaxDatagram+1)), transport.ErrTooLarge)
	})
}
