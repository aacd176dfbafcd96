package netplay_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// lanRooms is a transport netplay does not know: a rendezvous service of
// rooms on a transport/local network (a transport.RoomDialer), whose
// members reach each other at once. Netplay finds it through Config.Rooms
// and the transport package's interfaces alone.
type lanRooms struct {
	net *local.Network

	mu      sync.Mutex
	n       int
	members map[string][]transport.Peer
}

func (r *lanRooms) DialRoom(_ context.Context, room string, _ func(transport.Peer) bool) (transport.Room, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	ep, err := r.net.Endpoint(fmt.Sprintf("peer%d", r.n))
	if err != nil {
		return nil, err
	}
	atJoin := slices.Clone(r.members[room])
	r.members[room] = append(r.members[room], ep.Local())
	return &lanRoom{Endpoint: ep, rooms: r, name: room, atJoin: atJoin}, nil
}

// lanRoom is one member's transport.Room.
type lanRoom struct {
	local.Endpoint
	rooms  *lanRooms
	name   string
	atJoin []transport.Peer
}

func (m *lanRoom) Name() string { return m.name }

func (m *lanRoom) AtJoin(dst []transport.Peer) []transport.Peer { return append(dst, m.atJoin...) }

func (m *lanRoom) Peers(dst []transport.Peer) []transport.Peer {
	m.rooms.mu.Lock()
	defer m.rooms.mu.Unlock()
	for _, p := range m.rooms.members[m.name] {
		if p != m.Local() {
			dst = append(dst, p)
		}
	}
	return dst
}

func (m *lanRoom) WaitPeers(ctx context.Context, n int) ([]transport.Peer, error) {
	if ps := m.Peers(nil); len(ps) >= n {
		return ps, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (m *lanRoom) Events(dst []transport.PeerEvent) []transport.PeerEvent { return dst }

// Arrived is the members that joined after this one, oldest first
// (transport.Arrivals).
func (m *lanRoom) Arrived(dst []transport.Peer) []transport.Peer {
	m.rooms.mu.Lock()
	defer m.rooms.mu.Unlock()
	ms := m.rooms.members[m.name]
	return append(dst, ms[slices.Index(ms, m.Local())+1:]...)
}

var _ transport.RoomDialer = (*lanRooms)(nil)

// TestRoomsOfAnotherTransport: a transport netplay was not written for
// (lanRooms) carries a P2P match and a listen host's, found through
// Config.Rooms: the players meet in the room, are seated, and agree; the
// room's first member hosts and the next connects.
func TestRoomsOfAnotherTransport(t *testing.T) {
	for _, c := range []struct {
		name  string
		modes [2]netplay.Mode
	}{
		{"join", [2]netplay.Mode{netplay.ModeP2P, netplay.ModeP2P}},
		{"host or connect", [2]netplay.Mode{netplay.ModeHost, netplay.ModeClient}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLAN(t, local.Link{})
			rooms := &lanRooms{net: l.net, members: map[string][]transport.Peer{}}
			var ps [2]*player
			for i, name := range []string{"alice", "bob"} {
				cfg := netplay.Config{Rooms: rooms, Room: "r", Players: 2, Name: name, Now: l.clock.Now}
				var m *netplay.Match[World, Buttons]
				var err error
				if c.modes[0] == netplay.ModeP2P {
					m, err = netplay.Join[World, Buttons](cfg, simulate)
				} else {
					m, err = netplay.HostOrConnect[World, Buttons](cfg, simulate)
				}
				require.NoError(t, err)
				t.Cleanup(func() { _ = m.Close() })
				ps[i] = &player{m: m}
				l.ms[name], l.order = ps[i], append(l.order, name)
				// alice is in the room before bob asks: her dial (on its
				// goroutine) has handed her match its transport. (Without
				// a tick: the fake clock stands still.)
				require.Eventually(t, func() bool {
					_, err := m.AdvanceFrame(0)
					require.NoError(t, err)
					return m.Room() != ""
				}, 10*time.Second, time.Millisecond, name+" in the room")
			}
			l.until(600, "both running past frame 120", func() bool {
				require.NoError(t, ps[0].err)
				require.NoError(t, ps[1].err)
				return ps[0].st.Phase == netplay.Running && ps[1].st.Phase == netplay.Running &&
					ps[0].st.Frame > 120 && ps[1].st.Frame > 120
			})
			require.NoError(t, ps[0].err)
			require.NoError(t, ps[1].err)
			for i, p := range ps {
				require.Equal(t, c.modes[i], p.m.Mode())
				require.Equal(t, "r", p.m.Room())
			}
			require.Equal(t, "bob", ps[0].m.Name(1), "alice knows bob by name")
			require.Equal(t, "alice", ps[1].m.Name(0))
		})
	}
}

// TestStrangerInTheRoom: a third member of an open room, come after the
// two players, sends each of them one hello claiming to be a host, to
// play other settings, or to take a third seat. The claim is a
// stranger's: both players ignore it, count it (Stats.Strangers), reach
// Running and agree on their checksums, as they do without it.
func TestStrangerInTheRoom(t *testing.T) {
	for _, c := range []struct {
		name  string
		hello greeting.Hello
	}{
		{"a host", greeting.Hello{Role: greeting.RoleHost, Players: 2, FrameRate: 60}},
		{"other settings", greeting.Hello{Role: greeting.RolePlayer, Players: 2, FrameRate: 60, Settings: 99}},
		{"a third seat", greeting.Hello{Role: greeting.RolePlayer, Players: 2, FrameRate: 60, Delay: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLAN(t, local.Link{Latency: 10 * time.Millisecond})
			rooms := &lanRooms{net: l.net, members: map[string][]transport.Peer{}}
			var ps [2]*player
			for i, name := range []string{"alice", "bob"} {
				m, err := netplay.Join[World, Buttons](netplay.Config{Rooms: rooms, Room: "open", Players: 2, Name: name, Now: l.clock.Now}, simulate)
				require.NoError(t, err)
				t.Cleanup(func() { _ = m.Close() })
				ps[i] = &player{m: m}
				l.ms[name], l.order = ps[i], append(l.order, name)
				require.Eventually(t, func() bool {
					_, err := m.AdvanceFrame(0)
					require.NoError(t, err)
					return m.Room() != ""
				}, 10*time.Second, time.Millisecond, name+" in the room")
			}
			mallory, err := rooms.DialRoom(context.Background(), "open", nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = mallory.Close() })
			h := c.hello
			h.Seat, h.Name = greeting.NoSeat, "mallory"
			for _, p := range ps {
				require.NoError(t, mallory.Send(p.m.Transport().Local(), h.Append(nil)))
			}
			var sums [2]uint32
			l.until(600, "both running, frame 120 confirmed on both", func() bool {
				for i, p := range ps {
					if s, err := p.m.ChecksumAt(120); err == nil && sums[i] == 0 {
						sums[i] = s
					}
				}
				return ps[0].err != nil || ps[1].err != nil || (sums[0] != 0 && sums[1] != 0)
			})
			running := 0
			for _, p := range ps {
				if p.err == nil && p.st.Phase == netplay.Running {
					running++
				}
			}
			t.Logf("stranger claiming %s: %d of 2 players reached Running", c.name, running)
			require.NoError(t, ps[0].err)
			require.NoError(t, ps[1].err)
			require.Equal(t, 2, running)
			require.Equal(t, sums[0], sums[1], "the players agree")
			for _, p := range ps {
				require.Equal(t, uint64(1), p.m.Stats().Strangers, "the claim counted once")
			}
		})
	}
}
