package authority

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
)

// LateInput says what a host does with an input for a frame it already
// simulated.
type LateInput uint8

const (
	// LateApply (the default) applies a late input at the current frame:
	// the first frame simulated after it arrives for which the client
	// sent nothing of its own, in order, and counts it (LateApplied). A
	// client that stays late loses none (up to a bounded queue). A late
	// input still waiting after the client's own newer inputs held the
	// frames for RollbackWindow frames is superseded: the player has
	// moved on, and pressing it now would replay a stale action against
	// a world that moved on too; it is dropped and counted apart
	// (LateSuperseded). A resume's backlog is the exception: see
	// RejoinBacklog.
	LateApply LateInput = iota
	// LateRollback rolls the host back and re-simulates (the core session
	// does it) for a late input up to RollbackWindow frames old; older
	// ones are applied as with LateApply.
	LateRollback
)

// RejoinBacklog says what a host does with the inputs a resumed client
// made while it was cut off: its backlog, for frames the host simulated
// with predictions.
type RejoinBacklog uint8

const (
	// BacklogApply (the default) applies the backlog late, as the resume
	// promises: in order, one frame each, from the frame it arrives at,
	// before any of the client's newer inputs. What the player did while
	// cut off happens, that much later; the price is the client's own
	// inputs for as many frames (at most the client's Capacity, 128
	// frames by default), which the backlog holds the frames of: they are
	// dropped and counted (Displaced), and the client's prediction of its
	// own player is corrected meanwhile.
	BacklogApply RejoinBacklog = iota
	// BacklogSupersede treats the backlog as any late input: the client's
	// own newer inputs, on time again, supersede it (LateSuperseded). The
	// player's present is never held back; what it did while cut off is
	// lost, and its prediction corrected once. What most shipped
	// authoritative engines do.
	BacklogSupersede
)

// ClientBudgetDefault is HostConfig.ClientBudget's default: 256 KiB a
// second (2 Mbit/s), some fifty times what a client of a 16 KiB world of
// 1024 entities, eight moving a frame, is sent.
const ClientBudgetDefault = 256 << 10

// maxFullGap is the most frames between full states to a client that
// acknowledges none of them.
const maxFullGap = 128

// baselineWindow is how many recent host states a client keeps as delta
// baselines, and so how old an acknowledged state the host may code
// against (older: a full state).
const baselineWindow = 32

