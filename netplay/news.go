package netplay

import (
	"cmp"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/transport"
)

// Stats is a match's figures so far, for a HUD or a closing report: the
// session's counts and the link's, in one value for every mode (see
// Match.Stats for what each mode fills).
type Stats struct {
	// Rollbacks counts rollbacks (an authoritative client's: host states
	// that differed from its prediction), Resimulated the frames they
	// simulated again, DeepestRollback the most frames one went back.
	Rollbacks, Resimulated uint64
	DeepestRollback        int
	// RollbacksPerSecond is the rollbacks of about the last second, for a
	// network graph (sampled by AdvanceFrame).
	RollbacksPerSecond float64

	// RTT is the round trip through both game loops (the session's, to the
	// slowest peer); NetworkRTT the network's own (WebRTC's ICE, QUIC's;
	// 0 while unknown and over transport/udp) and Route the path to that
	// peer ("" while unknown), read at most once a second: over WebRTC
	// the candidate pair ICE selected ("direct", "stun", "relay ..."), over
	// QUIC "direct quic to ADDR" (or "webtransport"), over transport/udp
	// "direct udp to ADDR", ADDR the peer's address as this end sees it.
	RTT, NetworkRTT time.Duration
	Route           string
	// Opened is how long after the transport was up (the room joined) the
	// first channel to a peer opened; 0 while none has.
	Opened time.Duration

	// Compared counts the checksums compared with the peers (P2P: the
	// confirmed frames every NetConfig.ChecksumInterval; a spectator: with
	// its host; an authoritative client: the host states that carried a
	// checksum it checked), Agreed those that were equal, FirstDesync the
	// first frame found to differ (NoFrame if none).
	Compared, Agreed uint64
	FirstDesync      rollnet.Frame
	// Repairs counts the desyncs repaired (P2P: this peer's state, or a
	// peer's or a spectator's that agrees again; a spectator's: its own,
	// from its host's state; see Config.NoRepair).
	Repairs int

	// BytesSent and BytesReceived are the session's totals with its peers.
	BytesSent, BytesReceived uint64

	// Spectators counts the spectators that joined (P2P seat 0), Rejoins
	// the players (or clients) that came back.
	Spectators, Rejoins int

	// Malformed counts netplay's own messages dropped because they did not
	// decode.
	Malformed uint64

	// Strangers counts the peers of a P2P room (or spectator's) whose
	// claim was refused because they are not matched with this one: a
	// member that came after the match's players and said it was a host,
	// had other settings, or wanted a seat already taken (see the package
	// documentation). Each was ignored and disconnected; it fails itself.
	Strangers uint64

	// Rebuilds counts, in an entity match (EntityConfig), the client's
	// entity sets rebuilt after a digest mismatch (a host: over its
	// clients). HeldBack counts, on an entity host over its clients, the
	// ticks a client's entity update was held back because its link is
	// slower than EntityConfig.BytesPerSecond and the updates queued on
	// the way (authority/entity, "A slow link").
	Rebuilds, HeldBack uint64

	// Lag compensation on a host (LagComp, EntityConfig.MaxRewind), over
	// its clients: Rewinds counts the sights resolved (the whole world's
	// Sights.Of) or entities decoded as a player saw them (Match.Seen);
	// SightsTooOld the inputs whose sight was older than
	// MaxRewind (moved up to it: a peeker gains no more), SightsTooNew
	// those naming a tick never sent (moved down to the newest sent), and
	// SightJumps those whose render time jumped more than two ticks
	// against the client's previous input's.
	Rewinds, SightsTooOld, SightsTooNew, SightJumps uint64

	// Input timing. On an entity host (EntityConfig), over its clients:
	// InputsLate counts the inputs that arrived after their tick
	// went without them, InputsTooEarly those refused because more than
	// the backlog the client's link allows were waiting (both dropped),
	// InputsSkipped the inputs missing when needed while newer ones had
	// come, and InputsHeld the ticks a client's next input had not come
	// (each time its last input was applied again, which its prediction
	// did not do). On an authoritative client (entities or the whole
	// world): InputLead is how early its inputs reach the host, in ticks
	// (smoothed; entities: how many were waiting when the host needed
	// one), and TimeScale the rate its ticks run at, the host's advice
	// (1.05: 5% fast) to keep that lead a little over 1.
	InputsLate, InputsTooEarly, InputsSkipped, InputsHeld uint64
	InputLead, TimeScale                                  float64

	// Placement is the fleet's answer for a match started with
	// Config.Fleet (its host, address and room; Grant cleared: used), once
	// the match is placed; zero (Host "") before, and for a match not
	// placed by a fleet.
	Placement fleet.Reply

	// InputDelay is a P2P match's input delay now, in frames, and
	// DelayChanges how many times it changed following the network
	// (DelayBounds.Follow).
	InputDelay   int
	DelayChanges uint64
}

