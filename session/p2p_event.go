package session

import "github.com/rollnet/rollnet/internal/link"

// EventKind says what an Event reports.
type EventKind = link.EventKind

// The events a P2P session or a spectator reports (see the link package's
// constants for what each means).
const (
	// EventSynchronizing: a handshake round trip with Peer completed;
	// Count of Total.
	EventSynchronizing = link.EventSynchronizing
	// EventSynchronized: the handshake with Peer completed.
	EventSynchronized = link.EventSynchronized
	// EventRunning: every player peer is synchronized; frames advance.
	EventRunning = link.EventRunning
	// EventSyncFailed: the handshake with Peer failed for Reason.
	// AdvanceFrame returns a *SyncError from now on.
	EventSyncFailed = link.EventSyncFailed
	// EventNetworkInterrupted: nothing heard from Peer for the disconnect
	// notify time; Timeout is how long until it is dropped.
	EventNetworkInterrupted = link.EventNetworkInterrupted
	// EventNetworkResumed: Peer was interrupted and is heard again.
	EventNetworkResumed = link.EventNetworkResumed
	// EventDisconnected: Peer is gone (timeout, its notice, or another
	// peer's report). Its players' inputs will be frozen, see
	// EventPlayerDisconnected.
	EventDisconnected = link.EventDisconnected
	// EventPlayerDisconnected: every remaining peer agreed that Player's
	// last real input is for Frame; from Frame+1 on, the player's input is
	// that input repeated, on every peer.
	EventPlayerDisconnected = link.EventPlayerDisconnected
	// EventWaitRecommended: this session runs Frames frames ahead of its
	// peers; skip that many ticks (call Poll instead of AdvanceFrame).
	EventWaitRecommended = link.EventWaitRecommended
	// EventDesyncDetected: the state after Frame has checksum Local here and
	// Remote at Peer.
	EventDesyncDetected = link.EventDesyncDetected
)

// Event is something the session reports to the game. Which fields mean
// something depends on Kind (see the EventKind constants).
type Event = link.Event