// HostConfig configures a Host. The zero value of every field but Players
// means its documented default.
type HostConfig[I comparable] struct {
	// Players is the number of player slots, 1..256 (LateRollback: 1..64):
	// the host's own (LocalPlayers, slots 0..LocalPlayers-1) then
	// SlotsPerClient for each client, in join order. A host of more than
	// 64 simulates without the core session (nothing is rolled back) and
	// is not recorded.
	Players int
	// LocalPlayers is how many slots the host itself drives (a listen
	// server); 0 is a dedicated host.
	LocalPlayers int
	// SlotsPerClient is how many slots each client drives, at most 64;
	// 0 means 1.
	SlotsPerClient int
	// InputAhead is how many frames past the host's an input may be for and
	// still be held; 0 means 32, at most 64. Further is not held (counted;
	// the client sends it again); a message claiming frames more than four
	// times further is malformed.
	InputAhead int
	// TargetDepth is how many frames early each client's inputs should
	// arrive; the host advises a rate change to hold it. 0 means 2. It is
	// held on the mean, measured when each frame is simulated; under
	// jitter and stalls (a process beside a CPU hog) the lead grows until
	// the latest-arriving inputs (about the 0.5th percentile of the last
	// 4 s) are on time still, by at most 6 frames more.
	TargetDepth int
	// MaxRate is the largest rate change advised, in thousandths; 0 means
	// 100 (10%).
	MaxRate int
	// StateInterval sends each client a state every this many ticks; 0
	// means 1.
	StateInterval int
	// LateInput chooses what happens to a late input; see LateInput.
	LateInput LateInput
	// RollbackWindow bounds LateRollback, in frames; 0 means 8, at most 32.
	RollbackWindow int
	// RejoinBacklog chooses what happens to a resumed client's backlog;
	// see RejoinBacklog.
	RejoinBacklog RejoinBacklog
	// Predict guesses a client's missing input from its last; nil repeats
	// the last. It must be deterministic.
	Predict func(player int, last I, frame rollnet.Frame) I
	// Grace is how long an away client's slots and rejoin token are kept;
	// 0 means 20 s. Then the slots are free and the token is void.
	Grace time.Duration
	// Tuning holds the host's protocol knobs; its zero value means the
	// defaults.
	Tuning HostTuning
	// JoinTimeout is how long a new client's record waits for its first
	// valid input once its Hello is answered; 0 means 5 s. Then the
	// record is freed however alive its connection (a Hello and
	// keep-alives hold no slot), and its address may not join again for
	// as long (HostStats.JoinTimeouts).
	JoinTimeout time.Duration
	// ClientBudget bounds the bytes of states and repairs a host sends
	// one client, per second (a token bucket holding at most a second's
	// worth, full at the Hello's answer): a state or Nack past it waits
	// (StatesDeferred, NacksRefused). 0 means ClientBudgetDefault.
	// Whatever the budget, a full state (to a client that acknowledged no
	// state the host still keeps) waits for the previous full one to be
	// acknowledged: the gap between them doubles, from one frame to
	// maxFullGap (128), while none is.
	ClientBudget int
	// MaxClientsPerAddress bounds the records, connected or away, one
	// address holds: the host part of a connection's name ("ip" of
	// "ip:port"), or the whole name on a transport whose names have no
	// port (WebRTC's peer IDs). A Hello for another is refused
	// (HellosRefused); a resume of one it holds is not. 0 means 4.
	MaxClientsPerAddress int
	// WaitForPlayers makes the host hold frame 0 (a lobby) until this
	// many slots are held: its own LocalPlayers and the slots of every
	// connected client; then it simulates frame 0 and on, and every
	// client's first state is frame 0's. 0 starts at the first
	// AdvanceFrame (no lobby); at most Players. While it waits the host
	// answers Hellos, keeps its links alive and simulates nothing (Frame
	// stays 0, HostStats.Waiting); a client that goes while it waits
	// frees its slots at once, and JoinTimeout counts from the start.
	WaitForPlayers int
	// LobbyTimeout starts the match with whoever is there when it has
	// waited this long from the first AdvanceFrame; 0 waits for
	// WaitForPlayers however long.
	LobbyTimeout time.Duration
	// Absence is what the match does while a client's player is away
	// (its connection silent for Net.DisconnectNotify, or gone):
	// rollnet.AbsencePredict (the zero value) plays on with its input
	// predicted; AbsenceFreeze stops the match for every peer at one
	// frame no client has simulated past, until the player is back (a
	// rejoin, or its connection heard again) or its Grace passes, and
	// resumes it for all within a round trip; AbsenceForfeit stops it
	// there for good (HostStats.Forfeited, rollnet.EventPlayerForfeited)
	// and the game decides. The host decides for its clients: they follow
	// what its states and holds say (see absence.go).
	Absence rollnet.Absence
	// PlayingSlots, when above 0, says slots 0..PlayingSlots-1 are the
	// players' and the rest spectators' (whose inputs move nothing):
	// under Absence the match waits only for a client holding a
	// player's slot. 0: every slot is a player's.
	PlayingSlots int
	// MaxRewind bounds lag compensation (NewHostLagComp): a player's
	// sight is never older than this behind the frame it acts at (an
	// older one is moved up to it and counted), so a client claiming an
	// old view gets no rewind past it. 0 means DefaultMaxRewind (300 ms);
	// at most 60 frames.
	MaxRewind time.Duration
	// Net is the per-connection link's settings, as a P2P session's:
	// FrameRate (in the settings hash), keep-alive, quality reports (the
	// round-trip time; in this mode a zero QualityInterval means 1 s, not
	// 200 ms: the round trip only informs the statistics), DisconnectTimeout (a client silent that long is
	// away: its slots predicted, its token valid for Grace), Settings (the
	// game's own hash, mixed into the one a Hello must carry), the clock
	// (Now) and Rand (resume tokens).
	Net rollnet.NetConfig
}

