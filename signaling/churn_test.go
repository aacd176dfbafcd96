package signaling

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// member plays a room member as transport/webrtc does: it offers to every
// newcomer and sends it candidates, and reports the signals of others.
type member struct {
	c              *client.Client
	joined, left   atomic.Int32
	fromOthers     chan client.Event
	done           chan struct{}
	offersPerJoin  int
	unexpectedSend atomic.Value // error
}

func newMember(c *client.Client, offersPerJoin int) *member {
	m := &member{c: c, fromOthers: make(chan client.Event, 16), done: make(chan struct{}), offersPerJoin: offersPerJoin}
	go m.run()
	return m
}

func (m *member) run() {
	defer close(m.done)
	cand := client.Signal{Kind: client.SignalCandidate, Payload: json.RawMessage(`{"candidate":"candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host"}`)}
	for ev := range m.c.Events() {
		switch ev.Kind {
		case client.PeerJoined:
			for i := range m.offersPerJoin {
				s := cand
				if i == 0 {
					s = offer("to newcomer")
				}
				// The newcomer may be gone already (the client knows, or
				// the server refuses it): both are normal here.
				if err := m.c.Send(context.Background(), ev.Peer, s); err != nil && !errors.Is(err, client.ErrUnknownPeer) {
					m.unexpectedSend.Store(err)
				}
			}
			m.joined.Add(1)
		case client.PeerLeft:
			m.left.Add(1)
		case client.ServerError:
		default:
			m.fromOthers <- ev
		}
	}
}

func TestChurnDoesNotChargeMembers(t *testing.T) {
	const cycles = 14       // the room's join burst (16) less the two members
	clock := newFakeClock() // stands still: no bucket refills during the test
	h := start(t, ServerConfig{Now: clock.Now, Tuning: ServerTuning{MessageRate: 1, MessageBurst: 10}})
	a := newMember(h.dial("/room/match"), 6)
	b := newMember(h.dial("/room/match"), 6)
	// The two players meet: a offers to b, the newcomer.
	for range 6 {
		require.Equal(t, client.SignalReceived, (<-b.fromOthers).Kind)
	}

	// An attacker cycles join/leave: every join makes both members send 6
	// signals (60 each over the churn; their burst is 10). Half the time it
	// leaves before they are done, so some cross its peer-left.
	for i := range cycles {
		x := h.dial("/room/match")
		if i%2 == 0 {
			for range 2 * 6 {
				require.Equal(t, client.SignalReceived, next(t, x).Kind)
			}
		}
		require.NoError(t, x.Close())
		eventually(t, func() bool { return a.left.Load() == int32(i+1) && b.left.Load() == int32(i+1) }, "members heard the leave")
	}
	// The room's join rate is spent: the attacker is refused, not the members.
	_, err := h.tryDial("/room/match")
	require.ErrorIs(t, err, wire.ErrJoinRateLimited)
	var he *client.HTTPError
	require.ErrorAs(t, err, &he)
	require.Equal(t, http.StatusTooManyRequests, he.Status)

	require.Equal(t, uint64(0), h.srv.Stats().RateLimited, "no member was charged for the churn")
	require.Equal(t, int32(cycles+1), a.joined.Load(), "b, then the attacker")
	require.Equal(t, int32(cycles), b.joined.Load())
	require.Nil(t, a.unexpectedSend.Load())
	require.Nil(t, b.unexpectedSend.Load())
	// And the two still talk.
	send(t, b.c, a.c.ID(), offer("still here"))
	require.Equal(t, offer("still here"), recv(t, a.fromOthers, "a to receive b's offer").Signal)
	require.NoError(t, a.c.Close())
	require.NoError(t, b.c.Close())
	recv(t, a.done, "a's event loop to end")
	recv(t, b.done, "b's event loop to end")
	require.NoError(t, a.c.Err())
	require.NoError(t, b.c.Err())
}

func TestReplyAllowanceIsBounded(t *testing.T) {
	// Free replies grant nothing: two peers cannot trade signals past
	// their rate limits by answering each other.
	clock := newFakeClock()
	h := start(t, ServerConfig{Now: clock.Now, Tuning: ServerTuning{MessageRate: 1, MessageBurst: 4, ReplyAllowance: 2}})
	a := h.dial("/room/r")
	b := h.dial("/room/r")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	// a to the newcomer b: 2 free (b's join), then a's own 3 tokens (its
	// join took 1), then closed.
	for i := range 5 {
		send(t, a, b.ID(), offer("a"))
		require.Equal(t, client.SignalReceived, next(t, b).Kind, "signal %d", i)
	}
	send(t, a, b.ID(), offer("a"))
	require.ErrorIs(t, ended(t, a), wire.ErrRateLimited)

	// Ping-pong: d pays for each of its signals (its join took 1 of 4),
	// which lets c answer each free; c's free answers let d send nothing
	// free, so d is closed at its fourth.
	c := h.dial("/room/pp")
	d := h.dial("/room/pp")
	require.Equal(t, client.PeerJoined, next(t, c).Kind)
	for i := range 4 {
		send(t, c, d.ID(), offer("c"))
		require.Equal(t, client.SignalReceived, next(t, d).Kind)
		send(t, d, c.ID(), offer("d"))
		if i < 3 {
			require.Equal(t, client.SignalReceived, next(t, c).Kind, "round %d", i)
		}
	}
	require.ErrorIs(t, ended(t, d), wire.ErrRateLimited)
}

