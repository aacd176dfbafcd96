package client

import "github.com/rollnet/rollnet/signaling/internal/wire"

// The protocol's types, versions, close codes and errors, shared with the
// server (package signaling, which names them the same; its doc.go states
// the protocol).

// ProtocolVersion is the newest version of the protocol, the one a Client
// speaks.
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

// Signal is one offer, answer or ICE candidate: any JSON value but null.
type Signal = wire.Signal

// CloseError is why the server closed a connection: the WebSocket close
// code and reason. errors.Is matches it against the sentinel for its code.
type CloseError = wire.CloseError

// HTTPError is a refusal before the WebSocket upgrade (natively only: a
// browser tells a page nothing of it).
type HTTPError = wire.HTTPError

// The close codes the server uses (signaling's doc.go).
const (
	CodeMalformed          = wire.CodeMalformed
	CodeRoomFull           = wire.CodeRoomFull
	CodeRateLimited        = wire.CodeRateLimited
	CodeJoinTimeout        = wire.CodeJoinTimeout
	CodeSlowConsumer       = wire.CodeSlowConsumer
	CodePingTimeout        = wire.CodePingTimeout
	CodeClusterUnavailable = wire.CodeClusterUnavailable
	CodeProtocolVersion    = wire.CodeProtocolVersion
)

// The errors a Client reports, the signaling package's (see its
// errors.go for each one's meaning).
var (
	ErrClosed             = wire.ErrClosed
	ErrConfig             = wire.ErrConfig
	ErrMalformed          = wire.ErrMalformed
	ErrMessageTooBig      = wire.ErrMessageTooBig
	ErrInvalidSignal      = wire.ErrInvalidSignal
	ErrRoomFull           = wire.ErrRoomFull
	ErrRateLimited        = wire.ErrRateLimited
	ErrJoinTimeout        = wire.ErrJoinTimeout
	ErrSlowConsumer       = wire.ErrSlowConsumer
	ErrPingTimeout        = wire.ErrPingTimeout
	ErrServerClosing      = wire.ErrServerClosing
	ErrUnknownPeer        = wire.ErrUnknownPeer
	ErrUnauthorized       = wire.ErrUnauthorized
	ErrTooManyConnections = wire.ErrTooManyConnections
	ErrJoinRateLimited    = wire.ErrJoinRateLimited
	ErrClusterUnavailable = wire.ErrClusterUnavailable
	ErrProtocolVersion    = wire.ErrProtocolVersion
	ErrBadRequest         = wire.ErrBadRequest
)

// statusNormalClosure is WebSocket's 1000: a close without a reason.
const statusNormalClosure = 1000
