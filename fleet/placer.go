//go:build !js

package fleet

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"

	"github.com/rollnet/rollnet/internal/fleetkv"
)

// The defaults of PlacerConfig's zero fields (Check shows them resolved).
const (
	defaultMaxInFlight = 64
	defaultAddrRate    = 20
	defaultAddrBurst   = 40
	// maxAttempts bounds one placement's compare-and-set rounds.
	maxAttempts = 8
	// maxPlacedWaits bounds its waits, 10 ms each, for a room another
	// client's placement reserved on a host to get its room key (on a
	// loaded machine under -race, 80 ms was not always enough).
	maxPlacedWaits = 100
)

// PlacerConfig configures a Placer. Its zero value means the documented
// defaults, but Secret is required.
type PlacerConfig struct {
	Config
	// Policy chooses among the hosts with room (default Fill).
	Policy Policy
	// Secret signs the connect tokens (the hosts' -token-secret-file), at
	// least connecttoken.MinSecret bytes.
	Secret []byte
	// MaxInFlight bounds the placements running at once (default 64);
	// past it a request is refused with ErrBusy (429).
	MaxInFlight int
	// AddrRate and AddrBurst bound one client address's placement
	// requests a second (defaults 20 and 40), as a token bucket; loopback
	// is not exempt.
	AddrRate, AddrBurst int
	// TrustedProxies are the reverse proxies in front of the placer (the
	// signaling server's TrustedProxies): a request whose TCP peer is one
	// counts against the client address they write in Forwarded or
	// X-Forwarded-For, read right to left past trusted hops; anyone
	// else's header is ignored (internal/forwarded). Without them every
	// client behind a proxy shares the proxy's bucket.
	TrustedProxies []netip.Prefix
	// Logger logs refusals at debug and failures at warn (nil: none).
	Logger *slog.Logger
}

// PlacerStats are a Placer's counters; all only grow.
// In the /fleet view their keys are snake_case, as every key there is.
type PlacerStats struct {
	Placements uint64 `json:"placements"` // matches placed
	Joins      uint64 `json:"joins"`      // clients joined to placed matches
	// Refused counts refusals by reason: "unavailable", "no_host",
	// "version", "room_full", "busy", "bad_request".
	Refused   map[string]uint64 `json:"refused"`
	Conflict  uint64            `json:"conflict"`  // compare-and-set rounds lost (and retried)
	Forgotten uint64            `json:"forgotten"` // gone hosts' records this placer deleted (Config.Tuning.ForgetAfter)
	// Stale counts room keys that named a live host whose own record
	// does not hold the room: the room was placed anew, not joined there.
	Stale uint64 `json:"stale"`
}

// Placer places matches on a fleet's hosts: a signaling instance runs one
// (rollnet-signal -fleet). It keeps a mirror of the hosts' records (a
// watch of the bucket) and writes placements by compare-and-set. See the
// package documentation for the rules.
type Placer struct {
	cfg PlacerConfig
	nc  *nats.Conn
	kv  jetstream.KeyValue
	log *slog.Logger

	mu      sync.Mutex
	hosts   map[string]*mirrored
	watch   jetstream.KeyWatcher
	unwatch context.CancelFunc
	synced  bool
	gen     uint64
	wg      sync.WaitGroup
	addrs   map[string]*bucket
	// freed are the room keys whose match left a host's record (ended,
	// or the host left): the sweep deletes each that still names that
	// host and that the host's record does not hold again.
	freed []freedRoom
	// oldLayout are the hosts whose records are of another layout,
	// logged once each.
	oldLayout map[string]bool

	inFlight               atomic.Int64
	placements, joins, cas atomic.Uint64
	forgotten              atomic.Uint64
	staleRooms             atomic.Uint64
	refused                [nReasons]atomic.Uint64
	lat                    latency

	stop chan struct{}
	done chan struct{}
	once sync.Once
	now  func() time.Time
}

// maxFreed bounds the room keys queued for the sweep: past it they are
// left (a stale room key is harmless: it is placed anew over, and the
// forgotten host's sweep deletes it).
const maxFreed = 4096

// freedRoom is a room key to delete if it still names host.
type freedRoom struct{ host, game, room string }

