package link

import "github.com/rollnet/rollnet"
type Frame = rollnet.Frame
const NoFrame = rollnet.NoFrame
type Event = rollnet.Event
type EventKind = rollnet.EventKind
type NetConfig = rollnet.NetConfig
type PeerStats = rollnet.PeerStats
type SyncError = rollnet.SyncError
var ErrSyncFailed = rollnet.ErrSyncFailed
const (
	ReasonSettings = rollnet.ReasonSettings
	ReasonProtocol = rollnet.ReasonProtocol
	ReasonWire     = rollnet.ReasonWire
	ReasonTimeout  = rollnet.ReasonTimeout
)
const EventSynchronizing = rollnet.EventSynchronizing
const EventSynchronized = rollnet.EventSynchronized
const EventRunning = rollnet.EventRunning
const EventSyncFailed = rollnet.EventSyncFailed
const EventNetworkInterrupted = rollnet.EventNetworkInterrupted
const EventNetworkResumed = rollnet.EventNetworkResumed
const EventDisconnected = rollnet.EventDisconnected
const EventPlayerDisconnected = rollnet.EventPlayerDisconnected
const EventWaitRecommended = rollnet.EventWaitRecommended
const EventDesyncDetected = rollnet.EventDesyncDetected
const EventPlayerRejoining = rollnet.EventPlayerRejoining
const EventPlayerRejoined = rollnet.EventPlayerRejoined
