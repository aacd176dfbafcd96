package netplay

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"

	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/transport"
)

var (
	// errConfig reports a Config field out of range (errors.Is
	// rollnet.ErrConfig); the wrapping error names it.
	errConfig = greeting.ErrConfig

	// ErrTimeout reports that the match was not ready within
	// Config.Timeout; the wrapping error says what it waited for.
	ErrTimeout = errors.New("netplay: timed out")

	// ErrAuthorityRoom reports a P2P player or spectator that reached a
	// room an authoritative host holds: join it with Connect.
	ErrAuthorityRoom = errors.New("netplay: the room is held by an authoritative host (join it with Connect)")

	// ErrP2PRoom reports an authoritative client (or host) that reached a
	// room of P2P players: join it with Join or Watch.
	ErrP2PRoom = errors.New("netplay: the room holds a P2P match, not an authoritative host (join it with Join or Watch)")

	// ErrSettings reports a peer whose game settings differ (players,
	// frame rate or Config.Settings); the wrapping error names both. An
	// authoritative host's refusal of a client's settings (the state's or
	// an input's size too) is ErrSettings wrapping authority's
	// *SettingsError.
	ErrSettings = errors.New("netplay: the peer's settings differ")

	// ErrRoomFull reports more players in a P2P room than Config.Players.
	ErrRoomFull = errors.New("netplay: more players in the room than the match has seats")

	// ErrMatchStarted reports a player joining a room whose match has
	// already started without it (watch it, or rejoin with a token).
	ErrMatchStarted = errors.New("netplay: the match in this room has started without this player")

	// ErrRejoinRefused reports a rejoin the match refused (the window is
	// over, a token of another match); the token is deleted from the
	// store. The wrapping error gives the reason.
	ErrRejoinRefused = errors.New("netplay: rejoin refused")

	// ErrToken reports a token text that does not decode.
	ErrToken = errors.New("netplay: malformed token")

	// ErrHostUnreachable reports a host dialed over QUIC (or
	// transport/udp) that did not answer or admit this client:
	// Config.QUIC's (the wrapping error names the cause: a timeout,
	// quic.ErrPinMismatch, a refused token, udp.ErrDenied)
	// or the one the fleet placed the match on (it died before the fleet
	// noticed: Connect again with Config.Fleet).
	ErrHostUnreachable = errors.New("netplay: host unreachable")

	// errClosed is returned by every call on a closed Match (errors.Is
	// rollnet.ErrClosed).
	errClosed = fmt.Errorf("%w: netplay: match closed", rollnet.ErrClosed)

	// errMessage reports an application message over MaxMessage bytes, or
	// empty (errors.Is transport.ErrTooLarge).
	errMessage = fmt.Errorf("%w: netplay: a message is 1 to MaxMessage bytes", transport.ErrTooLarge)
)

// MaxName is the longest name, in bytes; MaxMessage the largest
// application message (Send).
const (
	MaxName    = greeting.MaxName
	MaxMessage = greeting.MaxMessage
)
