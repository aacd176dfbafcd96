package client

import "github.com/rollnet/rollnet/signaling/internal/wire"

// The protocol's types, versions, close codes and errors: the one name of
// each for the client and for the server (package signaling, which uses
// these and names none of them again; its doc.go states the protocol).

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

// Signal is one offer, answer or ICE candidate: any JSON value but null.
type Signal = wire.Signal

// CloseError is why the server closed a connection: the WebSocket close
// code and reason. errors.Is matches it against the sentinel for its code
// (the codes of the protocol's other closes have none: signaling's
// doc.go lists them).
type CloseError = wire.CloseError

// HTTPError is a refusal before the WebSocket upgrade: the HTTP status and
// the server's message (natively only: a browser tells a page nothing of
// it). errors.Is matches it against the sentinel for its status (401 and
// 403: ErrUnauthorized; 429: ErrTooManyConnections unless the message says
// the joins came too fast; 503: ErrServerClosing, or ErrClusterUnavailable
// as the message says).
type HTTPError = wire.HTTPError

// The errors a Client reports; the server (package signaling) closes
// connections and refuses requests with the same ones, and its NewServer
// returns errors wrapping ErrConfig and ErrClusterUnavailable.
var (
	// ErrClosed is returned by Send after the client closed or its
	// connection dropped, and by Dial when the server is shutting down.
	ErrClosed = wire.ErrClosed

	// ErrConfig wraps every invalid Config field reported by Dial, and
	// every invalid signaling.ServerConfig field (its Cluster's too)
	// reported by signaling.NewServer.
	ErrConfig = wire.ErrConfig

	// ErrRoomFull: the room already holds its maximum number of peers.
	ErrRoomFull = wire.ErrRoomFull

	// ErrServerClosing: the server is shutting down (or refused a new
	// connection because it is).
	ErrServerClosing = wire.ErrServerClosing

	// ErrUnknownPeer: a signal addressed to a peer that is not in the
	// sender's room. The server refuses to relay it (and tells the sender
	// with an error message, without closing); Client.Send refuses a peer
	// it has not heard of.
	ErrUnknownPeer = wire.ErrUnknownPeer

	// ErrUnauthorized: the join token is missing, invalid, for another
	// room, or expired (HTTP 401 or 403 before the upgrade).
	ErrUnauthorized = wire.ErrUnauthorized

	// ErrTooManyConnections: the address already holds the maximum number
	// of connections, or the server holds its maximum in total (HTTP 429).
	ErrTooManyConnections = wire.ErrTooManyConnections

	// ErrClusterUnavailable: the instance cannot reach the NATS its rooms
	// live on (HTTP 503 before the upgrade, or close 4006 when a join
	// could not be written in time, or when the other instances took this
	// one for dead). Join again, through another instance or later.
	ErrClusterUnavailable = wire.ErrClusterUnavailable

	// ErrProtocolVersion: the other side does not speak this protocol
	// version. The server closes a join in a version it does not speak
	// with CodeProtocolVersion; Dial reports a server that refuses its
	// join (a server older than version 2 closes it with CodeMalformed).
	ErrProtocolVersion = wire.ErrProtocolVersion
)

// statusNormalClosure is WebSocket's 1000: a close without a reason.
const statusNormalClosure = 1000
