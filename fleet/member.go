//go:build !js

package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// HostInfo is what a host says of itself when it joins a fleet.
type HostInfo struct {
	ID           string
	Version      string
	Games        []Game
	QUIC         string
	WebTransport string
	SHA256       string
	Capacity     Capacity
}

// MemberStats are a Member's counters.
type MemberStats struct {
	Beats, BeatFailures uint64
	Draining            bool
}

// Member is a host's part in a fleet: it writes the host's record every
// heartbeat (by compare-and-set, keeping the matches placers added),
// takes ended and never-joined matches out of it, and drains. Its
// methods are safe for concurrent use.
type Member struct {
	cfg  Config
	info HostInfo
	nc   *nats.Conn
	kv   jetstream.KeyValue
	log  *slog.Logger

	mu        sync.Mutex
	running   map[string]bool      // rooms the host steps
	connected int                  // clients connected
	ended     map[string]string    // rooms ended, by room: their game (their room keys to delete)
	firstSeen map[string]time.Time // placed rooms not running yet, when first seen in the record
	placed    map[string]bool      // the rooms of the record at the last beat
	draining  bool
	kick      chan struct{}

	beats, failures atomic.Uint64
	stop            chan struct{}
	done            chan struct{}
	once            sync.Once
}

// Join registers the host described by info in the fleet on nc and starts
// its heartbeat. A host that was registered under the same id (a restart)
// takes its record over.
func Join(nc *nats.Conn, info HostInfo, cfg Config, log *slog.Logger) (*Member, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	rec := Host{ID: info.ID, Version: info.Version, Games: info.Games, QUIC: info.QUIC,
		WebTransport: info.WebTransport, SHA256: info.SHA256, Capacity: info.Capacity}
	if err := rec.validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.OpTimeout)
	defer cancel()
	kv, err := openBucket(ctx, nc, cfg)
	if err != nil {
		return nil, err
	}
	m := &Member{cfg: cfg, info: info, nc: nc, kv: kv, log: log,
		running: map[string]bool{}, ended: map[string]string{}, firstSeen: map[string]time.Time{}, placed: map[string]bool{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	// A restart under the same id starts from an empty record: the matches
	// of the process before are gone with it.
	b, _ := json.Marshal(rec)
	if _, err := kv.Put(ctx, hostKey(info.ID), b); err != nil {
		return nil, unavailable("registering", err)
	}
	m.beats.Add(1)
	go m.loop()
	return m, nil
}

func (m *Member) loop() {
	defer close(m.done)
	t := time.NewTicker(m.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		case <-m.kick:
		}
		if err := m.beat(); err != nil {
			m.failures.Add(1)
			m.log.Warn("fleet heartbeat failed", "err", err)
		} else {
			m.beats.Add(1)
		}
	}
}

// beat rewrites the record: a new Beat, the host's counts, its matches
// (placers' additions kept, ended and expired ones out).
func (m *Member) beat() error {
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
	defer cancel()
	key := hostKey(m.info.ID)
	for range 4 {
		var rec Host
		var rev uint64
		e, err := m.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return unavailable("reading the host's record", err)
		default:
			rev = e.Revision()
			if err := json.Unmarshal(e.Value(), &rec); err != nil {
				rec = Host{} // not ours to trust: rewritten whole
			}
		}
		ended := m.update(&rec)
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if rev == 0 {
			_, err = m.kv.Create(ctx, key, b)
		} else {
			_, err = m.kv.Update(ctx, key, b, rev)
		}
		if conflict(err) {
			continue // a placer wrote between: again, on its version
		}
		if err != nil {
			return unavailable("writing the host's record", err)
		}
		m.deleteRooms(ctx, ended)
		return nil
	}
	return errors.New("fleet: the host's record changed under four heartbeats in a row")
}

