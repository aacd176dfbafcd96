package netplay

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
)

// Phase is where a match is.
type Phase uint8

const (
	// Connecting: joining the room, waiting for the other peers
	// (Status.Have of Status.Need players heard).
	Connecting Phase = iota + 1
	// Synchronizing: the session's handshake with the peers.
	Synchronizing
	// Running: frames advance (Status.Waiting names whom a tick that did
	// not advance waited for).
	Running
	// Rejoining: this player replays the match to come back
	// (Status.Done of Status.Total frames).
	Rejoining
	// CatchingUp: a spectator replays the match to reach the players
	// (Status.Done of Status.Total frames); do not draw these frames.
	CatchingUp
	// Ended: the match is over (Status.Ended says why); AdvanceFrame does
	// nothing more.
	Ended
)

var phaseNames = [...]string{"", "connecting", "synchronizing", "running", "rejoining", "catching up", "ended"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// EndReason says why a match ended.
type EndReason uint8

const (
	NotEnded       EndReason = iota
	EndClosed                // Close was called
	EndPlayersLeft           // every other player left (and their time to come back passed)
	EndHostGone              // the host (of a spectator or an authoritative client) is gone
	EndForfeit               // a player left under AbsenceForfeit (Status.Away names it)
)

var endNames = [...]string{"", "closed", "every other player left", "the host is gone", "a player forfeited by leaving"}

func (r EndReason) String() string {
	if int(r) < len(endNames) {
		return endNames[r]
	}
	return fmt.Sprintf("EndReason(%d)", uint8(r))
}

// Status is what a match is doing, for the game to draw: the benign
// conditions of a tick folded into one value (fatal errors are returned
// beside it). Its strings are names the match holds: reading a Status
// allocates nothing.
type Status struct {
	Phase    Phase
	Frame    rollnet.Frame // the frame the state shown is at
	Advanced bool          // this tick simulated at least one new frame

	// Have and Need count the players heard while Connecting.
	Have, Need int

	// Waiting names the peer a tick that did not advance waited for (its
	// inputs are late), "" if none.
	Waiting string

	// Interrupted names a peer not heard from lately; Timeout is how long
	// before it is declared gone.
	Interrupted string
	Timeout     time.Duration

	// Away names a player that dropped; ComeBack is how long it may still
	// rejoin (0: it will not).
	Away     string
	ComeBack time.Duration

	// Awaiting names the player every peer waits for (Config.Absence
	// AbsenceFreeze), stopped at frame AwaitedAt for AwaitedFor so far;
	// "" when none.
	Awaiting   string
	AwaitedAt  rollnet.Frame
	AwaitedFor time.Duration

	// Done and Total measure progress while Rejoining or CatchingUp, in
	// frames (Total may grow: the match goes on).
	Done, Total int

	// Desync, set once the peers found a difference, is the forensics
	// line: the frame, both checksums, the peer, the range the
	// simulations parted in.
	Desync string
	// Repaired, for a few seconds after a desync was repaired (P2P, see
	// Config.NoRepair), says so: "desync at frame F repaired from seat S
	// (name) in T ms; fields ..." on the peer repaired, "desync at frame
	// F with seat S (name) repaired in T ms" on the others; a spectator
	// repaired from its host says "repaired from NAME", and its host
	// "with NAME" (the spectator's). Desync is cleared then: the
	// simulations agree again.
	Repaired string

	Ended EndReason

	// InputDelay is the match's input delay in frames (P2P), RTT the round
	// trip to the peer (the worst of them), as the session measures it.
	InputDelay int
	RTT        time.Duration

	// For a network graph: Rollbacks counts the rollbacks so far (an
	// authoritative client's: host states that differed from its
	// prediction), FrameAdvantage how many frames this peer runs ahead of
	// the peer furthest behind (P2P).
	Rollbacks      int
	FrameAdvantage int

	// Rebuilds counts, for an entity match's client (EntityConfig), the
	// times its host found the client's set of entities disagree with
	// its own (by digest) and rebuilt it; the match goes on.
	Rebuilds int
}

// String is the status in a few words, for a status line (it allocates).
// An ended match says only that it ended, at which frame, why, who left
// and any desync: "ended at frame 150: every other player left (bob)".
func (s Status) String() string {
	var out string
	switch s.Phase {
	case Connecting:
		out = fmt.Sprintf("connecting: %d of %d players", s.Have, s.Need)
	case Rejoining, CatchingUp:
		out = fmt.Sprintf("%v: frame %d of %d", s.Phase, s.Done, s.Total)
	case Ended:
		// Over: nobody is waited for; say why, who left, and any desync.
		out = "ended: " + s.Ended.String()
		if s.Frame > 0 {
			out = fmt.Sprintf("ended at frame %d: %v", s.Frame, s.Ended)
		}
		if s.Away != "" && (s.Ended == EndPlayersLeft || s.Ended == EndForfeit) {
			out += " (" + s.Away + ")"
		}
		if s.Desync != "" {
			out += ", DESYNC " + s.Desync
		}
		return out
	default:
		out = s.Phase.String()
	}
	if s.Waiting != "" && s.Waiting != s.Awaiting { // (an awaited player is said below)
		out += ", waiting for " + s.Waiting
	}
	if s.Interrupted != "" {
		out += fmt.Sprintf(", %s interrupted (%v before dropped)", s.Interrupted, s.Timeout.Round(time.Second/10))
	}
	if s.Awaiting != "" {
		out += fmt.Sprintf(", waiting at frame %d for %s (%v)", s.AwaitedAt, s.Awaiting, s.AwaitedFor.Round(time.Second))
	}
	if s.Away != "" {
		if s.ComeBack > 0 {
			out += fmt.Sprintf(", %s away (%v to come back)", s.Away, s.ComeBack.Round(time.Second))
		} else {
			out += ", " + s.Away + " left"
		}
	}
	if s.Desync != "" {
		out += ", DESYNC " + s.Desync
	}
	if s.Repaired != "" {
		out += ", " + s.Repaired
	}
	return out
}
