package wire

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrClosed is returned by Send after the client closed or its
	// connection dropped, and by Dial when the server is shutting down.
	ErrClosed = errors.New("signaling: closed")

	// ErrConfig wraps every invalid ServerConfig field reported by NewServer.
	ErrConfig = errors.New("signaling: invalid config")

	// ErrMalformed: a message did not decode or broke the protocol (wrong
	// version, unknown type, a field that does not belong). The server
	// closes a connection that sends one; the client drops a server that
	// does.
	ErrMalformed = errors.New("signaling: malformed message")

	// ErrMessageTooBig: a message over the size limit. The server closes
	// the connection that sent it; Client.Send refuses it before sending.
	ErrMessageTooBig = errors.New("signaling: message too big")

	// ErrInvalidSignal: Client.Send was given a kind other than offer,
	// answer or candidate, or a payload that is not a JSON value.
	ErrInvalidSignal = errors.New("signaling: invalid signal")

	// ErrRoomFull: the room already holds its maximum number of peers.
	ErrRoomFull = errors.New("signaling: room full")

	// ErrRateLimited: the connection sent more messages per second than
	// the server allows, and was closed.
	ErrRateLimited = errors.New("signaling: rate limit exceeded")

	// ErrJoinTimeout: the connection did not join within the join timeout.
	ErrJoinTimeout = errors.New("signaling: join timeout")

	// ErrSlowConsumer: the connection's bounded send queue overflowed
	// because it did not read fast enough, and it was dropped.
	ErrSlowConsumer = errors.New("signaling: slow consumer dropped")

	// ErrPingTimeout: the connection did not answer a ping in time.
	ErrPingTimeout = errors.New("signaling: ping timeout")

	// ErrServerClosing: the server is shutting down (or refused a new
	// connection because it is).
	ErrServerClosing = errors.New("signaling: server shutting down")

	// ErrUnknownPeer: a signal addressed to a peer that is not in the
	// sender's room. The server refuses to relay it (and tells the sender
	// with an error message, without closing); Client.Send refuses a peer
	// it has not heard of.
	ErrUnknownPeer = errors.New("signaling: peer not in room")

	// ErrUnauthorized: the join token is missing, invalid, for another
	// room, or expired (HTTP 401 or 403 before the upgrade).
	ErrUnauthorized = errors.New("signaling: join token refused")

	// ErrTooManyConnections: the address already holds the maximum number
	// of connections, or the server holds its maximum in total (HTTP 429).
	ErrTooManyConnections = errors.New("signaling: too many connections")

	// ErrJoinRateLimited: too many join attempts from this address, or
	// into this room, lately (HTTP 429 before the upgrade); try again
	// later.
	ErrJoinRateLimited = errors.New("signaling: join rate exceeded")

	// ErrClusterUnavailable: the instance cannot reach the NATS its rooms
	// live on (HTTP 503 before the upgrade, or close 4006 when a join
	// could not be written in time, or when the other instances took this
	// one for dead). Join again, through another instance or later.
	ErrClusterUnavailable = errors.New("signaling: cluster unavailable")

	// ErrProtocolVersion: the other side does not speak this protocol
	// version. The server closes a join in a version it does not speak
	// with CodeProtocolVersion; Dial reports a server that refuses its
	// join (a server older than version 2 closes it with CodeMalformed).
	ErrProtocolVersion = errors.New("signaling: protocol version not supported")

	// ErrBadRequest: the URL names no valid room (HTTP 400 or 404).
	ErrBadRequest = errors.New("signaling: bad request")
)

// Close codes the server uses (the WebSocket private range 4000-4999), each
// with its sentinel's message as the close reason. A message over the size
// limit closes with the standard 1009 and a shutdown with 1001.
const (
	CodeMalformed    = 4000
	CodeRoomFull     = 4001
	CodeRateLimited  = 4002
	CodeJoinTimeout  = 4003
	CodeSlowConsumer = 4004
	CodePingTimeout  = 4005

	CodeClusterUnavailable = 4006
	CodeProtocolVersion    = 4007
)

// CloseError is why the server closed a connection: the WebSocket close
// code and reason. errors.Is matches it against the sentinel for its code.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	return fmt.Sprintf("signaling: connection closed by server: %d %s", e.Code, e.Reason)
}

// Is reports whether target is the sentinel for e's code.
func (e *CloseError) Is(target error) bool {
	s := SentinelForCode(e.Code)
	return s != nil && s == target
}

func SentinelForCode(code int) error {
	switch code {
	case CodeMalformed:
		return ErrMalformed
	case CodeRoomFull:
		return ErrRoomFull
	case CodeRateLimited:
		return ErrRateLimited
	case CodeJoinTimeout:
		return ErrJoinTimeout
	case CodeSlowConsumer:
		return ErrSlowConsumer
	case CodePingTimeout:
		return ErrPingTimeout
	case CodeClusterUnavailable:
		return ErrClusterUnavailable
	case CodeProtocolVersion:
		return ErrProtocolVersion
	case 1009: // websocket.StatusMessageTooBig
		return ErrMessageTooBig
	case 1001: // websocket.StatusGoingAway
		return ErrServerClosing
	}
	return nil
}

// HTTPError is a refusal before the WebSocket upgrade: the HTTP status and
// the server's message. errors.Is matches it against the sentinel for its
// status (401 and 403: ErrUnauthorized; 429: ErrTooManyConnections or
// ErrJoinRateLimited, as the message says; 400
// and 404: ErrBadRequest; 503: ErrServerClosing, or ErrClusterUnavailable as
// the message says).
type HTTPError struct {
	Status  int
	Message string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("signaling: server refused the connection: HTTP %d: %s", e.Status, e.Message)
}

// Is reports whether target is the sentinel for e's status.
func (e *HTTPError) Is(target error) bool {
	var s error
	switch e.Status {
	case 401, 403:
		s = ErrUnauthorized
	case 429:
		s = ErrTooManyConnections
		if strings.HasPrefix(e.Message, ErrJoinRateLimited.Error()) {
			s = ErrJoinRateLimited
		}
	case 400, 404:
		s = ErrBadRequest
	case 503:
		s = ErrServerClosing
		if strings.HasPrefix(e.Message, ErrClusterUnavailable.Error()) {
			s = ErrClusterUnavailable
		}
	}
	return s != nil && s == target
}