// maxNews bounds News: a match that tells more keeps its first lines.
const maxNews = 500

// News is the match's story so far, oldest first, a line each in
// netplay's words: who joined and when, a player who quit or vanished
// and for how long it may rejoin, its return ("rejoined at frame R:
// replayed N frames in T" for this player's own), a spectator's coming
// and going (and, a spectator's own, when it caught up), an
// authoritative client's slot. The lines are written when
// the thing happens, never per frame (reading News allocates nothing); a
// game prints News()[n:] for the n lines it has shown. At most 500 lines.
func (m *Match[S, I]) News() []string { return m.story.news }

func (m *Match[S, I]) tell(format string, args ...any) {
	if len(m.story.news) < maxNews {
		m.story.news = append(m.story.news, fmt.Sprintf(format, args...))
	}
}

// story is the match's story and figures: News, and what Stats adds to
// the driver's.
type story struct {
	news         []string
	opened       time.Duration // from the transport up to the first channel open
	netAt        time.Time     // when PeerInfo was last read
	netRTT       time.Duration
	route        string
	firstDesync  rollnet.Frame
	repairs      int // Stats.Repairs
	spectators   int
	rejoins      int
	silent       map[transport.Peer]time.Time // peers interrupted, since when silent
	dropped      string                       // the player last dropped, while it may come back
	malformed    uint64                       // netplay messages that did not decode
	strangers    uint64                       // Stats.Strangers
	delay        int                          // the P2P input delay since it last changed (with delayChanges > 0)
	delayChanges uint64
	delayFrom    rollnet.Frame // the frame the change under way began at, NoFrame none
	delayWas     int           // the delay before it
	rbAt         [8]time.Time  // the rollback count's samples, an eighth of a second apart
	rbN          [8]int
	rbI          int
}

// delayChanged folds a step of the P2P input delay following the network,
// and tells News once the change is over: "input delay 2 -> 10 frames at
// frame F" (a shrink: "from frame F to G", a frame every two ticks).
func (m *Match[S, I]) delayChanged(ev rollnet.Event) {
	st := &m.story
	if st.delayFrom == rollnet.NoFrame {
		st.delayFrom, st.delayWas = ev.Frame, ev.Count
	}
	st.delay = ev.Frames
	st.delayChanges++
	if ev.Frames != ev.Total {
		return // a shrink goes on
	}
	if st.delayFrom == ev.Frame {
		m.tell("input delay %d -> %d frames at frame %d", st.delayWas, ev.Frames, ev.Frame)
	} else {
		m.tell("input delay %d -> %d frames from frame %d to %d", st.delayWas, ev.Frames, st.delayFrom, ev.Frame)
	}
	st.delayFrom = rollnet.NoFrame
}

// sampleRollbacks keeps the rollback count n for RollbacksPerSecond.
func (s *story) sampleRollbacks(now time.Time, n int) {
	if now.Sub(s.rbAt[s.rbI]) >= time.Second/8 {
		s.rbI = (s.rbI + 1) % len(s.rbAt)
		s.rbAt[s.rbI] = now
	}
	s.rbN[s.rbI] = n
}

