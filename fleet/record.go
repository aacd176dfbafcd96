package fleet

import (
	"fmt"
	"slices"

	"github.com/rollnet/rollnet/internal/fleetkv"
)

// Game is one game a host runs: its name and how many clients one match
// of it takes.
type Game struct {
	Name    string `json:"name"`
	Clients int    `json:"clients"`
}

// Capacity is what a host can hold at once.
type Capacity struct {
	Matches int `json:"matches"`
	Clients int `json:"clients"`
}

// Match is one match placed on a host: its room, game and the clients
// placed in it (tokens handed out), with when it was placed (Unix ms, the
// placer's clock) and whether the host has it running.
type Match struct {
	Room    string `json:"room"`
	Game    string `json:"game"`
	Clients int    `json:"clients"`
	Placed  int64  `json:"placed"`
	Running bool   `json:"running,omitempty"`
}

// Host is a host's record in the fleet's bucket, key "host.<ID>". The host
// writes everything but Matches' new entries and clients, which placers
// add by compare-and-set on the key's revision; both sides write only by
// compare-and-set, so no write is lost.
type Host struct {
	// Layout is the bucket layout the host writes (2 for this version):
	// a placer places nothing on a host of another layout (an older host
	// takes drain orders from its record and writes room keys, which the
	// fleet's permissions no longer let it do).
	Layout  int    `json:"layout"`
	ID      string `json:"id"`
	Version string `json:"version"`
	Games   []Game `json:"games"`
	// QUIC is the address native clients dial and connect tokens name;
	// WebTransport the URL browsers open ("" for none); SHA256 the
	// certificate's hash for a client to pin (hex, "" for a certificate
	// that verifies).
	QUIC         string   `json:"quic"`
	WebTransport string   `json:"webtransport,omitempty"`
	SHA256       string   `json:"sha256,omitempty"`
	Capacity     Capacity `json:"capacity"`
	// Beat counts the host's heartbeats: a placer that has not seen it
	// change for Config.DeadAfter takes the host for gone.
	Beat uint64 `json:"beat"`
	// Draining hosts take no new match. The host writes it when it
	// drains (SIGTERM, POST /drain, or an operator's drain order under
	// drain.<id>); it never drains because its record says so, since
	// placers may write the record too.
	Draining bool `json:"draining,omitempty"`
	// Running and Connected are the host's own counts at its last beat:
	// matches it steps and clients connected.
	Running   int     `json:"running"`
	Connected int     `json:"connected"`
	Matches   []Match `json:"matches"`
}

// used is the clients placed on h (tokens handed out, in every match).
func (h *Host) used() int {
	n := 0
	for _, m := range h.Matches {
		n += m.Clients
	}
	return n
}

// clientsOf is how many clients a match of game takes on h, 0 if h does
// not run it.
func (h *Host) clientsOf(game string) int {
	for _, g := range h.Games {
		if g.Name == game {
			return g.Clients
		}
	}
	return 0
}

// match returns the index of room's match on h, or -1.
func (h *Host) match(room string) int {
	return slices.IndexFunc(h.Matches, func(m Match) bool { return m.Room == room })
}

// room reports whether h has room for a new match of game: it runs the
// game, is not draining, and a match's worth of clients fits beside the
// matches placed.
func (h *Host) room(game string) bool {
	per := h.clientsOf(game)
	return per > 0 && !h.Draining && len(h.Matches) < h.Capacity.Matches && h.used()+1 <= h.Capacity.Clients
}

// Validate checks what a record says (an error wrapping rollnet.ErrConfig
// if it is out of bounds): a placer checks every record it reads from the
// bucket (the bucket is shared, so a record is input), and a host its own
// before it joins.
func (h *Host) Validate() error {
	switch {
	case !fleetkv.ValidName(h.ID, fleetkv.MaxID):
		return fmt.Errorf("%w: host id %q", errConfig, h.ID)
	case !fleetkv.ValidVersion(h.Version):
		return fmt.Errorf("%w: version %q of host %s", errConfig, h.Version, h.ID)
	case len(h.Games) == 0 || len(h.Games) > fleetkv.MaxGames:
		return fmt.Errorf("%w: host %s runs %d games (1 to %d)", errConfig, h.ID, len(h.Games), fleetkv.MaxGames)
	case h.QUIC == "" || len(h.QUIC) > fleetkv.MaxAddress:
		return fmt.Errorf("%w: host %s QUIC address %q", errConfig, h.ID, h.QUIC)
	case h.Capacity.Matches < 1 || h.Capacity.Clients < 1:
		return fmt.Errorf("%w: host %s capacity %+v", errConfig, h.ID, h.Capacity)
	}
	for _, g := range h.Games {
		if !fleetkv.ValidName(g.Name, fleetkv.MaxName) || g.Clients < 1 {
			return fmt.Errorf("%w: host %s game %+v", errConfig, h.ID, g)
		}
	}
	return nil
}
