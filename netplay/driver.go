package netplay

import (
	"fmt"
	"strings"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/transport"
)

// driver is one role's session under a Match: a P2P player (p2pDriver),
// a spectator (spectatorDriver), an authoritative host (hostDriver) or
// client (clientDriver). The Match greets, reads netplay's messages and
// keeps the Status and the News; the driver builds its session once the
// peers it needs are heard, runs it, and reports what the Match shows.
// A Match holds one, chosen once the transport is up (kind.choose), and
// asks it; nothing else in netplay looks at the mode.
type driver[S any, I comparable] interface {
	// mode is the driver's mode, greetsAs the role its hellos announce.
	mode() Mode
	greetsAs() greeting.Role
	// awaits names what the match waits for while connecting (for
	// ErrTimeout).
	awaits() string

	// check refuses the peer whose hello pe just brought, if its room or
	// settings cannot be this driver's (it fails this peer alone: see
	// Match.check); admit takes the hello into the running match.
	check(pe *peer) error
	admit(pe *peer)
	// connect builds the session once the peers it needs are heard
	// (nothing while they are not); built reports whether it exists.
	connect() error
	built() bool

	// tick runs one frame: in is this player's input. It folds the
	// session's events, drained into m.evs, into the Status.
	tick(in I, now time.Time) error
	state() *S
	frame() rollnet.Frame
	playout() (a, b *S, alpha float64, ok bool)
	// checksum is ConfirmedChecksum's; checksumAt ChecksumAt's.
	checksum() (rollnet.Frame, uint32, bool)
	checksumAt(frame rollnet.Frame) (uint32, error)
	// stats fills s with the session's figures and returns the peer whose
	// network round trip Stats reads ("" for none).
	stats(s Stats) (Stats, transport.Peer)
	// token is this player's rejoin token, once the session has one.
	token() (Token, bool)

	// seatOf is the seat of a message's sender (-1: none); seatPeer the
	// transport id of the player in seat ("" if unknown or this one's);
	// rosterFrom the only peer whose roster this driver takes ("": none).
	seatOf(pe *peer, from transport.Peer) int
	seatPeer(seat int) transport.Peer
	rosterFrom() transport.Peer
	parseRoster(b []byte) error

	close()

	// sessions is the session this driver runs, for internal/netplayhatch
	// (the other fields nil). A method, not a type assertion on the
	// driver: an assertion in any of Match's methods puts every driver in
	// Match's generic dictionary, and so links both modes into a game
	// that uses one (the browser pong grew by 100 KB gzipped).
	sessions() sessions[S, I]
}

// sessions is what a driver runs: one of its fields is set.
type sessions[S any, I comparable] struct {
	p  *p2p.Session[S, I]
	sp *p2p.Spectator[S, I]
	h  *authority.Host[S, I]
	c  *authority.Client[S, I]
}

// kind is how a constructor's match chooses its driver, and what it does
// before it has one.
type kind[S any, I comparable] struct {
	mode               Mode // asked: 0 for HostOrConnect until the room says
	minSeats, maxSeats int  // Config.Players' range
	listen             bool // Config.LocalPlayers may be 1
	rejoin             Mode // a stored token of this mode rejoins; 0: none is loaded
	proposes           bool // measures and proposes an input delay
	entities           bool // the entity mode (Entities)
	// choose is the driver, once the transport is up: first says whether
	// the room was empty as this peer joined.
	choose func(m *Match[S, I], first bool) driver[S, I]
	// lagcomp is LagComp's simulate (nil: none), maxRewind its bound.
	lagcomp   func(*S, []I, rollnet.Frame, *authority.Sights[S])
	maxRewind time.Duration
}

// p2pSeats is the most P2P seats (an authoritative host's slots:
// wire.MaxPlayers).
const p2pSeats = 8