// mirrored is a host's record as the watch last delivered it, and when its
// Beat last changed (this placer's clock).
type mirrored struct {
	rec    Host
	rev    uint64 // the record's revision, for the sweep's compare-and-delete
	beatAt time.Time
}

// Check returns cfg with every zero field set to its default (its
// Config's too), and the error (wrapping rollnet.ErrConfig) that makes it invalid,
// if any: NewPlacer runs with what Check returns. The defaults are filled
// even when the Secret is missing, so a command shows them in its flags'
// help from Check's result on a zero PlacerConfig.
func (cfg PlacerConfig) Check() (PlacerConfig, error) {
	var err error
	if cfg.Config, err = cfg.Config.withDefaults(); err != nil {
		return cfg, err
	}
	if cfg.Policy > Spread || cfg.MaxInFlight < 0 || cfg.AddrRate < 0 || cfg.AddrBurst < 0 {
		return cfg, fmt.Errorf("%w: policy %d, MaxInFlight %d, AddrRate %d, AddrBurst %d", errConfig, cfg.Policy, cfg.MaxInFlight, cfg.AddrRate, cfg.AddrBurst)
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = defaultMaxInFlight
	}
	if cfg.AddrRate == 0 {
		cfg.AddrRate = defaultAddrRate
	}
	if cfg.AddrBurst == 0 {
		cfg.AddrBurst = defaultAddrBurst
	}
	if len(cfg.Secret) < connecttoken.MinSecret {
		return cfg, fmt.Errorf("%w: Secret of %d bytes, under %d", errConfig, len(cfg.Secret), connecttoken.MinSecret)
	}
	return cfg, nil
}

// NewPlacer starts a placer on nc; it returns once the hosts' records are
// mirrored.
func NewPlacer(nc *nats.Conn, cfg PlacerConfig) (*Placer, error) { return newPlacer(nc, cfg, time.Now) }

// newPlacer is NewPlacer on the clock now: when it saw each host's beat,
// and whether a host is live or forgotten (the tests' clocks move only
// when they say, so a loaded machine's late beat takes no host for gone).
func newPlacer(nc *nats.Conn, cfg PlacerConfig, now func() time.Time) (*Placer, error) {
	cfg, err := cfg.Check()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Placer{cfg: cfg, nc: nc, log: log, hosts: map[string]*mirrored{}, addrs: map[string]*bucket{}, oldLayout: map[string]bool{},
		stop: make(chan struct{}), done: make(chan struct{}), now: now}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Tuning.OpTimeout)
	defer cancel()
	if p.kv, err = openBucket(ctx, nc, cfg.Config); err != nil {
		return nil, err
	}
	if err := p.startWatch(ctx); err != nil {
		return nil, err
	}
	go p.tick()
	return p, nil
}

// startWatch watches the hosts' records, replacing an earlier watch, and
// returns once the bucket's current records are in the mirror.
func (p *Placer) startWatch(ctx context.Context) error {
	gen := p.nc.Stats().Reconnects
	wctx, unwatch := context.WithCancel(context.Background())
	w, err := p.kv.Watch(wctx, "host.*")
	if err != nil {
		unwatch()
		return unavailable("watching the hosts", err)
	}
	p.mu.Lock()
	old, oldUnwatch := p.watch, p.unwatch
	p.watch, p.unwatch, p.synced, p.gen = w, unwatch, false, gen
	p.mu.Unlock()
	if old != nil {
		_ = old.Stop()
		oldUnwatch()
	}
	synced := make(chan struct{})
	p.wg.Add(1)
	go p.watchLoop(w, synced)
	select {
	case <-synced:
		return nil
	case <-ctx.Done():
		return unavailable("watching the hosts", ctx.Err())
	}
}

func (p *Placer) watchLoop(w jetstream.KeyWatcher, synced chan struct{}) {
	defer p.wg.Done()
	for e := range w.Updates() {
		if e == nil {
			p.mu.Lock()
			if p.watch == w {
				p.synced = true
			}
			p.mu.Unlock()
			close(synced)
			continue
		}
		p.apply(e)
	}
}

