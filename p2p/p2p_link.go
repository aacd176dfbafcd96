package p2p

// The P2P protocol, in brief (the messages are codec's):
//
//   - Handshake, per link: SyncRequest{random nonce, protocol, settings
//     hash} answered by SyncReply echoing the nonce, SyncRoundTrips times,
//     retried every SyncRetry with the same nonce, for at most SyncTimeout
//     (then SyncFailed, ReasonTimeout; a failed link answers no matching
//     request, so its peer times out too). The settings hash covers
//     players, input size, input delay, frame rate, checksum interval, the
//     game's Settings and which players each end holds; a mismatch fails
//     the link on both ends
//     (SyncFailed, *SyncError). Replies are rate-limited per peer.
//   - Inputs: every tick each player link gets an Input with every local
//     frame it has not acknowledged (from its ack + 1, at most
//     wire.MaxFrames, shortened to fit wire.MaxPacket), our ack of its
//     inputs and, with three or more peers, our connection status of every
//     player. Received frames are taken only when they extend what was
//     heard, up to the core session's window. Acks are the newest to
//     arrive (a forged one lasts until the next real packet).
//   - Checksums ride on the Inputs: every ChecksumInterval-th confirmed
//     frame's checksum goes on the Inputs to each peer until the peer
//     acknowledges a frame first sent with it, on at most three; a
//     spectator's ride on its InputAcks (the first three after each).
//   - Agreement with three or more peers: a remote player's input is given
//     to the core session only up to the frame every other peer reports
//     having heard (until then it is the prediction, so nothing rolls back
//     for it). A disconnected player's last real frame is the smallest any
//     remaining peer heard; every peer computes the same one from the final
//     statuses, and repeats that input from there on.
//   - QualityReport{frame advantage, ping} / QualityReply{pong} every
//     QualityInterval; KeepAlive when nothing else went out; Disconnect,
//     three times, on Close.
//   - Hostile packets: every message is validated, then must carry a
//     sequence number near the newest one that proved it came from the
//     peer (a handshake reply echoing our nonce, a quality reply echoing
//     one of our pings) before it changes anything (see internal/link).
//   - Rejoin: Rejoin messages (wire.Rejoin) carry each peer's identity
//     token once synchronized, a dropped player's request to come back,
//     the sponsor's acceptance at R or a refusal, and R to every other
//     peer; the sponsor feeds the replay as spectator-style Inputs (every
//     player, Ack -1) in bulk (feed.go) answered by InputAcks. See
//     p2p_rejoin.go.
//   - Spectators: their host sends Input{every player, confirmed frames
//     from the spectator's ack + 1, Ack: the newest confirmed frame, which
//     says how far behind the spectator is}; the spectator answers
//     InputAck (what it holds contiguously, at most feedWindow frames
//     past the end of what it simulated: its buffer). One added mid-match
//     starts at frame 0 like the others: its host serves the old frames
//     from the spectator archive, in bulk (feed.go) while the spectator is
//     more than liveGap frames behind, else the live stream: up to
//     liveDatagrams Inputs a tick.

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/transport"
)

// protocolVersion is the P2P protocol's version, exchanged (and required to
// match) in the handshake. The wire version is wire.Version (internal/wire).
const protocolVersion = 6 // 2: checksums ride on Input and InputAck; 3: behind a flag bit, not leftover bytes; 4: a rejoin key per pair of peers, never the secret; 5: Input's delay block (delay.go); 6: desync repair (Repair messages, repair.go)

// syncReplyBudget is how many handshake replies a peer gets per SyncRetry
// period.
const syncReplyBudget = link.SyncReplyBudget

// resolve applies cfg's defaults; its error is an errConfig error.
func resolve(cfg rollnet.NetConfig) (link.Settings, error) {
	n, err := link.Resolve(cfg)
	return n, netError(err)
}

// netError turns the link's configuration errors into this package's.
func netError(err error) error {
	var ce *link.ConfigError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: %s", errConfig, ce.Detail)
	}
	return err
}

// settingsHash hashes what both ends of a link must agree on. from and to
// describe the sending and the receiving end (the players each holds, or a
// role for spectator links), so each end computes what it sends (its own
// view) and what it expects (the other's view).
func settingsHash(n *link.Settings, players, size, delay int, from, to uint64) uint64 {
	return link.SettingsHash(protocolVersion, uint64(players), uint64(size), uint64(delay), uint64(n.FrameRate), n.Game, from, to,
		uint64(max(n.CheckInterval, 0)))
}

// Roles in the settings hash of a spectator link (player masks never reach
// these values: bit 63 alone would be the mask of player 63 only, so the
// roles use impossible combinations with an empty mask's complement).
const (
	roleHost      = ^uint64(0) - 1
	roleSpectator = ^uint64(0) - 2
)

// peerStats returns the statistics of peer from e, or ErrNotAPeer.
func peerStats(e *link.Endpoint, peer transport.Peer) (rollnet.PeerStats, error) {
	i, ok := e.Lookup(peer)
	if !ok {
		return rollnet.PeerStats{}, fmt.Errorf("%w: %q", ErrNotAPeer, string(peer))
	}
	return linkStats(e.Links()[i]), nil
}

// linkStats is l's statistics; an optional link of a P2P session is a
// spectator's.
func linkStats(l *link.Link) rollnet.PeerStats {
	st := l.Stats()
	st.Spectator = l.Optional
	return st
}

// takeChecksum takes the checksum sum of frame f that rode on the packet
// seq from l whose Ack was ack, just accepted. A peer can only report a
// frame it has confirmed, which needs our inputs (a spectator: our
// confirmed frames) up to it: a frame past ack is forged, and counted
// malformed. A report waiting for ours is replaced only from a newer
// packet (link.Endpoint.ReceivedChecksum).
func takeChecksum(ep *link.Endpoint, l *link.Link, own *link.Checks, seq uint16, ack int32, f int32, sum uint32) {
	if f > ack {
		l.Malformed()
		return
	}
	ep.ReceivedChecksum(l, own, rollnet.Frame(f), sum, seq)
}
