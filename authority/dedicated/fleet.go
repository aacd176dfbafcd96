//go:build !js

package dedicated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/fleethost"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// runFleet hosts matches for the fleet until ctx ends and the drain is
// over.
func runFleet(ctx context.Context, o options, g Game, gameName string, log *slog.Logger, ready func(string)) error {
	players, perClient := g.players()
	perMatch := players / perClient
	f := o.fl
	if f.clients == 0 {
		f.clients = f.matches * perMatch
	}
	// The connect tokens name the host's address: a port of 0 is chosen
	// here, before the Verifier is made for it.
	if err := fixPort(&o.q); err != nil {
		return err
	}
	gate := &fleetGate{rooms: map[string]bool{}, capacity: f.matches}
	qt, err := listenQUIC(o.q, f.clients+f.matches, gate.admit, log)
	if err != nil {
		return err
	}
	defer qt.Close()
	addr := o.q.public
	if addr == "" {
		addr = o.q.addr
	}
	id := f.id
	if id == "" {
		_, port, _ := net.SplitHostPort(addr)
		id = "host-" + port
	}
	info := fleethost.HostInfo{ID: id, Version: f.version, Games: []fleet.Game{{Name: gameName, Clients: perMatch}},
		QUIC: addr, Capacity: fleet.Capacity{Matches: f.matches, Clients: f.clients}}
	if o.q.webTransport {
		info.WebTransport = "https://" + addr + quic.WebTransportPath
	}
	if o.q.cert == "" {
		info.SHA256 = quic.FormatHash(qt.CertHash())
	}
	nc, err := f.auth.Connect(f.url, "rollnet-host "+id)
	if err != nil {
		return fmt.Errorf("-fleet %s: %w", f.url, err)
	}
	if f.auth.Anonymous() {
		log.Warn("fleet: NATS without credentials: whoever reaches that NATS can drain this host and redirect its rooms (see package fleet's trust model; -nats-creds, -nats-nkey or -nats-user)")
	}
	defer nc.Close()
	mem, err := fleethost.Join(nc, info, fleet.Config{Name: f.name, Tuning: fleet.Tuning{Heartbeat: f.heartbeat, DeadAfter: f.deadAfter}}, log)
	if err != nil {
		return err
	}
	gate.member.Store(mem)
	fh := &fleetHost{g: g, game: gameName, o: o, f: f, qt: qt, mem: mem, log: log, info: info, gate: gate,
		matches: map[string]*fleetMatch{}, byPeer: map[transport.Peer]*fleetMatch{}, refused: map[transport.Peer]bool{},
		buf: make([]byte, transport.MaxDatagram), drainc: make(chan struct{}, 1)}
	if f.metrics != "" {
		stop, err := fh.serveMetrics(f.metrics)
		if err != nil {
			_ = mem.Close()
			return err
		}
		defer stop()
	}
	log.Info("fleet host", "id", id, "game", gameName, "version", f.version, "quic", addr,
		"capacity_matches", f.matches, "capacity_clients", f.clients, "fleet", f.url, "nats_auth", f.auth.Auth(), "metrics", f.metrics)
	if ready != nil {
		ready(addr)
	}
	err = fh.loop(ctx)
	log.Info("fleet host shutting down: ending its matches and leaving the fleet", "matches", len(fh.matches), "nats_connected", nc.IsConnected())
	if len(fh.matches) > 0 {
		fh.endAll("host stopped")
		time.Sleep(noticeWait) // the clients hear the notices before the connections close
	}
	if cerr := mem.Close(); cerr != nil && err == nil {
		log.Warn("fleet: leaving", "err", cerr)
	}
	st := fh.stats()
	log.Info("fleet host stopped", "started", st.Started, "ended", st.Ended, "peak", st.Peak, "refused_full", st.RefusedFull,
		"refused_draining", st.RefusedDraining)
	return err
}

// fixPort replaces a port of 0 in q.addr with a free one.
func fixPort(q *quicOptions) error {
	host, port, err := net.SplitHostPort(q.addr)
	if err != nil || port != "0" {
		return err
	}
	c, err := net.ListenPacket("udp", q.addr)
	if err != nil {
		return err
	}
	q.addr = net.JoinHostPort(host, strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port))
	return c.Close()
}