type hostSettings struct {
	players, locals, perClient, maxClients   int
	ahead, target, maxRate, interval, window int
	copies, maxPkts, maxJoins, perAddress    int
	budget                                   int64
	grace, spacing, joinTimeout              int64
	waitFor                                  int
	lobby                                    int64
	rewind                                   int // MaxRewind in frames
	late                                     LateInput
	noChain                                  bool // tests: code against acknowledgements alone (Host.base)
	backlog                                  RejoinBacklog
	net                                      link.Settings
}

// HostTuning holds a host's protocol knobs, apart from what a game must
// decide in HostConfig (as pion keeps its SettingEngine apart from its
// Configuration). The zero value of every field means its default.
type HostTuning struct {
	// WelcomeCopies is how many copies of the one answer to a Hello are
	// sent, WelcomeSpacing apart, against loss; 0 means 3 and 100 ms.
	WelcomeCopies  int
	WelcomeSpacing time.Duration
	// MaxPacketsPerTick bounds what one client may make the host read per
	// tick; more are dropped and counted. 0 means 64.
	MaxPacketsPerTick int
	// MaxJoinsPerTick bounds the Hellos from unknown peers answered per
	// tick (those with the wrong settings, or that do not decode, are
	// refused without counting); 0 means 4.
	MaxJoinsPerTick int
}

// DefaultGrace is the Grace a zero HostConfig.Grace means: how long an
// away client's slots and rejoin token are kept.
const DefaultGrace = 20 * time.Second

func (c HostConfig[I]) resolve() (hostSettings, error) {
	s := hostSettings{
		players: c.Players, locals: c.LocalPlayers, perClient: or(c.SlotsPerClient, 1),
		ahead: or(c.InputAhead, 32), target: or(c.TargetDepth, 2),
		maxRate: or(c.MaxRate, 100), interval: or(c.StateInterval, 1), window: or(c.RollbackWindow, 8),
		copies: or(c.Tuning.WelcomeCopies, 3), maxPkts: or(c.Tuning.MaxPacketsPerTick, 64), maxJoins: or(c.Tuning.MaxJoinsPerTick, 4),
		perAddress: or(c.MaxClientsPerAddress, 4), budget: int64(or(c.ClientBudget, ClientBudgetDefault)), joinTimeout: int64(or(c.JoinTimeout, 5*time.Second)),
		grace:   int64(or(c.Grace, DefaultGrace)),
		spacing: int64(or(c.Tuning.WelcomeSpacing, 100*time.Millisecond)), late: c.LateInput,
		backlog: c.RejoinBacklog, waitFor: c.WaitForPlayers, lobby: int64(c.LobbyTimeout),
	}
	switch {
	case s.players < 1 || s.players > maxHostPlayers:
		return s, fmt.Errorf("%w: Players %d not in [1, %d]", errConfig, c.Players, maxHostPlayers)
	case s.players > maxCorePlayers && c.LateInput != LateApply:
		return s, fmt.Errorf("%w: LateRollback holds at most %d Players (%d)", errConfig, maxCorePlayers, c.Players)
	case s.locals < 0 || s.locals > s.players:
		return s, fmt.Errorf("%w: LocalPlayers %d not in [0, Players]", errConfig, c.LocalPlayers)
	case s.perClient < 1 || s.perClient > s.players || s.perClient > wire.MaxPlayers:
		return s, fmt.Errorf("%w: SlotsPerClient %d not in [1, min(Players, %d)]", errConfig, c.SlotsPerClient, wire.MaxPlayers)
	case s.ahead < 1 || s.ahead > 64:
		return s, fmt.Errorf("%w: InputAhead %d not in [1, 64]", errConfig, c.InputAhead)
	case s.target < 1 || s.target > s.ahead:
		return s, fmt.Errorf("%w: TargetDepth %d not in [1, InputAhead]", errConfig, c.TargetDepth)
	case s.maxRate < 1 || s.maxRate > 500:
		return s, fmt.Errorf("%w: MaxRate %d not in [1, 500]", errConfig, c.MaxRate)
	case s.interval < 1 || s.interval > baselineWindow:
		return s, fmt.Errorf("%w: StateInterval %d not in [1, %d]", errConfig, c.StateInterval, baselineWindow)
	case s.window < 1 || s.window > 32:
		return s, fmt.Errorf("%w: RollbackWindow %d not in [1, 32]", errConfig, c.RollbackWindow)
	case s.late > LateRollback:
		return s, fmt.Errorf("%w: LateInput %d unknown", errConfig, c.LateInput)
	case s.backlog > BacklogSupersede:
		return s, fmt.Errorf("%w: RejoinBacklog %d unknown", errConfig, c.RejoinBacklog)
	case s.copies < 1 || s.copies > 10 || s.maxPkts < 1 || s.maxJoins < 1 || s.perAddress < 1:
		return s, fmt.Errorf("%w: WelcomeCopies, MaxPacketsPerTick, MaxJoinsPerTick, MaxClientsPerAddress must be positive (copies at most 10)", errConfig)
	case s.budget < 1:
		return s, fmt.Errorf("%w: ClientBudget %d not positive", errConfig, c.ClientBudget)
	case !c.Absence.Valid():
		return s, fmt.Errorf("%w: Absence %v unknown", errConfig, c.Absence)
	case c.PlayingSlots < 0 || c.PlayingSlots > s.players:
		return s, fmt.Errorf("%w: PlayingSlots %d not in [0, Players]", errConfig, c.PlayingSlots)
	case s.waitFor < 0 || s.waitFor > s.players:
		return s, fmt.Errorf("%w: WaitForPlayers %d not in [0, Players]", errConfig, c.WaitForPlayers)
	case s.grace < 0 || s.spacing < 0 || s.joinTimeout < 0 || s.lobby < 0:
		return s, fmt.Errorf("%w: negative duration", errConfig)
	}
	s.maxClients = (s.players - s.locals) / s.perClient
	var err error
	if s.net, err = resolveNet(c.Net); err != nil {
		return s, fmt.Errorf("%w: %w", errConfig, err)
	}
	rewind := or(c.MaxRewind, DefaultMaxRewind)
	s.rewind = int(int64(rewind) * int64(s.net.FrameRate) / int64(time.Second))
	if rewind < 0 || s.rewind > maxRewindFrames {
		return s, fmt.Errorf("%w: MaxRewind %v not in [0, %d frames]", errConfig, c.MaxRewind, maxRewindFrames)
	}
	s.rewind = max(s.rewind, 1)
	return s, nil
}

