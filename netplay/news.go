package netplay

import (
	"cmp"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
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
	// slowest peer); NetworkRTT the network's own (WebRTC's ICE, 0 while
	// unknown and without WebRTC) and Route the candidate pair ICE
	// selected to that peer ("" while unknown), read at most once a
	// second.
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

	// BytesSent and BytesReceived are the session's totals with its peers.
	BytesSent, BytesReceived uint64

	// Spectators counts the spectators that joined (P2P seat 0), Rejoins
	// the players (or clients) that came back.
	Spectators, Rejoins int
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
func (m *Match[S, I]) News() []string { return m.news }

func (m *Match[S, I]) tell(format string, args ...any) {
	if len(m.news) < maxNews {
		m.news = append(m.news, fmt.Sprintf(format, args...))
	}
}

// Stats is the match's figures so far: the P2P session's with its players
// (summed, the slowest one's round trip), a spectator's with its host,
// a host's with its clients, an authoritative client's with its host.
func (m *Match[S, I]) Stats() Stats {
	s := Stats{Opened: m.opened, FirstDesync: m.firstDesync, Spectators: m.spectators, Rejoins: m.rejoins}
	var far transport.Peer // the peer whose network round trip is asked for
	add := func(ps rollnet.PeerStats) {
		if ps.RTT >= s.RTT && ps.Peer != "" {
			s.RTT, far = ps.RTT, ps.Peer
		}
		s.BytesSent += ps.BytesSent
		s.BytesReceived += ps.BytesReceived
		s.Compared += ps.ChecksumsCompared
		s.Agreed += ps.ChecksumsAgreed
	}
	switch {
	case m.p != nil:
		st := m.p.Stats()
		s.Rollbacks, s.Resimulated, s.DeepestRollback = uint64(st.Rollbacks), uint64(st.ResimulatedFrames), st.MaxRollbackDepth
		add(m.retired)                   // the links of players who came back from elsewhere
		for _, ps := range m.seatStats { // as the last tick read them: a player gone keeps its counts
			add(ps)
		}
	case m.sp != nil:
		ps := m.sp.PeerStats()
		ps.Peer = m.hostOfSpectator()
		add(ps)
	case m.h != nil || m.c != nil:
		s, far = m.auth.stats(m, s)
	}
	if m.rtc != nil && far != "" {
		if now := m.now(); now.Sub(m.netAt) >= time.Second {
			m.netAt = now
			if info, err := m.rtc.PeerInfo(far); err == nil {
				m.netRTT = cmp.Or(info.RTT, m.netRTT)
				// A reading that does not know the first hop's protocol
				// yet (a relay's comes from statistics that can lag) does
				// not replace one that did.
				if r := info.Route(); r != "" && (info.Protocol != "" || m.route == "") {
					m.route = r
				}
			}
		}
	}
	s.NetworkRTT, s.Route = m.netRTT, m.route
	if old := (m.rbI + 1) % len(m.rbAt); !m.rbAt[old].IsZero() && m.rbAt[m.rbI].After(m.rbAt[old]) {
		s.RollbacksPerSecond = float64(m.rbN[m.rbI]-m.rbN[old]) / m.rbAt[m.rbI].Sub(m.rbAt[old]).Seconds()
	}
	return s
}

// authStats fills s from the host's or the client's statistics, and
// returns the peer whose network round trip Stats asks for.
func (m *Match[S, I]) authStats(s Stats) (Stats, transport.Peer) {
	if m.c != nil {
		st := m.c.Stats()
		s.Rollbacks, s.Resimulated, s.RTT = st.Mismatches, st.ResimulatedFrames, st.RTT
		s.BytesSent, s.BytesReceived = st.Link.BytesSent, st.Link.BytesReceived
		s.Compared, s.Agreed = st.StatesVerified+st.StatesUnverified, st.StatesVerified
		return s, m.hostPeer()
	}
	st := m.h.Stats()
	s.Rollbacks, s.Resimulated = uint64(st.Rollbacks), uint64(st.ResimulatedFrames)
	var far transport.Peer
	m.cs = m.h.Clients(m.cs[:0])
	for _, c := range m.cs {
		if c.Link.RTT >= s.RTT {
			s.RTT, far = c.Link.RTT, c.Peer
		}
		s.BytesSent += c.Link.BytesSent
		s.BytesReceived += c.Link.BytesReceived
	}
	return s, far
}

// noteOpen sets Opened once a channel to a peer is open.
func (m *Match[S, I]) noteOpen(now time.Time) {
	if m.opened != 0 || m.rtc == nil {
		return
	}
	var open [1]transport.Peer
	if len(m.rtc.Peers(open[:0])) > 0 {
		m.opened = max(now.Sub(m.upAt), time.Millisecond)
	}
}

// left tells how the peer id, who, left at frame f: it quit (its notice
// came), or it dropped (it was silent first, for how long), then what
// may follow.
func (m *Match[S, I]) left(id transport.Peer, who string, f rollnet.Frame, then string) {
	if since, ok := m.silent[id]; ok {
		delete(m.silent, id)
		m.tell("%s dropped at frame %d (nothing heard for %v)%s", who, f, m.now().Sub(since).Round(100*time.Millisecond), then)
		return
	}
	m.tell("%s quit at frame %d%s", who, f, then)
}

// silence notes, at EventNetworkInterrupted, since when the peer is
// silent: the disconnect timeout less the time it has left.
func (m *Match[S, I]) silence(ev rollnet.Event) {
	if m.silent == nil {
		m.silent = make(map[transport.Peer]time.Time)
	}
	m.silent[ev.Peer] = m.now().Add(ev.Timeout - cmp.Or(m.cfg.Net.DisconnectTimeout, 5*time.Second))
}

// hostNews tells, on a host, the clients that joined or came back (by its
// statistics' counts) and those whose grace window ran out.
func (m *Match[S, I]) hostNews(st authority.HostStats) {
	if st.Joined+st.Rejoined > m.joined {
		back := st.Rejoined > m.rejoinedN
		m.joined, m.rejoinedN = st.Joined+st.Rejoined, st.Rejoined
		m.cs = m.h.Clients(m.cs[:0])
		for _, c := range m.cs {
			if _, ok := m.slotPeers[c.Peer]; ok || !c.Connected {
				continue
			}
			m.slotPeers[c.Peer] = c.First
			if back {
				m.rejoins++
				m.tell("%s rejoined at frame %d (slot %d, kept)", m.nameOf(c.Peer), st.Frame, c.First+1)
			} else {
				m.tell("%s joined at frame %d (slot %d)", m.nameOf(c.Peer), st.Frame, c.First+1)
			}
		}
	}
	if st.Expired > m.expired {
		m.expired = st.Expired
		if m.dropped != "" {
			m.tell("%s did not rejoin within %v", m.dropped, m.cfg.Grace)
			m.dropped = ""
		}
	}
}