// fleetHost runs a fleet host's matches: one authority host per room,
// each on a view of the one QUIC transport that sees its room's peers.
type fleetHost struct {
	g    Game
	game string
	o    options
	f    fleetOptions
	qt   quic.Transport
	gate *fleetGate
	mem  *fleethost.Member
	log  *slog.Logger
	info fleethost.HostInfo

	matches  map[string]*fleetMatch
	byPeer   map[transport.Peer]*fleetMatch
	refused  map[transport.Peer]bool // peers refused a new match (counted once), until gone
	buf      []byte
	evs      []transport.PeerEvent
	rooms    []string
	draining bool
	deadline time.Time
	drainc   chan struct{}

	// Read by the metrics goroutine.
	running, connected, peak                     atomic.Int64
	started, ended, refusedFull, refusedDraining atomic.Uint64
	dropped, unrouted                            atomic.Uint64
	drainingFlag                                 atomic.Bool
	mu                                           sync.Mutex
	view                                         []fleetMatchView
}

// fleetMatch is one room's match.
type fleetMatch struct {
	room       string
	h          host
	tr         *matchTransport
	a          announcer
	peers      map[transport.Peer]bool
	started    time.Time
	emptySince time.Time
	// lingered: a client came after every client had left, and none has
	// resumed its slot since (see relinger).
	lingered bool
	// came are the connect tokens (their Client ids) of the clients that
	// came to the match: the fleet's record keeps the room's entry, when
	// the match ends, for clients placed in it who have not come.
	came map[uint64]bool
}

type fleetMatchView struct {
	Room    string `json:"room"`
	Frame   int64  `json:"frame"`
	Clients int    `json:"clients"`
}

func (fh *fleetHost) loop(ctx context.Context) error {
	pc, err := newPacer(fh.o.fps)
	if err != nil {
		return err
	}
	defer pc.stop()
	var lastLoad time.Time
	done := ctx.Done()
	for {
		select {
		case <-done:
			done = nil
			fh.drain("SIGTERM")
		case <-fh.drainc:
			fh.drain("asked on the metrics address")
		case <-pc.tick.C:
			now, n := pc.owed()
			if !fh.draining && fh.mem.Draining() {
				fh.drain("an operator's drain order (drain.<id>)")
			}
			fh.receive(now)
			for range n {
				if err := fh.step(now); err != nil {
					return err
				}
			}
			if now.Sub(lastLoad) >= 100*time.Millisecond {
				lastLoad = now
				fh.report()
			}
			if fh.draining && (len(fh.matches) == 0 || !now.Before(fh.deadline)) {
				if len(fh.matches) > 0 {
					fh.log.Info("drain deadline: ending the matches left", "matches", len(fh.matches))
				}
				return nil
			}
		}
	}
}

func (fh *fleetHost) drain(why string) {
	if fh.draining {
		return
	}
	fh.draining = true
	fh.drainingFlag.Store(true)
	fh.gate.drain()
	fh.deadline = time.Now().Add(fh.f.drain)
	fh.mem.Drain()
	fh.log.Info("draining: no new match; the running ones end by the deadline", "why", why,
		"matches", len(fh.matches), "deadline", fh.f.drain)
}

// receive routes every waiting datagram to its room's match, starting the
// match on its first client's first datagram.
func (fh *fleetHost) receive(now time.Time) {
	for range 64 * fh.f.clients {
		n, from, err := fh.qt.Receive(fh.buf)
		if err != nil {
			break
		}
		m := fh.byPeer[from]
		if m == nil {
			if m = fh.admit(from, now); m == nil {
				continue
			}
		}
		if m.lingered {
			if m = fh.relinger(m, fh.buf[:n], now); m == nil {
				continue
			}
		}
		if !m.tr.push(from, fh.buf[:n]) {
			fh.dropped.Add(1)
		}
	}
	fh.evs = fh.qt.Events(fh.evs[:0])
	for _, e := range fh.evs {
		if e.Kind != transport.PeerGone {
			continue
		}
		if m := fh.byPeer[e.Peer]; m != nil {
			delete(fh.byPeer, e.Peer)
			delete(m.peers, e.Peer)
		}
		delete(fh.refused, e.Peer)
	}
}

