package sendqueue

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
)

// drain pops every datagram (none stale before notBefore) and returns
// them as strings, and the stale count.
func drain(q *Queue, notBefore int64) (got []string, stale int) {
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, s, ok := q.Pop(buf, notBefore)
		stale += s
		if !ok {
			return got, stale
		}
		got = append(got, string(buf[:n]))
	}
}

func TestPush(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pushes []string // "B..." is pushed bulk
		want   []Result
		queued []string
	}{
		{"under the limit, in order", []string{"s1", "i1", "s2"}, []Result{Queued, Queued, Queued}, []string{"s1", "i1", "s2"}},
		{"the newest state supersedes the oldest waiting one",
			[]string{"s1", "i1", "s2", "s3", "s4"}, []Result{Queued, Queued, Queued, Superseded, Superseded},
			[]string{"i1", "s3", "s4"}},
		{"no datagram of its kind waits: the oldest is pushed out",
			[]string{"s1", "i1", "k1", "x1"}, []Result{Queued, Queued, Queued, PushedOut}, []string{"i1", "k1", "x1"}},
		{"bulk datagrams are neither superseded nor pushed out",
			[]string{"Bs", "Bi", "Bk", "s1", "i1"}, []Result{Queued, Queued, Queued, Refused, Refused},
			[]string{"Bs", "Bi", "Bk"}},
		{"past the bulk ones, the oldest of another kind",
			[]string{"Bs", "i1", "k1", "x1"}, []Result{Queued, Queued, Queued, PushedOut}, []string{"Bs", "k1", "x1"}},
		// The player host's queue when its process starved (a quality
		// reply behind three states, then a netplay message): the reply was
		// pushed out, stale, while two newer states than the oldest waited.
		{"none of its kind: the oldest a newer one of its kind follows is superseded",
			[]string{"r1", "s1", "s2", "a1"}, []Result{Queued, Queued, Queued, Superseded}, []string{"r1", "s2", "a1"}},
		// netplay's messages share a first byte (the wire's TypeApp, 0x10)
		// and carry their kind in the second: a game's message (4) is not
		// a ping (2).
		{"a ping does not supersede a game's message",
			[]string{"\x10\x04m", "s1", "s2", "\x10\x02p"}, []Result{Queued, Queued, Queued, Superseded}, []string{"\x10\x04m", "s2", "\x10\x02p"}},
		{"a ping supersedes a ping",
			[]string{"\x10\x02p1", "s1", "k1", "\x10\x02p2"}, []Result{Queued, Queued, Queued, Superseded}, []string{"s1", "k1", "\x10\x02p2"}},
		{"past the bulk ones too",
			[]string{"Bs", "k1", "k2", "x1"}, []Result{Queued, Queued, Queued, Superseded}, []string{"Bs", "k2", "x1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := New(8)
			for i, p := range tc.pushes {
				if p[0] == 'B' {
					require.Equal(t, tc.want[i] == Queued, q.PushBulk([]byte(p), 8, 0), "push %d", i)
					continue
				}
				require.Equal(t, tc.want[i], q.Push([]byte(p), 3, 0), "push %d", i)
			}
			got, stale := drain(q, 0)
			require.Equal(t, tc.queued, got)
			require.Zero(t, stale)
		})
	}
}

// TestPopDropsStale: what waited past the age limit is dropped on the way
// out and counted, bulk datagrams aside; a superseding datagram is as old
// as itself, not as the one it replaced.
func TestPopDropsStale(t *testing.T) {
	q := New(4)
	q.Push([]byte("s1"), 3, 10)
	require.True(t, q.PushBulk([]byte("b1"), 4, 10))
	q.Push([]byte("i1"), 3, 20)
	require.Equal(t, Superseded, q.Push([]byte("s2"), 3, 30))
	require.Equal(t, PushedOut, q.Push([]byte("k1"), 3, 40)) // i1
	got, stale := drain(q, 35)
	require.Equal(t, []string{"b1", "k1"}, got)
	require.Equal(t, 1, stale, "s2, pushed at 30")
	require.Zero(t, q.Len())
}

func TestWrapsAround(t *testing.T) {
	q := New(3)
	buf := make([]byte, transport.MaxDatagram)
	for i := range 10 {
		require.Equal(t, Queued, q.Push([]byte{'a' + byte(i)}, 3, 0))
		require.Equal(t, Queued, q.Push([]byte{'A' + byte(i)}, 3, 0))
		require.Equal(t, Superseded, q.Push([]byte{'a' + byte(i), 1}, 2, 0))
		n, _, ok := q.Pop(buf, 0)
		require.True(t, ok)
		require.Equal(t, []byte{'A' + byte(i)}, buf[:n])
		n, _, ok = q.Pop(buf, 0)
		require.True(t, ok)
		require.Equal(t, []byte{'a' + byte(i), 1}, buf[:n])
	}
	select {
	case <-q.Wake:
	default:
		t.Fatal("no wake")
	}
}

func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	q := New(4)
	pkt, other := make([]byte, 64), make([]byte, 64)
	other[0] = 1
	buf := make([]byte, transport.MaxDatagram)
	allocs.RequireZero(t, 1000, func() {
		for range 6 {
			q.Push(pkt, 4, 1)
		}
		q.Push(other, 4, 1) // none of its kind: the oldest of another kind a newer one follows
		q.PushBulk(pkt, 4, 1)
		for {
			if _, _, ok := q.Pop(buf, 0); !ok {
				break
			}
		}
	})
}