func TestJoinRateLimits(t *testing.T) {
	clock := newFakeClock()
	h := start(t, ServerConfig{
		Now:        clock.Now,
		ClientAddr: func(r *http.Request) string { return r.URL.Query().Get("as") },
		Tuning:     ServerTuning{JoinRate: 1, JoinBurst: 3, RoomJoinRate: 1, RoomJoinBurst: 4},
	})
	// Per address, across rooms.
	for i := range 3 {
		c := h.dial("/room/r" + string(rune('0'+i)) + "?as=x")
		require.NoError(t, c.Close())
	}
	_, err := h.tryDial("/room/other?as=x")
	require.ErrorIs(t, err, wire.ErrJoinRateLimited)
	require.NotErrorIs(t, err, client.ErrTooManyConnections)
	h.dial("/room/other?as=y") // another address is not affected
	clock.Advance(time.Second)
	h.dial("/room/other?as=x") // and the bucket refills

	// Per named room, across addresses (the second since, so room "r0"'s
	// bucket is full again).
	for _, as := range []string{"p", "q", "s", "u"} {
		h.dial("/room/r0?as=" + as)
	}
	_, err = h.tryDial("/room/r0?as=t")
	require.ErrorIs(t, err, wire.ErrJoinRateLimited)
	h.dial("/room/r1?as=t")
	// next=N grouping has no per-room join limit (its rooms do not outlive their filling).
	for _, as := range []string{"v", "w", "y", "z"} {
		h.dial("/room?next=2&as=" + as)
	}
}

var churnCycles = flag.Int("signal.churn", 300,
	"join/leave cycles in TestChurnBackToBaseline (the review ran 10,000)")

// TestChurnBackToBaseline: many join/leave cycles beside a room that
// stays, and the server is back where it started: no connection, room,
// allowance or goroutine left behind.
func TestChurnBackToBaseline(t *testing.T) {
	n := *churnCycles
	clock := newFakeClock()
	h := start(t, ServerConfig{Now: clock.Now, Tuning: ServerTuning{JoinBurst: n + 3, RoomJoinBurst: n + 3}})
	a := h.dial("/room/stay")
	base := runtime.NumGoroutine()
	for i := range n {
		x := h.dial("/room/stay")
		require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: x.ID()}, next(t, a))
		if i%2 == 0 {
			send(t, a, x.ID(), offer("hello"))
			require.Equal(t, client.SignalReceived, next(t, x).Kind)
		}
		require.NoError(t, x.Close())
		require.Equal(t, client.Event{Kind: client.PeerLeft, Peer: x.ID()}, next(t, a))
	}
	// Past the grace, the next leave forgets the departed peers' allowances.
	clock.Advance(replyGrace + time.Second)
	x := h.dial("/room/stay")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	require.NoError(t, x.Close())
	require.Equal(t, client.PeerLeft, next(t, a).Kind)
	eventually(t, func() bool { return h.srv.Stats().Connections == 1 }, "churners gone")
	// +1: require.Eventually runs the condition in a goroutine of its own.
	eventually(t, func() bool { return runtime.NumGoroutine() <= base+1 }, "goroutines back to baseline")
	h.srv.mu.Lock()
	require.Len(t, h.srv.rooms, 1)
	var allowances int
	for c := range h.srv.conns {
		allowances += len(c.replies)
	}
	h.srv.mu.Unlock()
	require.LessOrEqual(t, allowances, 1, "departed peers' allowances are forgotten after the grace")
}

func TestJoinRateLoopbackExempt(t *testing.T) {
	// From loopback (tests, the demo on one machine) only the per-room
	// limit applies.
	clock := newFakeClock()
	h := start(t, ServerConfig{Now: clock.Now, Tuning: ServerTuning{JoinBurst: 2}})
	for i := range 10 {
		c := h.dial("/room/l" + string(rune('0'+i)))
		require.NoError(t, c.Close())
	}
}