// apply takes one record into the mirror. A record that does not decode
// or validate is left out (the bucket is input), and so is a record of
// another layout (an older host: logged once). The rooms that left a
// record (their match ended, or the host left) are queued for the sweep,
// which deletes their room keys: hosts write none.
func (p *Placer) apply(e jetstream.KeyValueEntry) {
	id := e.Key()[len("host."):]
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.hosts[id]
	var rec Host
	if e.Operation() != jetstream.KeyValuePut || json.Unmarshal(e.Value(), &rec) != nil || rec.Validate() != nil || rec.ID != id {
		p.free(old, nil)
		delete(p.hosts, id)
		return
	}
	if rec.Layout != fleetkv.Layout {
		if !p.oldLayout[id] && len(p.oldLayout) < maxFreed {
			p.oldLayout[id] = true
			p.log.Warn("fleet: a host's record is of another bucket layout: nothing is placed on it (upgrade it)", "host", id, "layout", rec.Layout, "want", fleetkv.Layout)
		}
		p.free(old, nil)
		delete(p.hosts, id)
		return
	}
	delete(p.oldLayout, id)
	p.free(old, &rec)
	m := old
	if m == nil {
		m = &mirrored{beatAt: p.now()}
		p.hosts[id] = m
	} else if rec.Beat != m.rec.Beat {
		m.beatAt = p.now()
	}
	m.rec, m.rev = rec, e.Revision()
}

// free queues the rooms of old's record that rec (nil: none) no longer
// holds. Under p.mu.
func (p *Placer) free(old *mirrored, rec *Host) {
	if old == nil {
		return
	}
	for _, x := range old.rec.Matches {
		if (rec == nil || rec.match(x.Room) < 0) && len(p.freed) < maxFreed {
			p.freed = append(p.freed, freedRoom{host: old.rec.ID, game: x.Game, room: x.Room})
		}
	}
}

// deleteFreed deletes the room keys of the rooms that left their host's
// record, each only if it still names that host and that host's record
// does not hold the room again, over the revision read (placers deleting
// together delete it once; a room placed anew meanwhile keeps its key).
func (p *Placer) deleteFreed() {
	p.mu.Lock()
	freed := p.freed
	p.freed = nil
	p.mu.Unlock()
	if len(freed) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.Tuning.OpTimeout)
	defer cancel()
	for _, f := range freed {
		key := fleetkv.RoomKey(f.game, f.room)
		e, err := p.kv.Get(ctx, key)
		if err != nil {
			continue
		}
		var v fleetkv.RoomValue
		if json.Unmarshal(e.Value(), &v) != nil || v.Host != f.host {
			continue
		}
		p.mu.Lock()
		m := p.hosts[f.host]
		again := m != nil && m.rec.match(f.room) >= 0
		p.mu.Unlock()
		if !again {
			_ = p.kv.Delete(ctx, key, jetstream.LastRevision(e.Revision()))
		}
	}
}

// tick restarts the watch after NATS reconnected.
func (p *Placer) tick() {
	defer close(p.done)
	t := time.NewTicker(p.cfg.Tuning.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		p.sweep()
		p.deleteFreed()
		p.mu.Lock()
		stale := p.gen != p.nc.Stats().Reconnects
		p.mu.Unlock()
		if stale && p.nc.IsConnected() {
			ctx, cancel := context.WithTimeout(context.Background(), p.cfg.Tuning.OpTimeout)
			if err := p.startWatch(ctx); err != nil {
				p.log.Warn("fleet: watching the hosts again after a reconnect", "err", err)
			}
			cancel()
		}
	}
}