// foldEvent folds one event into the status, and tells News: what every
// mode does alike.
func (m *Match[S, I]) foldEvent(ev rollnet.Event, f rollnet.Frame) {
	switch ev.Kind {
	case rollnet.EventNetworkInterrupted:
		m.st.Interrupted = m.nameOf(ev.Peer)
		m.until.interrupted = m.cfg.Now().Add(ev.Timeout)
		m.silence(ev)
	case rollnet.EventNetworkResumed:
		m.resumed(ev)
		delete(m.story.silent, ev.Peer)
	case rollnet.EventDisconnected:
		m.resumed(ev)
	case rollnet.EventPlayerDisconnected:
		m.away(ev, 0)
	case rollnet.EventPlayerRejoining:
		if ev.Player != m.seat && ev.Player >= 0 && ev.Player < len(m.names) {
			m.tell("%s is rejoining at frame %d", m.names[ev.Player], ev.Frame)
		}
	case rollnet.EventPlayerRejoined:
		if m.back(ev) {
			m.story.rejoins++
			m.story.dropped = ""
			m.tell("%s rejoined at frame %d", m.names[ev.Player], ev.Frame)
		}
	case rollnet.EventPlayerAwaited:
		m.tell("waiting at frame %d for %s to come back (Absence freeze)", ev.Frame, m.seatLabel(ev.Player))
	case rollnet.EventPlayerDropped:
		m.tell("%s did not come back in time: the match resumes at frame %d without them", m.seatLabel(ev.Player), ev.Frame)
	case rollnet.EventPlayerForfeited:
		m.tell("%s forfeited by leaving: the match stops at frame %d", m.seatLabel(ev.Player), ev.Frame)
		m.st.Away = m.seatLabel(ev.Player)
	case rollnet.EventDesyncRepaired:
		m.repaired(ev)
	case rollnet.EventDesyncDetected:
		if m.st.Desync == "" {
			m.story.firstDesync = ev.Frame
			m.st.Desync = fmt.Sprintf("frame %d: checksum %08x here, %08x at %s; the simulations parted after frame %d",
				ev.Frame, ev.Local, ev.Remote, m.nameOf(ev.Peer), ev.Agreed)
		}
	}
}

// repairedFor is how long Status.Repaired says a repair.
const repairedFor = 5 * time.Second

// repaired tells of a desync repaired (EventDesyncRepaired): this peer's
// state (ev.Reason names the fields), or a peer's, which agrees again; a
// P2P spectator's (Player -1) names the peer, its host or the spectator.
func (m *Match[S, I]) repaired(ev rollnet.Event) {
	m.story.repairs++
	who := fmt.Sprintf("seat %d (%s)", ev.Player, m.seatLabel(ev.Player))
	if ev.Player < 0 {
		who = m.nameOf(ev.Peer) // a spectator's host, or a spectator of ours
	}
	if ev.Reason != "" {
		// The fields' line names the source by its transport id: by its
		// name here, as the rest of the line does.
		fields := ev.Reason
		if name := m.nameOf(ev.Peer); name != string(ev.Peer) {
			fields = strings.ReplaceAll(fields, " at peer "+string(ev.Peer), " at "+name)
		}
		m.st.Repaired = fmt.Sprintf("desync at frame %d repaired from %s in %d ms; %s", ev.Frame, who, ev.Timeout.Milliseconds(), fields)
	} else {
		m.st.Repaired = fmt.Sprintf("desync at frame %d with %s repaired in %d ms", ev.Frame, who, ev.Timeout.Milliseconds())
	}
	m.st.Desync = "" // the match is whole again
	m.until.repaired = m.cfg.Now().Add(repairedFor)
	m.tell("%s", m.st.Repaired)
}

// resumed clears Status.Interrupted if it names ev's peer.
func (m *Match[S, I]) resumed(ev rollnet.Event) {
	if m.st.Interrupted == m.nameOf(ev.Peer) {
		m.st.Interrupted = ""
	}
}

// away marks ev's player gone, for window (0: it will not come back).
func (m *Match[S, I]) away(ev rollnet.Event, window time.Duration) {
	if ev.Player < 0 || ev.Player >= len(m.gone) {
		return
	}
	m.gone[ev.Player] = true
	m.st.Away = m.names[ev.Player]
	if m.st.Away == "" {
		m.st.Away = fmt.Sprintf("player %d", ev.Player+1)
	}
	m.until.away = m.cfg.Now().Add(window)
}

// seatLabel is the name of the player at seat (one not named yet:
// "player N").
func (m *Match[S, I]) seatLabel(seat int) string {
	if seat >= 0 && seat < len(m.names) && m.names[seat] != "" {
		return m.names[seat]
	}
	return seatLabels[min(max(seat, 0), len(seatLabels)-1)]
}

// seatLabels name the players without a name, without allocating.
var seatLabels = [...]string{"player 1", "player 2", "player 3", "player 4", "player 5", "player 6", "player 7", "player 8", "a player"}

// back marks ev's player back, and reports whether it had a seat.
func (m *Match[S, I]) back(ev rollnet.Event) bool {
	if ev.Player < 0 || ev.Player >= len(m.gone) {
		return false
	}
	m.gone[ev.Player] = false
	if m.st.Away == m.names[ev.Player] {
		m.st.Away = ""
	}
	return true
}

// sumLink adds a link's figures to s, and keeps in far the peer of the
// longest round trip.
func sumLink(s *Stats, far *transport.Peer, ps rollnet.PeerStats) {
	if ps.RTT >= s.RTT && ps.Peer != "" {
		s.RTT, *far = ps.RTT, ps.Peer
	}
	s.BytesSent += ps.BytesSent
	s.BytesReceived += ps.BytesReceived
	s.Compared += ps.ChecksumsCompared
	s.Agreed += ps.ChecksumsAgreed
}
