package link

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/transport"
)

// EventKind says what an Event reports.
type EventKind uint8

// The events a link's owner reports (a P2P session, a spectator, an
// authoritative host or client). The link itself pushes the handshake,
// interruption, disconnection and desync events; the owner the others.
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
	// Remote at Peer.
	EventDesyncDetected
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
	Peer    transport.Peer
	Frame   Frame         // DesyncDetected, PlayerDisconnected
	Local   uint32        // DesyncDetected: this session's checksum
	Remote  uint32        // DesyncDetected: Peer's checksum
	Player  int           // PlayerDisconnected
	Frames  int           // WaitRecommended
	Count   int           // Synchronizing: round trips done
	Total   int           // Synchronizing: round trips needed
	Timeout time.Duration // NetworkInterrupted: time left before Disconnected
	Reason  string        // SyncFailed
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
	case EventWaitRecommended:
		return fmt.Sprintf("WaitRecommended{%d frames}", e.Frames)
	case EventDesyncDetected:
		return fmt.Sprintf("DesyncDetected{frame %d, local %08x, remote %08x, %s}", e.Frame, e.Local, e.Remote, e.Peer)
	case EventRunning:
		return "Running"
	}
	return fmt.Sprintf("%v{%s}", e.Kind, e.Peer)
}

// EventQueue holds events until the game drains them. It never grows past
// its capacity: when full, the oldest event is dropped and counted.
type EventQueue struct {
	buf     []Event
	head, n int
	dropped int
}

// NewEventQueue returns a queue of capacity events.
func NewEventQueue(capacity int) EventQueue { return EventQueue{buf: make([]Event, capacity)} }

// Push queues e, dropping the oldest event when full.
func (q *EventQueue) Push(e Event) {
	if q.n == len(q.buf) {
		q.head = (q.head + 1) % len(q.buf)
		q.n--
		q.dropped++
	}
	q.buf[(q.head+q.n)%len(q.buf)] = e
	q.n++
}

// Drain appends every queued event to dst, oldest first, and empties the
// queue.
func (q *EventQueue) Drain(dst []Event) []Event {
	for i := 0; i < q.n; i++ {
		dst = append(dst, q.buf[(q.head+i)%len(q.buf)])
	}
	q.head, q.n = 0, 0
	return dst
}