// sweep deletes the records of hosts gone for ForgetAfter, and the room
// keys that still name them, each over the revision this placer saw: a
// host that beat again meanwhile, or a room placed anew, keeps its key,
// and placers sweeping together delete each key once (the others' deletes
// lose the compare-and-set, harmlessly). The bucket so holds the hosts
// that beat within ForgetAfter, not every host that ever joined.
func (p *Placer) sweep() {
	if !p.ready() {
		return
	}
	now := p.now()
	type dead struct {
		id     string
		rev    uint64
		beatAt time.Time
		rooms  []string
	}
	var gone []dead
	p.mu.Lock()
	for id, m := range p.hosts {
		if now.Sub(m.beatAt) > p.cfg.Tuning.ForgetAfter {
			d := dead{id: id, rev: m.rev, beatAt: m.beatAt}
			for _, pm := range m.rec.Matches {
				d.rooms = append(d.rooms, fleetkv.RoomKey(pm.Game, pm.Room))
			}
			gone = append(gone, d)
		}
	}
	p.mu.Unlock()
	for _, d := range gone {
		ctx, cancel := context.WithTimeout(context.Background(), p.cfg.Tuning.OpTimeout)
		for _, key := range d.rooms {
			e, err := p.kv.Get(ctx, key)
			if err != nil {
				continue
			}
			var v fleetkv.RoomValue
			if json.Unmarshal(e.Value(), &v) == nil && v.Host == d.id {
				_ = p.kv.Delete(ctx, key, jetstream.LastRevision(e.Revision()))
			}
		}
		err := p.kv.Delete(ctx, fleetkv.HostKey(d.id), jetstream.LastRevision(d.rev))
		cancel()
		switch {
		case err == nil:
			p.forgotten.Add(1)
			p.log.Info("fleet: forgot a gone host", "host", d.id, "silent", now.Sub(d.beatAt).Round(time.Second))
		case !fleetkv.Conflict(err):
			p.log.Warn("fleet: forgetting a gone host", "host", d.id, "err", err)
		}
	}
}

// ready reports whether placements can be written: NATS connected and
// the mirror current.
func (p *Placer) ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.synced && p.nc.IsConnected() && p.gen == p.nc.Stats().Reconnects
}

// live reports whether m's host beat within DeadAfter.
func (p *Placer) live(m *mirrored, now time.Time) bool {
	return now.Sub(m.beatAt) <= p.cfg.Tuning.DeadAfter
}

// Place places a client of req: in the room's match if it is placed on a
// live host, else in a new match on the host the policy chooses among
// the live, undrained hosts of req's game and version with room. It
// refuses with ErrUnavailable, ErrNoHost, ErrVersion or ErrRoomFull.
func (p *Placer) Place(ctx context.Context, req Request) (Reply, error) {
	start := p.now()
	r, err := p.place(ctx, req)
	if err != nil {
		p.refused[reasonOf(err)].Add(1)
		return Reply{}, err
	}
	p.lat.observe(p.now().Sub(start))
	return r, nil
}

func (p *Placer) place(ctx context.Context, req Request) (Reply, error) {
	if err := req.Validate(); err != nil {
		return Reply{}, err
	}
	if !p.ready() {
		return Reply{}, fmt.Errorf("%w: not connected", ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Tuning.OpTimeout)
	defer cancel()
	rkey := fleetkv.RoomKey(req.Game, req.Room)
	waits := 0
	for attempt := 0; attempt < maxAttempts; attempt++ {
		// The room's match, if placed on a live host.
		var roomRev uint64
		e, err := p.kv.Get(ctx, rkey)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return Reply{}, unavailable("reading the room", err)
		default:
			roomRev = e.Revision()
			var v fleetkv.RoomValue
			if json.Unmarshal(e.Value(), &v) == nil && p.isLive(v.Host) {
				r, err := p.join(ctx, v.Host, req)
				if err == nil || !errors.Is(err, errStale) {
					return r, err
				}
				if errors.Is(err, errRetry) {
					p.cas.Add(1)
					continue
				}
				p.staleRooms.Add(1)
			}
			// A room whose host is gone, or whose host's own record does
			// not hold it (the match ended, or the key was written by
			// someone it should not have been): placed anew below, over
			// the same key's revision. A room key alone never sends a
			// client anywhere.
		}
		h, err := p.reserve(ctx, req)
		if err != nil {
			if errors.Is(err, errRetry) {
				p.cas.Add(1)
				continue
			}
			if errors.Is(err, errPlaced) && waits < maxPlacedWaits {
				// The room is being placed for another of its clients (two
				// friends asking at once, the last room going to their
				// room): again once its room key is written, joining it.
				// Not a compare-and-set round lost: its own bound.
				waits++
				attempt--
				select {
				case <-ctx.Done():
					return Reply{}, unavailable("waiting for the room's placement", ctx.Err())
				case <-time.After(10 * time.Millisecond):
				}
				continue
			}
			return Reply{}, err
		}
		b, _ := json.Marshal(fleetkv.RoomValue{Host: h.ID})
		if roomRev == 0 {
			_, err = p.kv.Create(ctx, rkey, b)
		} else {
			_, err = p.kv.Update(ctx, rkey, b, roomRev)
		}
		if fleetkv.Conflict(err) {
			// Another placer placed the room meanwhile: undo ours, join
			// theirs.
			p.cas.Add(1)
			p.unreserve(ctx, h.ID, req.Room)
			continue
		}
		if err != nil {
			p.unreserve(ctx, h.ID, req.Room)
			return Reply{}, unavailable("writing the room", err)
		}
		p.placements.Add(1)
		return p.reply(h, req, false)
	}
	return Reply{}, fmt.Errorf("%w: %d compare-and-set rounds lost", ErrUnavailable, maxAttempts)
}

