// Package entity replicates a game's entities to each client by
// interest and priority within the client's budget, and checks by digest
// that the client holds what the host thinks it holds. It is the
// network-free core of the authoritative mode at scale: the game (or a
// driver) moves its datagrams.
//
// # Entities
//
// The game keeps a fixed-capacity table in its state: an array of Slot
// beside an array of its entities, indexed alike. Spawn, Despawn and Live
// work on it. An entity is named by a Key, its slot index and the
// generation the slot had when it was spawned; Despawn bumps the
// generation, so a key kept past its entity's death stops naming
// anything. The generation is 16 bits and wraps after 65,536 despawns of
// one slot: a key kept across exactly that many names the new occupant,
// undetected.
//
// # The host
//
// Each tick the game steps its exact simulation, then calls Host.Tick
// with its table. The host asks HostConfig.Encode for the wire encoding
// (the game's quantization; the host's state stays exact) of each entity
// some client holds or is entering, once a tick, and notes which
// encodings changed; a game that knows what it moved sets
// HostConfig.Changed, and the host then encodes only the entities it
// names (and a slot's new occupant). Host.Append then builds each
// client's update: HostConfig.Interest names the relevant entities (a
// Grid answers by distance; the host asks about each client every
// HostConfig.InterestEvery ticks); one relevant for the first time is entered
// (its whole encoding), one whose encoding changed since the newest state
// that client acknowledged of it is changed (its whole encoding again,
// absolute, so applying it twice or late is harmless), and one irrelevant
// for HostConfig.Linger ticks, or despawned, leaves. Every entity that
// needs sending gains 1 plus HostConfig.Priority each tick; the highest
// go first until the update (at most HostConfig.MTU bytes) or the
// client's budget (HostConfig.BytesPerSecond, counting 28 bytes of IP
// and UDP header per datagram) is full, and what was sent starts again
// from 0. Nothing is dropped: it waits its turn. What was sent and not
// acknowledged within a round trip is sent again. A slot despawned and
// spawned again while a client still holds its previous occupant enters
// that client once the previous occupant's leave is acknowledged, a
// round trip later.
//
// # A slow link
//
// On a link slower than the budget the updates would queue on the way
// (a transport's bulk path holds up to 64 KiB, 4 s at the default
// budget), each state staler than the last. The host learns from its acks
// the link's round trip without a queue (the least seen) and the bytes a
// tick it carries. Once a round trip shows a queue, it holds back a
// client's updates while what it has in flight passes what the link
// carries in that round trip and a quarter of a second
// (HostStats.HeldBack): an update waits about a quarter of a second and
// one update's time on the link at most, where nothing bounded it before.
// A path that gets longer is learned within 20 seconds.
//
// # The client
//
// A Client is the mirror: it applies each update (the newest update wins
// per entity, whatever order they arrive in), and its AppendAck names
// the newest update and the 64 before it that it applied, with the size
// and digest of its set. An update older than that window is dropped
// unapplied. The game reads the mirror with Client.Entity: each state
// carries the host tick it is of; the game decodes it, draws remote
// entities from paced states and predicts its own from its inputs,
// comparing what arrives with what it predicted for that tick before
// correcting.
//
// # Agreement
//
// Both sides keep a digest of the client's set: the sum, modulo 2^64,
// of a 64-bit mix of each key. It does not depend on order, moves in O(1)
// as entities enter and leave, and (unlike an XOR) shows a key counted
// twice. The host builds its copy from the acknowledged updates only,
// with the same newest-wins rule, and compares it with each ack's. On a
// mismatch it counts one (HostStats.Mismatches), bumps the set's epoch
// and enters every entity again; the client clears its mirror on the
// first update of the new epoch and counts a divergence. Every message
// ends with a CRC32-C; one that fails it, or does not parse, is counted
// and dropped whole. The client keeps three counters apart: Gaps (update
// numbers the wire lost), Stale (records naming an occupant the mirror
// does not hold) and Divergences (rebuilds).
//
// # Hostile clients
//
// An ack names updates by number, never entities, so one naming an
// update never sent is counted and dropped (Forged), as are acks
// overtaken by a later one (Replayed) and past four a tick (Flooded). A
// client that acknowledges nothing costs the host its budget and no
// more: what is unacknowledged waits its turn like the rest.
//
// # Memory and allocation
//
// The host keeps Capacity×(Size+16) bytes of encodings and marks (4
// more with HostConfig.Changed) and,
// per client, its set (about 48 bytes an entity) and a ring of the
// records of its last 65 updates (4 bytes a record, sized by the
// budget); the client keeps Capacity×(Size+11) bytes. A world is bounded
// by that memory, not by a datagram: 10,000 entities of 32 bytes is
// 320 KB. Host.Tick, Host.Append, Host.Receive, Client.Receive and
// Client.AppendAck do not allocate once a client's set has reached its
// largest size (and buffers have room).
package entity
