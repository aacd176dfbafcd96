package signaling

import (
	"context"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// The client is package signaling/client, which a game (and a browser
// build, which must not link this package's server) imports on its own;
// these are its names here, for a program that runs both.

// ProtocolVersion is the newest version of the protocol (doc.go), the one
// the Client speaks: the version carried in every envelope ("v"), and
// reported by the server on GET /. The server also speaks every version
// down to 1, to each connection in the version it joined with.
const ProtocolVersion = wire.ProtocolVersion

// ICEServer is one STUN or TURN server handed out to clients at join. Its
// JSON form matches the browser's RTCIceServer.
type ICEServer = wire.ICEServer

// SignalKind names what a Signal carries.
type SignalKind = wire.SignalKind

// The signal kinds the server relays.
const (
	SignalOffer     = wire.SignalOffer
	SignalAnswer    = wire.SignalAnswer
	SignalCandidate = wire.SignalCandidate
)

// Signal is one offer, answer or ICE candidate. The payload is opaque to
// the server: any JSON value except null.
type Signal = wire.Signal

// Client is one joined connection to a signaling server (client.Client).
type Client = client.Client

// ClientConfig configures Dial (client.Config). The zero value is ready to
// use.
type ClientConfig = client.Config

// Event is one thing the server told a Client.
type Event = client.Event

// EventKind says what an Event reports.
type EventKind = client.EventKind

// The events a Client delivers.
const (
	PeerJoined     = client.PeerJoined
	PeerLeft       = client.PeerLeft
	SignalReceived = client.SignalReceived
	ServerError    = client.ServerError
)

// DefaultEventQueue is the capacity of Events when ClientConfig.EventQueue
// is zero.
const DefaultEventQueue = client.DefaultEventQueue

// DefaultDialTimeout bounds Dial when its context has no deadline.
const DefaultDialTimeout = client.DefaultDialTimeout

// Dial joins a room (client.Dial: see it for the URL forms and errors).
func Dial(ctx context.Context, url string, cfg ClientConfig) (*Client, error) {
	return client.Dial(ctx, url, cfg)
}
