package rollnet

import "fmt"

// Absence is what a match does while a player is away (its peer
// disconnected: silent for NetConfig.DisconnectTimeout, or gone). Every
// peer of a match must choose the same (it is in the handshake's settings
// hash, so a peer that chose another is refused with a reason).
type Absence uint8

const (
	// AbsencePredict (the zero value) plays on: the player's last input is
	// repeated from the frame every peer agreed on (EventPlayerDisconnected)
	// until it rejoins or for good.
	AbsencePredict Absence = iota
	// AbsenceFreeze stops every peer at one frame they all agree on
	// (EventPlayerAwaited), computed from what each heard so that no peer
	// has simulated past it; they resume together when the player is back
	// (its first live input, from that frame, arrives:
	// EventPlayerRejoined), or when its rejoin window
	// (NetConfig.RejoinWindow) passes (EventPlayerDropped: from then on
	// as AbsencePredict).
	AbsenceFreeze
	// AbsenceForfeit stops every peer at the agreed frame, as
	// AbsenceFreeze, for good (EventPlayerForfeited): the game is told and
	// decides (every peer holds the same state at that frame: award the
	// round, end the match). The player may not rejoin.
	AbsenceForfeit
)

var absenceNames = [...]string{"predict", "freeze", "forfeit"}

// String names the policy.
func (a Absence) String() string {
	if int(a) < len(absenceNames) {
		return absenceNames[a]
	}
	return fmt.Sprintf("Absence(%d)", uint8(a))
}

// Valid reports whether a is one of the policies.
func (a Absence) Valid() bool { return int(a) < len(absenceNames) }
