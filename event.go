package rollnet

import (
	"fmt"
	"time"
)

// EventKind says what an Event reports.
type EventKind uint8

// The events a P2P session, a spectator, an authoritative host or a client
// reports. Those about a link (handshake, interruption, disconnection,
// desync) come from every mode; those about players (running, a player
// disconnected, a wait, a rejoin) from the modes that have them: the
// rejoin events from P2P (an authoritative host reports a client's return
// in its stats and its client list).
const (
	// EventSynchronizing: a handshake round trip with Peer completed;
	// Count of Total.
	EventSynchronizing EventKind = iota + 1
	// EventSynchronized: the handshake with Peer completed.
	EventSynchronized
	// EventRunning: every player peer is synchronized; frames advance.
	EventRunning
	// EventSyncFailed: the handshake with Peer failed for Reason.
	// AdvanceFrame returns a *SyncError from now on.
	EventSyncFailed
	// EventNetworkInterrupted: nothing heard from Peer for the disconnect
	// notify time; Timeout is how long until it is dropped.
	EventNetworkInterrupted
	// EventNetworkResumed: Peer was interrupted and is heard again.
	EventNetworkResumed
	// EventDisconnected: Peer is gone (timeout, its notice, or another
	// peer's report). Its players' inputs will be frozen, see
	// EventPlayerDisconnected.
	EventDisconnected
	// EventPlayerDisconnected: every remaining peer agreed that Player's
	// last real input is for Frame; from Frame+1 on, the player's input is
	// that input repeated, on every peer.
	EventPlayerDisconnected
	// EventWaitRecommended: this session runs Frames frames ahead of its
	// peers; skip that many ticks (call Poll instead of AdvanceFrame).
	EventWaitRecommended
	// EventDesyncDetected: the state after Frame has checksum Local here and
	// Remote at Peer: the earliest frame known to differ. Agreed is the
	// newest frame known to agree before it (NoFrame if none), so the
	// simulations parted in (Agreed, Frame]. Reported once per peer (again
	// only for an earlier frame found later).
	EventDesyncDetected
	// EventPlayerRejoining: Player (disconnected) is coming back: every
	// peer agreed its live inputs count again from Frame; until then its
	// input stays the frozen one.
	EventPlayerRejoining
	// EventPlayerRejoined: Player is back: its live input of Frame (the
	// agreed frame) arrived, or, on the rejoining peer, it caught up and
	// plays from Frame.
	EventPlayerRejoined
	// EventPlayerAwaited: Player is away under AbsenceFreeze or
	// AbsenceForfeit: every peer agreed to stop at Frame (the next frame
	// none of them simulates) until it is back or dropped.
	EventPlayerAwaited
	// EventPlayerDropped: Player, awaited under AbsenceFreeze, did not come
	// back within its rejoin window: the match resumes from Frame (the
	// agreed stop) with its input frozen.
	EventPlayerDropped
	// EventPlayerForfeited: Player is away under AbsenceForfeit: the match
	// stops at Frame for good, on every peer, for the game to decide.
	EventPlayerForfeited
	// EventDelayChanged: the match's input delay (P2P, following the
	// network: p2p.Config.MaxInputDelay) went from Count to Frames frames
	// at Frame: the local input given while Frame() is Frame is for frame
	// Frame+Frames. Every peer reports it at the same Frame. A delay that
	// shrinks by more than one frame is reported at each step, Total the
	// delay it goes to (Total == Frames: the change is over).
	EventDelayChanged
	// EventDesyncRepaired: the desync at Frame (an EventDesyncDetected
	// before) is over. On the peer that was repaired, its state had
	// diverged: it took the state after frame Agreed from Peer (Player:
	// that peer's lowest seat), the truth, simulated again to the present,
	// and plays on; Timeout is how long the repair took from the desync
	// found, Reason the fields that differed (the forensics line, or why
	// they are unknown). On every other peer (Reason empty), a checksum
	// with Peer (Player: its lowest seat) agreed again, at frame Agreed,
	// Timeout after the desync was found. A P2P spectator is repaired
	// from its host the same way; Player is -1 on both ends (a
	// spectator's events, and its host's events about it).
	EventDesyncRepaired
)