// admit routes a new peer by its token's room: to the room's match, or a
// new one if the host has room and is not draining.
func (fh *fleetHost) admit(p transport.Peer, now time.Time) *fleetMatch {
	if fh.refused[p] {
		return nil
	}
	claims, ok := fh.qt.PeerClaims(p)
	if !ok {
		fh.unrouted.Add(1)
		return nil
	}
	m := fh.matches[claims.Room]
	switch {
	case m == nil:
		if m = fh.start(claims.Room, now); m == nil {
			fh.refused[p] = true
			return nil
		}
	case len(m.peers) == 0:
		m.lingered = true
	}
	m.peers[p] = true
	m.came[claims.Client] = true
	m.emptySince = time.Time{}
	fh.byPeer[p] = m
	return m
}

// start starts room's match, or refuses (nil) if the host drains or is
// full.
func (fh *fleetHost) start(room string, now time.Time) *fleetMatch {
	switch {
	case fh.draining:
		fh.refusedDraining.Add(1)
		return nil
	case len(fh.matches) >= fh.f.matches:
		// Placement never hands out more: this counts a broken
		// compare-and-set (the fleet test asserts 0).
		fh.refusedFull.Add(1)
		fh.log.Warn("a client for a new match found the host full", "room", room, "matches", len(fh.matches))
		return nil
	}
	tr := newMatchTransport(fh.qt, 128)
	players, _ := fh.g.players()
	an, err := greeting.NewAnnouncer(tr, greeting.Announcement{Name: fh.o.name, Players: players, FrameRate: fh.o.fps,
		Settings: fh.g.settings(room), Grace: graceOr(fh.o.lim.grace)})
	if err != nil {
		fh.log.Warn("starting a match", "room", room, "err", err)
		return nil
	}
	h, err := fh.g.open(an, room, fh.o.lim, fh.netConfig())
	if err != nil {
		fh.log.Warn("starting a match", "room", room, "err", err)
		return nil
	}
	m := &fleetMatch{room: room, h: h, tr: tr, peers: map[transport.Peer]bool{}, came: map[uint64]bool{}, started: now,
		a: announcer{say: fh.g.announce(), an: an, buf: make([]byte, 0, transport.MaxDatagram)}}
	fh.matches[room] = m
	fh.gate.set(room, true)
	fh.started.Add(1)
	fh.running.Store(int64(len(fh.matches)))
	if int64(len(fh.matches)) > fh.peak.Load() {
		fh.peak.Store(int64(len(fh.matches)))
	}
	fh.log.Debug("match started", "room", room, "matches", len(fh.matches))
	return m
}

// fleetGate is what the QUIC transport's Admit reads of the fleet host
// (the loop writes it): the rooms it runs, its capacity, whether it
// drains. A client of a new match is refused at once, with the reason,
// when the host drains or is full; its Dial returns quic.ErrRefused (in
// netplay, ErrHostUnreachable), and it asks the fleet again. The loop's
// own check stays the rule (a client of another new room may take the
// last match between the two); this one spares a refused client the
// silence until its connect timeout.
type fleetGate struct {
	mu       sync.Mutex
	rooms    map[string]bool
	capacity int
	draining bool
	// member, once the host joined, tells of an operator's drain order
	// as soon as its beat read it, before the loop's next tick drains
	// the host: the host's record says it drains from that beat on, and a
	// client placed just before must be refused from then, not admitted.
	member atomic.Pointer[fleethost.Member]
	// Its refusals, in fleetStats' RefusedFull and RefusedDraining.
	refusedFull, refusedDraining atomic.Uint64
}

var (
	errGateDraining = errors.New("the host drains: ask the fleet again")
	errGateFull     = errors.New("the host is full: ask the fleet again")
)

func (g *fleetGate) admit(c connecttoken.Claims) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.rooms[c.Room]:
		return nil
	case g.draining || g.member.Load() != nil && g.member.Load().Draining():
		g.refusedDraining.Add(1)
		return errGateDraining
	case len(g.rooms) >= g.capacity:
		g.refusedFull.Add(1)
		return errGateFull
	}
	return nil
}

func (g *fleetGate) set(room string, running bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if running {
		g.rooms[room] = true
	} else {
		delete(g.rooms, room)
	}
}

func (g *fleetGate) drain() {
	g.mu.Lock()
	g.draining = true
	g.mu.Unlock()
}

