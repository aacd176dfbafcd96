package authority

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// Sentinel errors; every error this package returns is, or wraps, one of
// these (test with errors.Is).
var (
	// errConfig reports a configuration that cannot work: slots out of
	// range, a state or input type that cannot travel, a negative
	// duration. It wraps rollnet.ErrConfig.
	errConfig = fmt.Errorf("%w: authority", rollnet.ErrConfig)
	// ErrSlot reports a player slot the caller does not hold.
	ErrSlot = errors.New("authority: slot not held")
	// ErrNotReady reports a client call that needs the host's first state,
	// which has not arrived.
	ErrNotReady = errors.New("authority: not synchronized with the host")
	// ErrOutOfWindow reports a frame whose checksum the host no longer
	// keeps, or has not sent yet (Host.ChecksumAt).
	ErrOutOfWindow = errors.New("authority: frame out of window")
	// errClosed reports a call after Close. It wraps rollnet.ErrClosed.
	errClosed = fmt.Errorf("%w: authority", rollnet.ErrClosed)
	// ErrSettings reports a host that refused the client's settings: the
	// game, the sizes of a state or an input, the frame rate, the players
	// or the protocol differ. Client.AdvanceFrame returns a *SettingsError
	// naming both sides' (errors.As), from the host's answer on, every
	// call: the client will not synchronize with that host.
	ErrSettings = errors.New("authority: the host refused the client's settings")
)

// Settings are what a host and its clients must agree on (their hash is
// what a Hello carries).
type Settings struct {
	// Protocol is the authoritative protocol's version.
	Protocol int
	// Players is HostConfig.Players and ClientConfig.Players.
	Players int
	// StateSize and InputSize are the sizes of S and I, in bytes.
	StateSize, InputSize int
	// FrameRate is NetConfig.FrameRate, Game NetConfig.Settings.
	FrameRate int
	Game      uint64
}

func hostSettingsOf(s wire.AuthSettings) Settings {
	return Settings{Protocol: int(s.Protocol), Players: s.Players, StateSize: s.StateSize, InputSize: s.InputSize,
		FrameRate: s.FrameRate, Game: s.Game}
}

// SettingsError is a host's refusal of a client's settings: the host's
// and the client's. It is ErrSettings (errors.Is).
type SettingsError struct {
	Host, Client Settings
}

// Error names what differs, the client's value then the host's.
func (e *SettingsError) Error() string {
	var d []string
	h, c := e.Host, e.Client
	if h.Protocol != c.Protocol {
		d = append(d, fmt.Sprintf("protocol %d (host %d)", c.Protocol, h.Protocol))
	}
	if h.Game != c.Game {
		d = append(d, fmt.Sprintf("game settings %#x (host %#x)", c.Game, h.Game))
	}
	if h.StateSize != c.StateSize {
		d = append(d, fmt.Sprintf("a %d-byte state (host %d)", c.StateSize, h.StateSize))
	}
	if h.InputSize != c.InputSize {
		d = append(d, fmt.Sprintf("a %d-byte input (host %d)", c.InputSize, h.InputSize))
	}
	if h.FrameRate != c.FrameRate {
		d = append(d, fmt.Sprintf("%d frames a second (host %d)", c.FrameRate, h.FrameRate))
	}
	if h.Players != c.Players {
		d = append(d, fmt.Sprintf("%d players (host %d)", c.Players, h.Players))
	}
	if len(d) == 0 {
		d = append(d, "the settings hash")
	}
	return ErrSettings.Error() + ": " + strings.Join(d, ", ")
}

// Is reports whether target is ErrSettings.
func (e *SettingsError) Is(target error) bool { return target == ErrSettings }