var eventNames = [...]string{
	EventSynchronizing:      "Synchronizing",
	EventSynchronized:       "Synchronized",
	EventRunning:            "Running",
	EventSyncFailed:         "SyncFailed",
	EventNetworkInterrupted: "NetworkInterrupted",
	EventNetworkResumed:     "NetworkResumed",
	EventDisconnected:       "Disconnected",
	EventPlayerDisconnected: "PlayerDisconnected",
	EventWaitRecommended:    "WaitRecommended",
	EventDesyncDetected:     "DesyncDetected",
	EventPlayerRejoining:    "PlayerRejoining",
	EventPlayerRejoined:     "PlayerRejoined",
	EventPlayerAwaited:      "PlayerAwaited",
	EventPlayerDropped:      "PlayerDropped",
	EventPlayerForfeited:    "PlayerForfeited",
	EventDelayChanged:       "DelayChanged",
	EventDesyncRepaired:     "DesyncRepaired",
}

// String names the kind.
func (k EventKind) String() string {
	if k >= EventSynchronizing && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is something the session reports to the game. Which fields mean
// something depends on Kind (see the EventKind constants).
type Event struct {
	Kind    EventKind
	Peer    Peer
	Frame   Frame         // DesyncDetected, DesyncRepaired, PlayerDisconnected, PlayerRejoining, PlayerRejoined, PlayerAwaited, PlayerDropped, PlayerForfeited, DelayChanged
	Agreed  Frame         // DesyncDetected: newest frame known to agree before Frame, or NoFrame; DesyncRepaired: the state's frame
	Local   uint32        // DesyncDetected: this session's checksum
	Remote  uint32        // DesyncDetected: Peer's checksum
	Player  int           // DesyncRepaired, PlayerDisconnected, PlayerRejoining, PlayerRejoined, PlayerAwaited, PlayerDropped, PlayerForfeited
	Frames  int           // WaitRecommended; DelayChanged: the new input delay
	Count   int           // Synchronizing: round trips done; DelayChanged: the input delay before
	Total   int           // Synchronizing: round trips needed; DelayChanged: the delay the change goes to
	Timeout time.Duration // NetworkInterrupted: time left before Disconnected; DesyncRepaired: how long the repair took
	Reason  string        // SyncFailed; DesyncRepaired: the fields that differed
}

// String describes the event, for logs.
func (e Event) String() string {
	switch e.Kind {
	case EventSynchronizing:
		return fmt.Sprintf("Synchronizing{%s %d/%d}", e.Peer, e.Count, e.Total)
	case EventSyncFailed:
		return fmt.Sprintf("SyncFailed{%s: %s}", e.Peer, e.Reason)
	case EventNetworkInterrupted:
		return fmt.Sprintf("NetworkInterrupted{%s, timeout in %v}", e.Peer, e.Timeout)
	case EventPlayerDisconnected:
		return fmt.Sprintf("PlayerDisconnected{player %d, last frame %d}", e.Player, e.Frame)
	case EventPlayerRejoining, EventPlayerRejoined, EventPlayerAwaited, EventPlayerDropped, EventPlayerForfeited:
		return fmt.Sprintf("%v{player %d, frame %d}", e.Kind, e.Player, e.Frame)
	case EventWaitRecommended:
		return fmt.Sprintf("WaitRecommended{%d frames}", e.Frames)
	case EventDelayChanged:
		return fmt.Sprintf("DelayChanged{%d to %d frames at frame %d}", e.Count, e.Frames, e.Frame)
	case EventDesyncDetected:
		return fmt.Sprintf("DesyncDetected{frame %d (agreed at %d), local %08x, remote %08x, %s}", e.Frame, e.Agreed, e.Local, e.Remote, e.Peer)
	case EventDesyncRepaired:
		who := fmt.Sprintf("%s (seat %d)", e.Peer, e.Player)
		if e.Player < 0 {
			who = string(e.Peer) // a spectator's host, or its host's spectator
		}
		if e.Reason == "" {
			return fmt.Sprintf("DesyncRepaired{frame %d: %s agrees again at frame %d, after %v}", e.Frame, who, e.Agreed, e.Timeout)
		}
		return fmt.Sprintf("DesyncRepaired{frame %d from the state after frame %d of %s in %v; %s}", e.Frame, e.Agreed, who, e.Timeout, e.Reason)
	case EventRunning:
		return "Running"
	}
	return fmt.Sprintf("%v{%s}", e.Kind, e.Peer)
}
