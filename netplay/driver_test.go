package netplay

import (
	"time"

	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/transport"
)

// testMatch is a Match without a transport or a session, for the
// drivers' own tests: 2 players at 60 fps with settings 7.
func testMatch() *Match[int32, int8] {
	return &Match[int32, int8]{
		cfg:   Config{Players: 2, FrameRate: 60, Settings: 7, Now: time.Now},
		peers: peerSet{byID: map[transport.Peer]*peer{}},
		names: make([]string, 2),
		gone:  make([]bool, 2),
		seat:  -1,
	}
}

// heard adds a peer whose hello m heard: role, seat (greeting.NoSeat for
// none) and settings (7 is m's).
func heard(m *Match[int32, int8], id transport.Peer, r greeting.Role, seat uint8, settings uint64) *peer {
	pe := &peer{id: id, heard: true, h: greeting.Hello{
		Role: r, Seat: seat, Players: 2, FrameRate: 60, Settings: settings, Name: string(id), Flags: greeting.FlagStarted,
	}}
	m.peers.byID[id] = pe
	m.peers.order = append(m.peers.order, pe)
	return pe
}