// rollbacksPerSecond is the rollbacks of about the last second.
func (s *story) rollbacksPerSecond() float64 {
	if old := (s.rbI + 1) % len(s.rbAt); !s.rbAt[old].IsZero() && s.rbAt[s.rbI].After(s.rbAt[old]) {
		return float64(s.rbN[s.rbI]-s.rbN[old]) / s.rbAt[s.rbI].Sub(s.rbAt[old]).Seconds()
	}
	return 0
}

// Stats is the match's figures so far: the P2P session's with its players
// (summed, the slowest one's round trip), a spectator's with its host,
// a host's with its clients, an authoritative client's with its host.
func (m *Match[S, I]) Stats() Stats {
	st := &m.story
	s := Stats{Opened: st.opened, FirstDesync: st.firstDesync, Repairs: st.repairs, Spectators: st.spectators, Rejoins: st.rejoins, Malformed: st.malformed, Strangers: st.strangers}
	var far transport.Peer // the peer whose network round trip is asked for
	if m.built() {
		s, far = m.d.stats(s)
	}
	if pr, ok := m.pathReporter(); ok && far != "" {
		if now := m.cfg.Now(); now.Sub(st.netAt) >= time.Second {
			st.netAt = now
			if info, err := pr.Path(far); err == nil {
				st.netRTT = cmp.Or(info.RTT, st.netRTT)
				// A reading that does not know the first hop's protocol
				// yet (a relay's comes from statistics that can lag) does
				// not replace one that did.
				if info.Route != "" && (!info.Partial || st.route == "") {
					st.route = info.Route
				}
			}
		}
	}
	s.NetworkRTT, s.Route = st.netRTT, st.route
	s.RollbacksPerSecond = st.rollbacksPerSecond()
	if m.link.placed != nil {
		s.Placement = m.link.placed.Reply
		s.Placement.Grant = "" // used: nothing to show
	}
	return s
}

// pathReporter is what reports the path to the peers: the room (WebRTC's,
// under Tuning.Impair's wrapper), else the match's transport (QUIC's and
// transport/udp's, through the wrapper), when it is one.
func (m *Match[S, I]) pathReporter() (transport.PathReporter, bool) {
	if m.link.rm != nil {
		pr, ok := m.link.rm.(transport.PathReporter)
		return pr, ok
	}
	pr, ok := m.link.tr.(transport.PathReporter)
	return pr, ok
}

// noteOpen sets Opened once a channel to a peer is open.
func (m *Match[S, I]) noteOpen(now time.Time) {
	if m.story.opened != 0 || m.link.rm == nil {
		return
	}
	var open [1]transport.Peer
	if len(m.link.rm.Peers(open[:0])) > 0 {
		m.story.opened = max(now.Sub(m.link.upAt), time.Millisecond)
	}
}

// left tells how the peer id, who, left at frame f: it quit (its notice
// came), or it dropped (it was silent first, for how long), then what
// may follow.
func (m *Match[S, I]) left(id transport.Peer, who string, f rollnet.Frame, then string) {
	if since, ok := m.story.silent[id]; ok {
		delete(m.story.silent, id)
		m.tell("%s dropped at frame %d (nothing heard for %v)%s", who, f, m.cfg.Now().Sub(since).Round(100*time.Millisecond), then)
		return
	}
	m.tell("%s quit at frame %d%s", who, f, then)
}

// silence notes, at EventNetworkInterrupted, since when the peer is
// silent: the disconnect timeout less the time it has left.
func (m *Match[S, I]) silence(ev rollnet.Event) {
	if m.story.silent == nil {
		m.story.silent = make(map[transport.Peer]time.Time)
	}
	m.story.silent[ev.Peer] = m.cfg.Now().Add(ev.Timeout - cmp.Or(m.cfg.Tuning.Net.DisconnectTimeout, 5*time.Second))
}