// relinger decides a lingered match on b, a datagram of one of its
// clients (all came after every client had left). A Hello that resumes a
// slot keeps the match: someone came back. A fresh Hello ends it and
// starts the room's next match with the same clients: the slots of those
// who left are held for their rejoin (-grace), so fresh clients could
// take only what was left free, and the next one found no slot and heard
// nothing until its timeout. It returns the match b goes to (nil: none,
// the host drains or is full).
func (fh *fleetHost) relinger(m *fleetMatch, b []byte, now time.Time) *fleetMatch {
	if typ, _, _, err := wire.ParseHeader(b); err != nil || typ != wire.TypeHello {
		return m
	}
	hello, _, err := wire.ParseHello(b)
	if err != nil {
		return m
	}
	if hello.Resume {
		m.lingered = false
		return m
	}
	peers := m.peers
	fh.stop(m, "a fresh client came after every client had left")
	next := fh.start(m.room, now)
	if next == nil {
		fh.mem.Ended(fh.game, m.room, len(m.came))
	} else {
		fh.mem.Restarted(m.room)
	}
	for p := range peers {
		if next == nil {
			fh.refused[p] = true
			continue
		}
		next.peers[p] = true
		if claims, ok := fh.qt.PeerClaims(p); ok {
			next.came[claims.Client] = true
		}
		fh.byPeer[p] = next
	}
	return next
}

// step advances every match one frame and ends those whose clients left
// (after -match-linger) or whose drain deadline passed.
func (fh *fleetHost) step(now time.Time) error {
	for room, m := range fh.matches {
		if err := m.h.AdvanceFrame(); err != nil {
			fh.log.Warn("match failed", "room", room, "err", err)
			fh.end(m, "failed")
			continue
		}
		m.a.ticks++
		m.a.announce(m.h, fh.o.fps)
		if len(m.peers) == 0 {
			if m.emptySince.IsZero() {
				m.emptySince = now
			} else if now.Sub(m.emptySince) >= fh.f.linger {
				fh.end(m, "its clients left")
			}
		}
	}
	return nil
}

// end closes m's host (every client gets a disconnect notice) and frees
// its room.
func (fh *fleetHost) end(m *fleetMatch, why string) {
	fh.stop(m, why)
	fh.mem.Ended(fh.game, m.room, len(m.came))
}

// stop closes m's host and forgets m (its room stays in the fleet's
// record: end frees it).
func (fh *fleetHost) stop(m *fleetMatch, why string) {
	_ = m.h.Close()
	delete(fh.matches, m.room)
	fh.gate.set(m.room, false)
	for p := range m.peers {
		delete(fh.byPeer, p)
	}
	fh.ended.Add(1)
	fh.running.Store(int64(len(fh.matches)))
	fh.log.Debug("match ended", "room", m.room, "why", why, "frames", m.h.Frame(), "matches", len(fh.matches))
}

func (fh *fleetHost) endAll(why string) {
	for _, m := range fh.matches {
		fh.end(m, why)
	}
}

// report hands the member the host's load and refreshes the view.
func (fh *fleetHost) report() {
	fh.rooms = fh.rooms[:0]
	connected := 0
	fh.mu.Lock()
	fh.view = fh.view[:0]
	for room, m := range fh.matches {
		fh.rooms = append(fh.rooms, room)
		connected += len(m.peers)
		fh.view = append(fh.view, fleetMatchView{Room: room, Frame: int64(m.h.Frame()), Clients: len(m.peers)})
	}
	fh.mu.Unlock()
	fh.mem.SetLoad(fh.rooms, connected)
	fh.connected.Store(int64(connected))
}

func (fh *fleetHost) netConfig() rollnet.NetConfig {
	return rollnet.NetConfig{FrameRate: fh.o.fps, DisconnectTimeout: fh.o.lim.timeout}
}

// fleetStats are a fleet host's own counts, in its /fleet view (every
// key snake_case).
type fleetStats struct {
	ID       string `json:"id"`
	Draining bool   `json:"draining"`
	Capacity int    `json:"capacity_matches"`
	// Running is the matches stepped now, Peak the most at once since the
	// start: never over Capacity.
	Running   int    `json:"running"`
	Peak      int    `json:"peak"`
	Connected int    `json:"connected"`
	Started   uint64 `json:"started"`
	Ended     uint64 `json:"ended"`
	// RefusedFull counts clients of a new match that found the host at
	// capacity (placement by compare-and-set never lets that happen),
	// RefusedDraining those that came while it drained: refused when
	// their connection is admitted (with the reason) or, in a race with
	// another new room, at their first datagram (in silence).
	RefusedFull     uint64 `json:"refused_full"`
	RefusedDraining uint64 `json:"refused_draining"`
	// Dropped counts datagrams a match's queue had no room for, Unrouted
	// those of peers without a connect token.
	Dropped      uint64           `json:"dropped"`
	Unrouted     uint64           `json:"unrouted"`
	Beats        uint64           `json:"beats"`
	BeatFailures uint64           `json:"beat_failures"`
	Matches      []fleetMatchView `json:"matches"`
}

