package webrtc

import (
	"cmp"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport"
)

// Defaults of Config, used where a field is zero.
const (
	defaultSendThreshold          = 256
	defaultBulkThreshold          = 64 << 10
	defaultQueueLen               = 256
	defaultMaxPeers               = 16
	defaultMaxPendingCandidates   = 32
	defaultICEDisconnectedTimeout = time.Second
	defaultICEFailedTimeout       = 2 * time.Second
	defaultICEKeepAlive           = 250 * time.Millisecond
	defaultSignalTimeout          = 5 * time.Second
	defaultSCTPRTOMax             = time.Second
	defaultICEReflexiveWait       = 100 * time.Millisecond
	defaultICERelayWait           = time.Second
)

// maxMessageSize is the SCTP maximum message size every Transport
// advertises in its SDP and the size of each peer's read buffer. It equals
// transport.MaxDatagram: a well-behaved peer never sends more, and one that
// does is disconnected with ErrOversizeMessage.
const maxMessageSize = 1200

// Config configures a Transport. The zero value of every field means its
// documented default.
type Config struct {
	// ICEServers are the STUN and TURN servers used to gather candidates.
	// Nil means the list the signaling server hands out; an empty non-nil slice
	// means none (host candidates only).
	ICEServers []ICEServer

	// MaxPeers bounds the number of peers known (open, connecting or
	// gone). A new peer over it takes the place of a gone one (Send to the
	// forgotten peer then returns transport.ErrUnknownPeer), or is ignored
	// and counted when every peer is live. 0 means 16.
	MaxPeers int

	// LoopbackOnly restricts ICE to UDP over IPv4 on the loopback
	// interface, with mDNS off and no ICE servers: for tests and two
	// processes on one machine.
	LoopbackOnly bool

	// RelayOnly makes ICE use TURN relay candidates only
	// (ICETransportPolicyRelay): every packet goes through a TURN server
	// of ICEServers, and the peer never learns this host's addresses. For
	// players who hide their address and for testing a relay; it adds the
	// relay's detour to the round trip. Without a TURN server no candidate
	// is gathered and every peer fails with ErrICEFailed. Exclusive with
	// LoopbackOnly, which uses no ICE servers.
	RelayOnly bool

	// Net replaces the operating system's network, for example with pion's
	// virtual network (github.com/pion/transport/v5/vnet) in tests. Nil
	// means the real network. mDNS is off on a replaced network. Its type is
	// pion's transport.Net; in a browser build, where it is ignored, any
	// (config_js.go says why).
	Net pionNet

	// LoggerFactory receives pion's logs. Nil means pion's default:
	// warnings and errors to stderr. Its type is pion's
	// logging.LoggerFactory; in a browser build, where it is ignored, any.
	LoggerFactory pionLoggerFactory

	// Accept, when set, chooses the peers this endpoint connects to: it is
	// asked, from the signal loop, about each peer that joins, offers or
	// sends a candidate while unknown, and a peer it refuses is never
	// offered to or answered (counted in Stats.PeersRefused). Nil connects
	// to every peer in the room, up to MaxPeers. To drop datagrams from a
	// connected peer instead, see Transport.Expect.
	Accept func(peer transport.Peer) bool

	// Tuning holds the knobs a game rarely turns: send thresholds, queue
	// lengths, ICE's and SCTP's timers.
	Tuning Tuning
}

// Tuning holds Config's rarely turned knobs; the zero value of each means
// its documented default.
type Tuning struct {
	// SendThreshold is the data channel's buffered amount, in bytes, above
	// which Send keeps a datagram in its own short queue (where a newer
	// one of its kind supersedes it; see Transport.Send) instead of
	// queueing it behind SCTP congestion control. 0 means 256 B: after a
	// blackout nothing seconds old is flushed to the peer.
	SendThreshold int

	// BulkThreshold is SendThreshold for SendBulk: the datagrams of a bulk
	// transfer (rollnet's session feeding a peer that catches up), which
	// a later datagram does not make stale, may queue up to it. 0 means
	// 64 KiB.
	BulkThreshold int

	// QueueLen is the number of received datagrams waiting for Receive; a
	// datagram arriving at a full queue is dropped and counted. 0 means
	// 256.
	QueueLen int

	// MaxPendingCandidates bounds the remote ICE candidates buffered per
	// peer until its remote description is set. 0 means 32.
	MaxPendingCandidates int

	// ICEDisconnectedTimeout, ICEFailedTimeout and ICEKeepAlive are pion's
	// ICE timeouts: a peer silent for ICEDisconnectedTimeout is
	// disconnected (it may recover), and ICEFailedTimeout later it has
	// failed and is gone. 0 means 1 s, 2 s and 250 ms: a dead peer is
	// detected in about 3.2 s instead of pion's 30 s.
	ICEDisconnectedTimeout time.Duration
	ICEFailedTimeout       time.Duration
	ICEKeepAlive           time.Duration

	// ICEReflexiveWait and ICERelayWait are how long after ICE's checks
	// start a pair using a server- or peer-reflexive candidate (a NAT's
	// mapping), or a TURN relay candidate, may be selected: a better pair
	// that succeeds meanwhile is taken instead (pion's acceptance minimum
	// waits; host pairs are taken at once). 0 means 100 ms and 1 s
	// (pion's are 500 ms, 1 s and 2 s): behind two NATs that can be
	// punched the reflexive pair succeeds within a few of ICE's 200 ms
	// check rounds, and where none can the relay is chosen about a second
	// after the checks start, not after ICE's failure timeout
	// (internal/netlab's tests measure both).
	ICEReflexiveWait time.Duration
	ICERelayWait     time.Duration

	// SCTPRTOMax caps SCTP's retransmission timeout, which otherwise
	// doubles up to 60 s while a path is dead and then holds the channel
	// silent for seconds after the path heals. 0 means 1 s
	// (1 s, SCTP's minimum RTO: the cap only removes the backoff).
	SCTPRTOMax time.Duration

	// SignalTimeout bounds each signal sent through the signaling
	// server. 0 means 5 s.
	SignalTimeout time.Duration
}

