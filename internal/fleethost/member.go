//go:build !js

// Package fleethost is a dedicated host's part in a fleet (package fleet):
// its record in the fleet's bucket, rewritten every heartbeat, the matches
// it runs and ends, and its drain. Package authority/dedicated runs it
// (rollnet-host -fleet); a placer (fleet.Placer) reads what it writes.
package fleethost

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

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/fleetkv"
)

// unavailable wraps a key-value error that is not a lost compare-and-set
// or a missing key in fleet.ErrUnavailable.
func unavailable(op string, err error) error {
	return fmt.Errorf("%w: %s: %v", fleet.ErrUnavailable, op, err)
}

// HostInfo is what a host says of itself when it joins a fleet.
type HostInfo struct {
	ID           string
	Version      string
	Games        []fleet.Game
	QUIC         string
	WebTransport string
	SHA256       string
	Capacity     fleet.Capacity
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
	cfg  fleet.Config
	info HostInfo
	nc   *nats.Conn
	kv   jetstream.KeyValue
	log  *slog.Logger

	mu        sync.Mutex
	running   map[string]bool      // rooms the host steps
	connected int                  // clients connected
	ended     map[string]*endMark  // rooms ended, by room
	firstSeen map[string]time.Time // placed rooms not running yet, when first seen in the record
	placed    map[string]int       // the rooms of the record the host last wrote: their clients
	restarted map[string]uint64    // rooms whose match ended and whose next one started at once: their mark's number
	// marks numbers the Ended and Restarted calls: a written beat
	// forgets the marks it acted on, not one set again since it read.
	marks    uint64
	now      func() time.Time // time.Now; a test's clock in tests
	draining bool
	// drainRev is the revision of the drain order (drain.<id>) there was
	// when the host joined, 0 for none: only a newer one drains it (an
	// order left from a host that drained before under the same id does
	// not drain this one).
	drainRev uint64
	kick     chan struct{}

	beats, failures atomic.Uint64
	// ctx ends when Close begins: a beat under way (NATS down, a
	// key-value operation waiting out OpTimeout) gives up at once.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// Join registers the host described by info in the fleet on nc and starts
// its heartbeat. A host that was registered under the same id (a restart)
// takes its record over.
func Join(nc *nats.Conn, info HostInfo, cfg fleet.Config, log *slog.Logger) (*Member, error) {
	cfg, err := cfg.Check()
	if err != nil {
		return nil, err
	}
	rec := fleet.Host{Layout: fleetkv.Layout, ID: info.ID, Version: info.Version, Games: info.Games, QUIC: info.QUIC,
		WebTransport: info.WebTransport, SHA256: info.SHA256, Capacity: info.Capacity}
	if err := rec.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Tuning.OpTimeout)
	defer cancel()
	kv, err := fleetkv.Open(ctx, nc, cfg.Name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", fleet.ErrUnavailable, err)
	}
	m := &Member{cfg: cfg, info: info, nc: nc, kv: kv, log: log,
		running: map[string]bool{}, ended: map[string]*endMark{}, firstSeen: map[string]time.Time{}, placed: map[string]int{}, restarted: map[string]uint64{},
		now: time.Now, kick: make(chan struct{}, 1), done: make(chan struct{})}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	switch e, err := kv.Get(ctx, fleetkv.DrainKey(info.ID)); {
	case err == nil:
		m.drainRev = e.Revision()
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, unavailable("reading the host's drain order", err)
	}
	// A restart under the same id starts from an empty record: the matches
	// of the process before are gone with it.
	b, _ := json.Marshal(rec)
	if _, err := kv.Put(ctx, fleetkv.HostKey(info.ID), b); err != nil {
		return nil, unavailable("registering", err)
	}
	m.beats.Add(1)
	go m.loop()
	return m, nil
}

func (m *Member) loop() {
	defer close(m.done)
	t := time.NewTicker(m.cfg.Tuning.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
		case <-m.kick:
		}
		if m.ctx.Err() != nil {
			return // Close began while a tick was ready too
		}
		if err := m.beat(); err != nil {
			if m.ctx.Err() != nil {
				return
			}
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
	ctx, cancel := context.WithTimeout(m.ctx, m.cfg.Tuning.OpTimeout)
	defer cancel()
	key := fleetkv.HostKey(m.info.ID)
	if err := m.readDrain(ctx); err != nil {
		return err
	}
	for range 4 {
		var rec fleet.Host
		var rev uint64
		e, err := m.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return unavailable("reading the host's record", err)
		default:
			rev = e.Revision()
			if err := json.Unmarshal(e.Value(), &rec); err != nil {
				rec = fleet.Host{} // not ours to trust: rewritten whole
			}
		}
		w := m.update(&rec)
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if rev == 0 {
			_, err = m.kv.Create(ctx, key, b)
		} else {
			_, err = m.kv.Update(ctx, key, b, rev)
		}
		if fleetkv.Conflict(err) {
			continue // a placer wrote between: again, on its version
		}
		if err != nil {
			return unavailable("writing the host's record", err)
		}
		m.written(w)
		return nil
	}
	return errors.New("fleet: the host's record changed under four heartbeats in a row")
}