func (fh *fleetHost) stats() fleetStats {
	ms := fh.mem.Stats()
	fh.mu.Lock()
	view := slices.Clone(fh.view) // the loop reuses fh.view
	fh.mu.Unlock()
	return fleetStats{ID: fh.info.ID, Draining: fh.drainingFlag.Load(), Capacity: fh.f.matches,
		Running: int(fh.running.Load()), Peak: int(fh.peak.Load()), Connected: int(fh.connected.Load()),
		Started: fh.started.Load(), Ended: fh.ended.Load(),
		RefusedFull: fh.refusedFull.Load() + fh.gate.refusedFull.Load(), RefusedDraining: fh.refusedDraining.Load() + fh.gate.refusedDraining.Load(),
		Dropped: fh.dropped.Load(), Unrouted: fh.unrouted.Load(), Beats: ms.Beats, BeatFailures: ms.BeatFailures, Matches: view}
}

// serveMetrics serves /metrics, /fleet and POST /drain on addr.
func (fh *fleetHost) serveMetrics(addr string) (func(), error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(fleetHostCollector{fh})
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET "+fleet.ViewPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(fh.stats())
	})
	mux.HandleFunc("POST /drain", func(w http.ResponseWriter, _ *http.Request) {
		select {
		case fh.drainc <- struct{}{}:
		default:
		}
		_, _ = w.Write([]byte("draining\n"))
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-metrics: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fh.log.Warn("metrics server", "err", err)
		}
	}()
	fh.log.Info("fleet metrics", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

type fleetHostCollector struct{ fh *fleetHost }

var (
	descRunning  = prometheus.NewDesc("rollnet_fleet_host_matches", "Matches this host steps now.", nil, nil)
	descCapacity = prometheus.NewDesc("rollnet_fleet_host_capacity_matches", "Matches this host runs at most.", nil, nil)
	descPeak     = prometheus.NewDesc("rollnet_fleet_host_matches_peak", "Most matches at once since the start.", nil, nil)
	descClients  = prometheus.NewDesc("rollnet_fleet_host_clients", "Clients connected to this host's matches.", nil, nil)
	descStarted  = prometheus.NewDesc("rollnet_fleet_host_matches_started_total", "Matches started.", nil, nil)
	descEnded    = prometheus.NewDesc("rollnet_fleet_host_matches_ended_total", "Matches ended.", nil, nil)
	descRefused  = prometheus.NewDesc("rollnet_fleet_host_refused_total", "Clients of a new match refused, by reason (full, draining).", []string{"reason"}, nil)
	descDraining = prometheus.NewDesc("rollnet_fleet_host_draining", "1 while the host drains.", nil, nil)
	descBeats    = prometheus.NewDesc("rollnet_fleet_host_heartbeats_total", "Heartbeats written, by result.", []string{"result"}, nil)
)

func (c fleetHostCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRunning, descCapacity, descPeak, descClients, descStarted, descEnded, descRefused, descDraining, descBeats} {
		ch <- d
	}
}

func (c fleetHostCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.fh.stats()
	g := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	n := func(d *prometheus.Desc, v uint64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), l...)
	}
	g(descRunning, float64(st.Running))
	g(descCapacity, float64(st.Capacity))
	g(descPeak, float64(st.Peak))
	g(descClients, float64(st.Connected))
	n(descStarted, st.Started)
	n(descEnded, st.Ended)
	n(descRefused, st.RefusedFull, "full")
	n(descRefused, st.RefusedDraining, "draining")
	d := 0.0
	if st.Draining {
		d = 1
	}
	g(descDraining, d)
	n(descBeats, st.Beats, "ok")
	n(descBeats, st.BeatFailures, "failed")
}