var (
	errStale = errors.New("fleet: stale room")
	errRetry = fmt.Errorf("%w: lost a compare-and-set", errStale)
	// errPlaced: a host's record has the room, its room key not yet.
	errPlaced = fmt.Errorf("%w: the room is being placed for another client, its room key not written yet", ErrUnavailable)
)

func (p *Placer) isLive(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.hosts[id]
	return m != nil && p.live(m, p.now())
}

// getHost reads a host's record fresh, with its revision.
func (p *Placer) getHost(ctx context.Context, id string) (Host, uint64, error) {
	e, err := p.kv.Get(ctx, fleetkv.HostKey(id))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Host{}, 0, errStale
	}
	if err != nil {
		return Host{}, 0, unavailable("reading a host", err)
	}
	var h Host
	if json.Unmarshal(e.Value(), &h) != nil || h.Validate() != nil {
		return Host{}, 0, errStale
	}
	return h, e.Revision(), nil
}

func (p *Placer) putHost(ctx context.Context, h Host, rev uint64) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	_, err = p.kv.Update(ctx, fleetkv.HostKey(h.ID), b, rev)
	if fleetkv.Conflict(err) {
		return errRetry
	}
	if err != nil {
		return unavailable("writing a host", err)
	}
	return nil
}

// join adds a client to room's match on host id. errStale: the host no
// longer lists the room.
func (p *Placer) join(ctx context.Context, id string, req Request) (Reply, error) {
	h, rev, err := p.getHost(ctx, id)
	if err != nil {
		return Reply{}, err
	}
	i := h.match(req.Room)
	if i < 0 || h.Draining && !h.Matches[i].Running {
		return Reply{}, errStale
	}
	if h.Version != req.Version {
		return Reply{}, fmt.Errorf("%w: room %q is on a host of version %q, not %q", ErrVersion, req.Room, h.Version, req.Version)
	}
	if h.Matches[i].Clients >= h.clientsOf(req.Game) || h.used() >= h.Capacity.Clients {
		return Reply{}, fmt.Errorf("%w: room %q has its %d clients", ErrRoomFull, req.Room, h.Matches[i].Clients)
	}
	h.Matches[i].Clients++
	if err := p.putHost(ctx, h, rev); err != nil {
		return Reply{}, err
	}
	p.joins.Add(1)
	return p.reply(h, req, true)
}

