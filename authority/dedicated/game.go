package dedicated

import (
	"fmt"
	"slices"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/transport"
)

// Sim is a game's simulation as a dedicated host runs it. A Sim is a
// Game: hand it to Main or Run.
type Sim[S any, I comparable] struct {
	// Name is the game's name, which -game picks.
	Name string
	// Players is the number of player slots, SlotsPerClient how many each
	// client drives (0: 1); the host holds none.
	Players, SlotsPerClient int
	// Simulate advances the state one frame; deterministic.
	Simulate func(s *S, inputs []I, frame rollnet.Frame)
	// Settings is the game's settings hash for a room (mixed into the one
	// a client's Hello must carry: a pong client derives its serve seed
	// from the room's name); nil means 0.
	Settings func(room string) uint64
	// Init is the state before frame 0 for those settings; nil means the
	// zero state.
	Init func(settings uint64) S
	// LateInput is the host's choice for late inputs (authority.LateInput).
	LateInput authority.LateInput
	// PlayingSlots, when above 0, says the slots past it are spectators'
	// (authority.HostConfig.PlayingSlots): the host's -absence never
	// waits for them.
	PlayingSlots int
	// Announce, if set, is the game's own message after each frame, sent
	// to every connected client beside the mode's packets (for a
	// netplay.Match's Config.OnMessage, frame it with greeting.AppendMessage):
	// it appends it
	// for frame (whose state's CRC32-C is crc) to dst, or returns dst as
	// it is for none. The pong demo sends its checksums this way, so its
	// clients check the states they applied against a dedicated host too.
	Announce func(dst []byte, frame rollnet.Frame, crc uint32) []byte
}

// Game is a game a dedicated host can run: a Sim of any state and input
// types, handed to Main or Run in a list. Its methods are unexported, so a
// Sim is the only Game.
type Game interface {
	name() string
	valid() bool
	players() (players, perClient int)
	open(tr transport.Transport, room string, lim limits, net rollnet.NetConfig) (host, error)
	announce() func(dst []byte, frame rollnet.Frame, crc uint32) []byte
	settings(room string) uint64
}

// host is the part of an authority.Host the command drives.
type host interface {
	AdvanceFrame() error
	Frame() rollnet.Frame
	Stats() authority.HostStats
	Clients(dst []authority.HostClientStats) []authority.HostClientStats
	Events(dst []rollnet.Event) []rollnet.Event
	ChecksumAt(frame rollnet.Frame) (uint32, error)
	Close() error
}

func (g Sim[S, I]) name() string { return g.Name }

func (g Sim[S, I]) valid() bool { return g.Name != "" && g.Simulate != nil }

func (g Sim[S, I]) players() (int, int) { return g.Players, max(g.SlotsPerClient, 1) }

func (g Sim[S, I]) announce() func([]byte, rollnet.Frame, uint32) []byte { return g.Announce }

func (g Sim[S, I]) settings(room string) uint64 {
	if g.Settings == nil {
		return 0
	}
	return g.Settings(room)
}

func (g Sim[S, I]) open(tr transport.Transport, room string, lim limits, net rollnet.NetConfig) (host, error) {
	if g.Settings != nil {
		net.Settings = g.Settings(room)
	}
	h, err := authority.NewHost[S](authority.HostConfig[I]{
		Players: g.Players, SlotsPerClient: g.SlotsPerClient,
		InputAhead: lim.inputAhead, LateInput: g.LateInput,
		Grace: lim.grace, Tuning: authority.HostTuning{MaxPacketsPerTick: lim.packets, MaxJoinsPerTick: lim.joins},
		JoinTimeout: lim.joinTimeout, MaxClientsPerAddress: lim.perAddress, ClientBudget: lim.budget,
		WaitForPlayers: lim.waitFor, LobbyTimeout: lim.lobby,
		Absence: lim.absence, PlayingSlots: g.PlayingSlots,
		Net: net,
	}, tr, g.Simulate)
	if err != nil {
		return nil, err
	}
	if g.Init != nil {
		*h.State() = g.Init(net.Settings)
	}
	return h, nil
}

// games is the list of games a host was handed, checked: each named, with
// a Simulate, and no name twice.
type games []Game

func checkGames(list []Game) (games, error) {
	seen := make(map[string]bool, len(list))
	for _, g := range list {
		if g == nil || !g.valid() || seen[g.name()] {
			return nil, fmt.Errorf("%w: dedicated: a game with no name, no Simulate, or a name twice", rollnet.ErrConfig)
		}
		seen[g.name()] = true
	}
	return list, nil
}

// lookup finds the game named name, or the only one for "".
func (gs games) lookup(name string) (Game, string, error) {
	if name == "" && len(gs) == 1 {
		return gs[0], gs[0].name(), nil
	}
	for _, g := range gs {
		if g.name() == name {
			return g, name, nil
		}
	}
	return nil, "", fmt.Errorf("%w: unknown game %q (registered: %v)", ErrUsage, name, gs.names())
}

// names are the games' names, sorted.
func (gs games) names() []string {
	names := make([]string, 0, len(gs))
	for _, g := range gs {
		names = append(names, g.name())
	}
	slices.Sort(names)
	return names
}