// readDrain reads the host's drain order: one written after the host
// joined drains it. Only an operator may write drain.<id> (see package
// fleet's trust model); the record's own Draining, which placers may
// write too, is never obeyed.
func (m *Member) readDrain(ctx context.Context) error {
	e, err := m.kv.Get(ctx, fleetkv.DrainKey(m.info.ID))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil
	case err != nil:
		return unavailable("reading the host's drain order", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e.Revision() > m.drainRev && !m.draining {
		m.draining = true
		m.log.Info("fleet: drain ordered by an operator", "key", e.Key())
	}
	return nil
}

// endMark is a room's match ended (Ended): its room's entry goes out of
// the record at the next beat written, unless the room runs again or
// clients placed in it have not come (see update).
type endMark struct {
	game string
	n    uint64 // its number (Member.marks)
	came int    // the clients (connect tokens) that came to the room's matches ended since the last beat written
}

// beatWrite is what an attempt of a beat decided that holds only once
// its record is written (Member.written); an attempt that loses the
// compare-and-set, or whose write fails, leaves the member as it was, and
// the next attempt decides again on what it reads.
type beatWrite struct {
	ended     map[string]string // the rooms taken out: their game
	restore   []fleet.Match     // the running rooms put back
	placed    map[string]int    // the record's rooms: their clients
	firstSeen map[string]time.Time
	marks     map[string]uint64 // the ended marks acted on: their numbers
	restarted map[string]uint64 // the restarted marks acted on
}

// update makes rec this beat's record and returns what it decided: the
// rooms ended (out of the record: placers delete their room keys) and the
// running rooms it put back (a placer writes their room keys again when
// their next client asks). The host writes no room key. Until the record
// is written (written), m keeps its marks: an attempt that loses the
// compare-and-set to a placer reads the record again and takes the ended
// and expired entries out again, and subtracts the old match's clients
// again, from the clients of the record last written.
//
// An ended match's entry with more clients placed than came (Ended's
// came) stays, and so does an expired one a placer placed a client in
// since the host last wrote it: those clients hold connect tokens for the
// room here and come. The entry is the placement of the room's next
// match, with the clients yet to come, and expires if none does
// (PlaceExpiry). Taken out, such a client's match would start on the
// host with no entry in the record until the next beat, and a placer
// could fill the host past its capacity meanwhile (the host refused a
// client "full"). The two clients of a room connect apart: the first
// can play its match to the end and leave before the second, placed in
// its entry before or after the end, comes.
func (m *Member) update(rec *fleet.Host) beatWrite {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	old := rec.Matches
	*rec = fleet.Host{Layout: fleetkv.Layout, ID: m.info.ID, Version: m.info.Version, Games: m.info.Games, QUIC: m.info.QUIC,
		WebTransport: m.info.WebTransport, SHA256: m.info.SHA256, Capacity: m.info.Capacity,
		Beat: rec.Beat + 1, Draining: m.draining, Running: len(m.running), Connected: m.connected}
	w := beatWrite{ended: map[string]string{}, placed: make(map[string]int, len(old)), firstSeen: map[string]time.Time{},
		marks: map[string]uint64{}, restarted: map[string]uint64{}}
	seen := map[string]bool{}
	for _, x := range old {
		if seen[x.Room] || !fleetkv.ValidName(x.Room, fleetkv.MaxRoom) {
			continue
		}
		seen[x.Room] = true
		mark := m.ended[x.Room]
		if mark != nil {
			w.marks[x.Room] = mark.n
		}
		if n, ok := m.restarted[x.Room]; ok {
			w.restarted[x.Room] = n
		}
		switch {
		case mark != nil && !m.running[x.Room]:
			if x.Clients <= mark.came {
				w.ended[x.Room] = mark.game
				continue
			}
			x.Clients -= mark.came // clients placed who have not come: they come
		case mark != nil || m.restarted[x.Room] != 0:
			// The match ended, and the room's next one runs: a client
			// placed in the entry came before this beat took it out
			// (Ended), or the host started it at once (Restarted). The
			// entry is the new match's, with the clients placed since the
			// old one's last beat, and its room key stays. Taken out, the
			// record would miss a running match for a beat, and a placer
			// could fill the host past its capacity.
			x.Clients = max(1, x.Clients-m.placed[x.Room])
		}
		x.Running = m.running[x.Room]
		if !x.Running {
			first, ok := m.firstSeen[x.Room]
			switch {
			case !ok || mark != nil:
				first = now // a placement first seen, or the next match's
			case now.Sub(first) > m.cfg.Tuning.PlaceExpiry:
				if wrote, ok := m.placed[x.Room]; !ok || x.Clients <= wrote { // no client placed since the host last wrote it
					w.ended[x.Room] = x.Game // placed, never joined
					continue
				}
				first = now // a client placed since the host last wrote it comes
			}
			w.firstSeen[x.Room] = first
		}
		rec.Matches = append(rec.Matches, x)
		w.placed[x.Room] = x.Clients
	}
	// A match the host runs that the record lost (NATS lost its store, or
	// a beat took a room out as ended before the host's next load said
	// its next match runs) is put back: its clients hold its capacity,
	// and its room key is restored so the room's next clients come here.
	for room := range m.running {
		if !seen[room] {
			x := fleet.Match{Room: room, Game: m.gameOf(room), Clients: 1, Running: true}
			rec.Matches = append(rec.Matches, x)
			w.restore = append(w.restore, x)
			w.placed[room] = 1
		}
	}
	for room := range m.ended {
		if !seen[room] {
			// Out of the record already: done now, written or not (an
			// entry of the room a later attempt reads is a placement of
			// its next match, to keep).
			delete(m.ended, room)
		}
	}
	for room, n := range m.restarted {
		if !seen[room] {
			w.restarted[room] = n // put back above, or gone: done once written
		}
	}
	slices.SortFunc(rec.Matches, func(a, b fleet.Match) int { return int(a.Placed - b.Placed) })
	return w
}

// written makes w, the decisions of the attempt whose record was written,
// the member's: the marks it acted on are done (not one set again since),
// and its clients are those the next beat subtracts a restarted match's
// from.
func (m *Member) written(w beatWrite) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for room, n := range w.marks {
		if mark := m.ended[room]; mark != nil && mark.n == n {
			delete(m.ended, room)
		}
	}
	for room, n := range w.restarted {
		if m.restarted[room] == n {
			delete(m.restarted, room)
		}
	}
	m.placed = w.placed
	m.firstSeen = w.firstSeen
}