// update makes rec this beat's record and returns the rooms ended whose
// room keys to delete.
func (m *Member) update(rec *Host) map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	draining := m.draining || (rec.ID == m.info.ID && rec.Draining)
	if draining && !m.draining {
		m.log.Info("fleet: drain asked through the record")
	}
	m.draining = draining
	old := rec.Matches
	*rec = Host{ID: m.info.ID, Version: m.info.Version, Games: m.info.Games, QUIC: m.info.QUIC,
		WebTransport: m.info.WebTransport, SHA256: m.info.SHA256, Capacity: m.info.Capacity,
		Beat: rec.Beat + 1, Draining: m.draining, Running: len(m.running), Connected: m.connected}
	ended := map[string]string{}
	seen := map[string]bool{}
	clear(m.placed)
	for _, x := range old {
		if seen[x.Room] || !validName(x.Room, MaxRoom) {
			continue
		}
		seen[x.Room] = true
		if g, ok := m.ended[x.Room]; ok {
			ended[x.Room] = g
			continue
		}
		x.Running = m.running[x.Room]
		if !x.Running {
			first, ok := m.firstSeen[x.Room]
			if !ok {
				first = now
				m.firstSeen[x.Room] = now
			}
			if now.Sub(first) > m.cfg.PlaceExpiry {
				ended[x.Room] = x.Game // placed, never joined
				delete(m.firstSeen, x.Room)
				continue
			}
		} else {
			delete(m.firstSeen, x.Room)
		}
		rec.Matches = append(rec.Matches, x)
		m.placed[x.Room] = true
	}
	// A match the host runs that the record lost (NATS lost its store)
	// is put back: its clients hold its capacity.
	for room := range m.running {
		if !seen[room] {
			rec.Matches = append(rec.Matches, Match{Room: room, Game: m.gameOf(room), Clients: 1, Running: true})
			m.placed[room] = true
		}
	}
	for room, g := range m.ended {
		if !seen[room] {
			delete(m.ended, room) // out of the record already
		} else {
			ended[room] = g
		}
	}
	for room := range ended {
		delete(m.ended, room)
		delete(m.firstSeen, room)
	}
	slices.SortFunc(rec.Matches, func(a, b Match) int { return int(a.Placed - b.Placed) })
	return ended
}

func (m *Member) gameOf(string) string {
	if len(m.info.Games) > 0 {
		return m.info.Games[0].Name
	}
	return ""
}

// deleteRooms deletes the room keys of ended matches that still name this
// host.
func (m *Member) deleteRooms(ctx context.Context, ended map[string]string) {
	for room, game := range ended {
		key := roomKey(game, room)
		e, err := m.kv.Get(ctx, key)
		if err != nil {
			continue
		}
		var v roomValue
		if json.Unmarshal(e.Value(), &v) == nil && v.Host == m.info.ID {
			_ = m.kv.Delete(ctx, key, jetstream.LastRevision(e.Revision()))
		}
	}
}

// SetLoad tells the member what the host runs: the rooms of its matches
// and the clients connected. The next beat writes it.
func (m *Member) SetLoad(rooms []string, connected int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.running)
	for _, r := range rooms {
		m.running[r] = true
	}
	m.connected = connected
}

// Ended takes room's match out of the record at the next beat (now, in
// the background) and frees its room key.
func (m *Member) Ended(game, room string) {
	m.mu.Lock()
	m.ended[room] = game
	delete(m.running, room)
	m.mu.Unlock()
	m.poke()
}

// Drain marks the host draining: placers stop placing on it from its next
// beat (written now, in the background).
func (m *Member) Drain() {
	m.mu.Lock()
	m.draining = true
	m.mu.Unlock()
	m.poke()
}

// Draining reports whether the host drains (Drain, or a record someone
// marked draining: an operator's command).
func (m *Member) Draining() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.draining
}

func (m *Member) poke() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// Stats returns the counters.
func (m *Member) Stats() MemberStats {
	return MemberStats{Beats: m.beats.Load(), BeatFailures: m.failures.Load(), Draining: m.Draining()}
}

// Close stops the heartbeat and deletes the host's record (a host that
// cannot is gone after Config.DeadAfter anyway).
func (m *Member) Close() error {
	var err error
	m.once.Do(func() {
		close(m.stop)
		<-m.done
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
		defer cancel()
		if e := m.kv.Delete(ctx, hostKey(m.info.ID)); e != nil {
			err = fmt.Errorf("%w: deleting the host's record: %v", ErrUnavailable, e)
		}
	})
	return err
}
