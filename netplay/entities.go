package netplay

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/rollback"
)

// EntityConfig is the entity mode of an authoritative match (the
// Entities option of Host, Connect and HostOrConnect): the host runs the
// whole world and sends each client the entities relevant to it, by
// interest and priority within its budget (package authority/entity);
// the client holds a mirror of them, predicts the entity its player
// controls and draws the others at one render time. Every peer of a match
// passes the same Capacity and Size (checked when a client joins).
//
// The world S keeps a table of Capacity entities: Slots returns its
// []entity.Slot (spawned and despawned with entity.Spawn and Despawn), the
// game's entities beside it indexed alike. On a client, State is a world
// of the same type that holds only the entities relevant to it: netplay
// sets their slots and decodes them (Decode); the rest of S is the
// game's.
//
// A client's inputs are numbered; the host applies one a tick, in
// order, however they arrived (a burst waits its turn, within a backlog
// sized from the link), and tells the client each tick how many were
// waiting and the tick rate to run at to keep a few waiting: the
// client's AdvanceFrame steps through a fixed timestep at that rate (at
// most 10% off), so a call may take no step or several (Stats.InputLead,
// TimeScale; the host counts late, too early, skipped and held inputs).
type EntityConfig[S any, I comparable] struct {
	// Capacity is the table's length, Size an entity's wire encoding in
	// bytes (1 to 512).
	Capacity, Size int
	// Slots returns the world's entity table (len Capacity).
	Slots func(s *S) []entity.Slot
	// Encode writes the wire encoding of the live entity at index into
	// dst (Size bytes): the game's quantization. The host's world keeps
	// its exact values; a client compares encodings.
	Encode func(s *S, dst []byte, index int)
	// Decode writes into a client's world the entity at index as from +
	// alpha×(to − from), two encodings (the same one, alpha 0, to set it
	// as is).
	Decode func(s *S, index int, from, to []byte, alpha float32)
	// Interest appends to dst the indices of the entities relevant to
	// the player in slot (an entity.Grid's AppendNear fits) and returns
	// the extended slice.
	Interest func(s *S, slot int, dst []int32) []int32
	// Own is the index of the entity the player in slot controls, -1 for
	// none: the host's answer is sent to that client with its state each
	// tick, and the client predicts it.
	Own func(s *S, slot int) int
	// Predict steps, in a client's world, the entity the player in slot
	// controls (at index) by one tick of its input: the client's
	// prediction, compared with the host's encoding of the same input and
	// redone from the host's values when they differ.
	Predict func(s *S, slot, index int, in I)
	// Priority, if set, is what an entity the player in slot has to be
	// sent gains each tick beyond 1 (entity.HostConfig.Priority).
	Priority func(s *S, slot, index int) float32
	// Changed, if set, appends to dst the indices of the entities whose
	// encoding may have changed since the host's previous frame and
	// returns the extended slice (entity.HostConfig.Changed): the host
	// then encodes only those, and passes over the entities a client
	// holds that did not change, where it encodes and compares every
	// held entity each frame. The game's simulate knows what it moved
	// (keep the list in S, emptied as each frame starts); a game that
	// sets Changed must name every change, spawns and despawns included.
	// It is not used with MaxRewind above 0, whose history needs every
	// held entity's encoding each frame.
	Changed func(s *S, dst []int32) []int32
	// BytesPerSecond is each client's budget for entities (0 means
	// entity's default, 16,000), Linger the ticks an entity stays after
	// it was last relevant (0 means 30).
	BytesPerSecond, Linger int
	// MaxRewind, above 0, turns on lag compensation (Match.Seen): the
	// host keeps every entity's encoding of its last MaxRewind of ticks
	// (Capacity×(Size+4) bytes a tick) and judges a player's action
	// against the entities as that player drew them, never further back
	// than MaxRewind behind the frame it acts at (authority's
	// DefaultMaxRewind, 300 ms, covers a 100 ms round trip). 0 is off;
	// clients stamp what they drew either way.
	MaxRewind time.Duration
}

// Option is an option of Host, Connect and HostOrConnect.
type Option[S any, I comparable] struct {
	entities  *EntityConfig[S, I]
	lagcomp   func(s *S, inputs []I, frame rollnet.Frame, seen *authority.Sights[S])
	maxRewind time.Duration
}