func (m *Member) gameOf(string) string {
	if len(m.info.Games) > 0 {
		return m.info.Games[0].Name
	}
	return ""
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
// the background) and frees its room key; came is the clients (connect
// tokens) that came to it. If the record placed more clients in the
// room, its entry stays for them, as the placement of the room's next
// match (expiring after PlaceExpiry if none comes).
func (m *Member) Ended(game, room string, came int) {
	m.mu.Lock()
	m.marks++
	if old := m.ended[room]; old != nil {
		came += old.came // the room's matches since the last beat: all counted in its entry
	}
	m.ended[room] = &endMark{game: game, n: m.marks, came: came}
	delete(m.running, room)
	m.mu.Unlock()
	m.poke()
}

// Restarted says room's match ended and the room's next one runs on
// this host at once (SetLoad lists the room): its entry in the record and
// its room key stay, its clients counted from those placed since the last
// beat.
func (m *Member) Restarted(room string) {
	m.mu.Lock()
	m.marks++
	m.restarted[room] = m.marks
	m.running[room] = true
	m.mu.Unlock()
}

// Drain marks the host draining: placers stop placing on it from its next
// beat (written now, in the background).
func (m *Member) Drain() {
	m.mu.Lock()
	m.draining = true
	m.mu.Unlock()
	m.poke()
}

// Draining reports whether the host drains (Drain, or an operator's
// drain order under drain.<id>).
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
// cannot is gone after fleet.Config.DeadAfter anyway). With NATS
// unreachable it returns at once, the record left for the placers to
// find silent, and says so in its error.
func (m *Member) Close() error {
	var err error
	m.once.Do(func() {
		m.cancel()
		<-m.done
		if !m.nc.IsConnected() {
			err = fmt.Errorf("%w: the host's record is left to the placers, who take the host for gone after %v", fleet.ErrUnavailable, m.cfg.Tuning.DeadAfter)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.Tuning.OpTimeout)
		defer cancel()
		if e := m.kv.Delete(ctx, fleetkv.HostKey(m.info.ID)); e != nil {
			err = fmt.Errorf("%w: deleting the host's record: %v", fleet.ErrUnavailable, e)
		}
	})
	return err
}