// reserve adds a new match of req to the best host with room, by
// compare-and-set on its record.
func (p *Placer) reserve(ctx context.Context, req Request) (Host, error) {
	now := p.now()
	p.mu.Lock()
	var cands []*Host
	other, placed := "", false
	for _, m := range p.hosts {
		if !p.live(m, now) || m.rec.clientsOf(req.Game) == 0 {
			continue
		}
		placed = placed || m.rec.match(req.Room) >= 0
		if m.rec.Version != req.Version {
			other = m.rec.Version
			continue
		}
		if m.rec.room(req.Game) {
			rec := m.rec
			cands = append(cands, &rec)
		}
	}
	p.mu.Unlock()
	if len(cands) == 0 {
		if placed {
			return Host{}, errPlaced
		}
		if other != "" {
			return Host{}, fmt.Errorf("%w: no live host of %q runs version %q (one runs %q)", ErrVersion, req.Game, req.Version, other)
		}
		return Host{}, fmt.Errorf("%w: no live, undrained host of %q version %q has room", ErrNoHost, req.Game, req.Version)
	}
	p.cfg.Policy.order(cands)
	lost := false
	for _, c := range cands[:min(len(cands), 3)] {
		h, rev, err := p.getHost(ctx, c.ID)
		if errors.Is(err, errStale) {
			continue
		}
		if err != nil {
			return Host{}, err
		}
		if h.match(req.Room) >= 0 {
			placed = true
			continue
		}
		if h.Version != req.Version || !h.room(req.Game) {
			continue
		}
		h.Matches = append(h.Matches, Match{Room: req.Room, Game: req.Game, Clients: 1, Placed: now.UnixMilli()})
		switch err := p.putHost(ctx, h, rev); {
		case err == nil:
			return h, nil
		case errors.Is(err, errRetry):
			lost = true
			p.cas.Add(1)
		default:
			return Host{}, err
		}
	}
	if lost {
		return Host{}, errRetry
	}
	if placed {
		return Host{}, errPlaced
	}
	return Host{}, fmt.Errorf("%w: the hosts with room filled up meanwhile", ErrNoHost)
}

// unreserve takes room's match back out of host id's record, best effort:
// a match never joined expires on its host anyway (PlaceExpiry).
func (p *Placer) unreserve(ctx context.Context, id, room string) {
	for range 4 {
		h, rev, err := p.getHost(ctx, id)
		if err != nil {
			return
		}
		i := h.match(room)
		if i < 0 {
			return
		}
		h.Matches = slices.Delete(h.Matches, i, i+1)
		if err := p.putHost(ctx, h, rev); !errors.Is(err, errRetry) {
			return
		}
	}
}

// reply mints the client's connect token for h.
func (p *Placer) reply(h Host, req Request, joined bool) (Reply, error) {
	var id [8]byte
	_, _ = crand.Read(id[:])
	exp := p.now().Add(p.cfg.Tuning.TokenTTL)
	g, err := connecttoken.Mint(p.cfg.Secret, connecttoken.Claims{Room: req.Room, Client: binary.LittleEndian.Uint64(id[:]) >> 1,
		Expires: exp, Address: h.QUIC}, nil)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Host: h.ID, Room: req.Room, QUIC: h.QUIC, WebTransport: h.WebTransport, SHA256: h.SHA256,
		Grant: g.String(), Expires: g.Claims.Expires.Unix(), Joined: joined}, nil
}

// Close stops the watch.
func (p *Placer) Close() error {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.mu.Lock()
		w, unwatch := p.watch, p.unwatch
		p.mu.Unlock()
		if w != nil {
			_ = w.Stop()
			unwatch()
		}
		p.wg.Wait()
	})
	return nil
}

// Refusal reasons, in PlacerStats.Refused and the metrics.
const (
	reasonUnavailable = iota
	reasonNoHost
	reasonVersion
	reasonRoomFull
	reasonBusy
	reasonBadRequest
	nReasons
)

var reasonNames = [nReasons]string{"unavailable", "no_host", "version", "room_full", "busy", "bad_request"}

func reasonOf(err error) int {
	switch {
	case errors.Is(err, ErrBadRequest):
		return reasonBadRequest
	case errors.Is(err, ErrNoHost):
		return reasonNoHost
	case errors.Is(err, ErrVersion):
		return reasonVersion
	case errors.Is(err, ErrRoomFull):
		return reasonRoomFull
	case errors.Is(err, ErrBusy):
		return reasonBusy
	}
	return reasonUnavailable
}

// Stats returns the counters.
func (p *Placer) Stats() PlacerStats {
	s := PlacerStats{Placements: p.placements.Load(), Joins: p.joins.Load(), Conflict: p.cas.Load(), Forgotten: p.forgotten.Load(), Stale: p.staleRooms.Load(), Refused: map[string]uint64{}}
	for i := range p.refused {
		s.Refused[reasonNames[i]] = p.refused[i].Load()
	}
	return s
}