// LagComp plays an authoritative match of the whole world with lag
// compensation (authority.NewHostLagComp and NewClientLagComp): simulate
// is the game's step given what each player saw when it made the frame's
// input (seen.Of), and is used in place of the simulate passed to Host or
// Connect (which may be nil). The client stamps every input with the host
// states it drew, and its Playout returns them (the states and the blend
// its next inputs are judged against: draw from it); the
// host honours a sight up to maxRewind behind the frame acted at (0
// means authority.DefaultMaxRewind, 300 ms) and counts older, newer and
// jumping ones (authority.HostClientStats). The entity mode's lag
// compensation is EntityConfig.MaxRewind.
func LagComp[S any, I comparable](maxRewind time.Duration, simulate func(s *S, inputs []I, frame rollnet.Frame, seen *authority.Sights[S])) Option[S, I] {
	return Option[S, I]{lagcomp: simulate, maxRewind: maxRewind}
}

// Entities plays the match in the entity mode (EntityConfig).
func Entities[S any, I comparable](cfg EntityConfig[S, I]) Option[S, I] {
	return Option[S, I]{entities: &cfg}
}

// maxEntityPlayers is the most slots of an entity match (a hello says
// the players in a byte).
const maxEntityPlayers = 250

// maxEntityRewind bounds EntityConfig.MaxRewind: the history it keeps.
const maxEntityRewind = 2 * time.Second

// maxEntitySize is the largest entity encoding: a state message holds the
// client's own entity and one record beside its headers in MaxDatagram.
const maxEntitySize = 512

// apply sets the options on a kind.
func (k *kind[S, I]) apply(opts []Option[S, I]) error {
	for _, o := range opts {
		if o.lagcomp != nil {
			if o.maxRewind < 0 {
				return fmt.Errorf("%w: LagComp's maxRewind %v", errConfig, o.maxRewind)
			}
			k.lagcomp, k.maxRewind = o.lagcomp, o.maxRewind
		}
		if o.entities == nil {
			continue
		}
		if err := o.entities.check(); err != nil {
			return err
		}
		ec := *o.entities
		k.maxSeats = maxEntityPlayers
		k.rejoin = 0 // an entity client joins afresh
		k.entities = true
		switch k.mode {
		case ModeHost:
			k.choose = func(m *Match[S, I], _ bool) driver[S, I] { return newEntityHost(m, ec) }
		case ModeClient:
			k.choose = func(m *Match[S, I], _ bool) driver[S, I] { return newEntityClient(m, ec) }
		default: // HostOrConnect
			k.choose = func(m *Match[S, I], first bool) driver[S, I] {
				if first {
					return newEntityHost(m, ec)
				}
				m.cfg.LocalPlayers = 0
				return newEntityClient(m, ec)
			}
		}
	}
	if k.lagcomp != nil && slices.ContainsFunc(opts, func(o Option[S, I]) bool { return o.entities != nil }) {
		return fmt.Errorf("%w: LagComp is the whole world's; the entity mode's is EntityConfig.MaxRewind", errConfig)
	}
	return nil
}

func (c *EntityConfig[S, I]) check() error {
	switch {
	case c.Capacity <= 0 || c.Capacity > 1<<24:
		return fmt.Errorf("%w: EntityConfig.Capacity %d, want 1 to 2^24", errConfig, c.Capacity)
	case c.Size <= 0 || c.Size > maxEntitySize:
		return fmt.Errorf("%w: EntityConfig.Size %d, want 1 to %d", errConfig, c.Size, maxEntitySize)
	case c.Slots == nil || c.Encode == nil || c.Decode == nil || c.Interest == nil || c.Own == nil || c.Predict == nil:
		return fmt.Errorf("%w: EntityConfig needs Slots, Encode, Decode, Interest, Own and Predict", errConfig)
	case c.BytesPerSecond < 0 || c.Linger < 0:
		return fmt.Errorf("%w: EntityConfig: negative BytesPerSecond or Linger", errConfig)
	case c.MaxRewind < 0 || c.MaxRewind > maxEntityRewind:
		return fmt.Errorf("%w: EntityConfig.MaxRewind %v, want 0 to %v", errConfig, c.MaxRewind, maxEntityRewind)
	}
	ti := reflect.TypeFor[I]()
	if err := rollback.CheckType(ti); err != nil {
		return fmt.Errorf("%w: input type: %w", errConfig, err)
	}
	if ti.Size() == 0 || ti.Size() > 32 {
		return fmt.Errorf("%w: input type %s is %d bytes, want 1..32", errConfig, ti, ti.Size())
	}
	return nil
}

// inputSize is the wire size of I.
func inputSize[I comparable]() int { return int(reflect.TypeFor[I]().Size()) }

// entityFrame is a frame number for the Status.
func entityFrame(tick uint32) rollnet.Frame { return rollnet.Frame(tick) }