// or is v, or d when v is the zero value (a Config field's default).
func or[T comparable](v, d T) T {
	var zero T
	if v == zero {
		return d
	}
	return v
}

// ClientConfig configures a Client. The zero value of every field but
// Host and Players means its documented default.
type ClientConfig struct {
	// Host is the host's transport identity.
	Host transport.Peer
	// Players must equal the host's (it is in the settings hash).
	Players int
	// Capacity is how many predicted frames the client keeps for
	// comparison and re-simulation, a power of two; 0 means 128.
	Capacity int
	// MaxSend is the most frames of inputs one message carries; 0 means
	// 128 (wire.MaxFrames), at most Capacity.
	MaxSend int
	// TargetDepth is how many frames ahead of the host the client starts
	// beyond one round trip (time dilation then holds the host's target);
	// 0 means 2.
	TargetDepth int
	// NackAfter is how many ticks an incomplete state waits, after its
	// newest fragment, before the missing ones are asked for; 0 means 2.
	NackAfter int
	// Playout configures the presentation: the paced queue of host
	// states, the render clock, the timestep's largest dilation.
	Playout PlayoutConfig
	// Net is the link's settings, and must agree with the host's in
	// FrameRate and Settings (the settings hash; a host of others refuses
	// the client, ErrSettings). A zero QualityInterval means 1 s (the
	// round trip only informs Stats; the client's lead comes from the
	// Hello's). A Hello is retried every
	// SyncRetry; the host is lost after DisconnectTimeout of silence (then
	// Rejoin). Rand gives Hello nonces.
	Net rollnet.NetConfig
	// Rejoin is a rejoin token kept from an earlier client (its
	// RejoinToken), for a process started again: the first Hello asks for its slots back.
	// Within the host's grace window RESUME_ACCEPT gives them back and the
	// host's next full state starts this client's world (it has none to go
	// on with); after it, RESUME_REJECT and a fresh INITIAL_SYNC. The zero
	// token (the default) joins afresh.
	Rejoin rollnet.RejoinToken
}