func (c Config) withDefaults() (Config, error) {
	neg := func(name string, v int64) error {
		if v < 0 {
			return fmt.Errorf("%w: webrtc: %s is negative (%d)", rollnet.ErrConfig, name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"Tuning.SendThreshold", int64(c.Tuning.SendThreshold)},
		{"Tuning.BulkThreshold", int64(c.Tuning.BulkThreshold)},
		{"Tuning.QueueLen", int64(c.Tuning.QueueLen)},
		{"MaxPeers", int64(c.MaxPeers)},
		{"Tuning.MaxPendingCandidates", int64(c.Tuning.MaxPendingCandidates)},
		{"Tuning.ICEDisconnectedTimeout", int64(c.Tuning.ICEDisconnectedTimeout)},
		{"Tuning.ICEFailedTimeout", int64(c.Tuning.ICEFailedTimeout)},
		{"Tuning.ICEKeepAlive", int64(c.Tuning.ICEKeepAlive)},
		{"Tuning.SignalTimeout", int64(c.Tuning.SignalTimeout)},
		{"Tuning.SCTPRTOMax", int64(c.Tuning.SCTPRTOMax)},
		{"Tuning.ICEReflexiveWait", int64(c.Tuning.ICEReflexiveWait)},
		{"Tuning.ICERelayWait", int64(c.Tuning.ICERelayWait)},
	} {
		if err := neg(f.name, f.v); err != nil {
			return c, err
		}
	}
	// A zero field takes its default (cmp.Or: the first non-zero).
	c.Tuning.SendThreshold = cmp.Or(c.Tuning.SendThreshold, defaultSendThreshold)
	c.Tuning.BulkThreshold = cmp.Or(c.Tuning.BulkThreshold, defaultBulkThreshold)
	c.Tuning.QueueLen = cmp.Or(c.Tuning.QueueLen, defaultQueueLen)
	c.MaxPeers = cmp.Or(c.MaxPeers, defaultMaxPeers)
	c.Tuning.MaxPendingCandidates = cmp.Or(c.Tuning.MaxPendingCandidates, defaultMaxPendingCandidates)
	c.Tuning.ICEDisconnectedTimeout = cmp.Or(c.Tuning.ICEDisconnectedTimeout, defaultICEDisconnectedTimeout)
	c.Tuning.ICEFailedTimeout = cmp.Or(c.Tuning.ICEFailedTimeout, defaultICEFailedTimeout)
	c.Tuning.ICEKeepAlive = cmp.Or(c.Tuning.ICEKeepAlive, defaultICEKeepAlive)
	c.Tuning.SCTPRTOMax = cmp.Or(c.Tuning.SCTPRTOMax, defaultSCTPRTOMax)
	c.Tuning.ICEReflexiveWait = cmp.Or(c.Tuning.ICEReflexiveWait, defaultICEReflexiveWait)
	c.Tuning.ICERelayWait = cmp.Or(c.Tuning.ICERelayWait, defaultICERelayWait)
	c.Tuning.SignalTimeout = cmp.Or(c.Tuning.SignalTimeout, defaultSignalTimeout)
	if c.Tuning.QueueLen > 1<<16 {
		return c, fmt.Errorf("%w: webrtc: Tuning.QueueLen %d over %d", rollnet.ErrConfig, c.Tuning.QueueLen, 1<<16)
	}
	if c.LoopbackOnly && c.Net != nil {
		return c, fmt.Errorf("%w: webrtc: LoopbackOnly and Net are exclusive", rollnet.ErrConfig)
	}
	if c.LoopbackOnly && c.RelayOnly {
		return c, fmt.Errorf("%w: webrtc: LoopbackOnly (no ICE servers) and RelayOnly are exclusive", rollnet.ErrConfig)
	}
	return c, nil
}
