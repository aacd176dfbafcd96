package authority

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// adviceEvery is the most frames between two states that carry a
// client's advice; it rides on others only when the rate moved adviceStep
// thousandths or more from the last sent (under jitter it moves a few
// thousandths most ticks; a client 0.5% off for half a second drifts 2.5
// ms, and the depth the host measures closes the loop). The depth, which
// a client only reports, rides along.
const (
	adviceEvery = 30
	adviceStep  = 5
)

// chainHoldMin and chainHoldMax bound how long, in frames, the host codes
// a client's states against its acknowledgements after the chain of
// states coded one against the previous broke (Host.base).
const (
	chainHoldMin = 60
	chainHoldMax = 3600
)

// sentLen is how many of its own states, as sent, the host keeps by frame:
// the baselines a client may have acknowledged.
const sentLen = 2 * baselineWindow

// HostStats are a host's own counters.
type HostStats struct {
	Frame   rollnet.Frame
	Clients int // connected or away
	// UnknownPackets counts packets from peers that are not clients (other
	// than Hellos); HellosRefused Hellos with another settings hash, that
	// did not decode, that found no free slot, or that came from an
	// address holding MaxClientsPerAddress records or barred by the join
	// timeout; HellosDropped Hellos
	// over MaxJoinsPerTick (only Hellos owed an answer count against it).
	// RefusalsSent counts the answers to Hellos of other settings (a
	// WelcomeRefused with the host's): at most one a second per
	// connection and MaxJoinsPerTick a tick.
	UnknownPackets, HellosRefused, HellosDropped, RefusalsSent uint64
	// Joined counts INITIAL_SYNCs decided, Rejoined RESUME_ACCEPTs,
	// RejoinsRefused RESUME_REJECTs, Expired clients whose grace window
	// ran out (or that never played, once their connection went).
	Joined, Rejoined, RejoinsRefused, Expired uint64
	// JoinTimeouts counts records freed because no valid input came
	// within HostConfig.JoinTimeout of their Hello's answer;
	// RejoinsWhileHeard Hellos with a valid token from another connection
	// while the token's owner is heard (not answered).
	JoinTimeouts, RejoinsWhileHeard uint64
	// Rollbacks and ResimulatedFrames are the core session's (LateRollback).
	Rollbacks, ResimulatedFrames int
	// Waiting says the host holds frame 0 for its players
	// (HostConfig.WaitForPlayers); Present counts the slots held: its own
	// and those of its connected clients.
	Waiting bool
	Present int
	// Awaiting counts the clients whose players the host waits for
	// (HostConfig.Absence AbsenceFreeze or AbsenceForfeit); Awaited is
	// the first slot of the first of them (-1 none), HoldAt the frame the
	// match stops at (NoFrame: no hold), HeldFor how long the longest
	// awaited has been; Forfeited says the match stopped at HoldAt for
	// good (AbsenceForfeit).
	Awaiting, Awaited int
	HoldAt            rollnet.Frame
	HeldFor           time.Duration
	Forfeited         bool
	// Rewinds counts the sights a lag-compensated simulate asked for and
	// got (Sights.Of answered with a past view; a frame re-simulated asks
	// again).
	Rewinds uint64
}

// Host runs the simulation that counts. See the package documentation.
type Host[S any, I comparable] struct {
	s         hostSettings
	predict   func(player int, last I, frame rollnet.Frame) I
	e         link.Endpoint
	conns     *conns
	events    []rollnet.Event // this tick's, read off the links
	queue     []rollnet.Event // undrained, for Events (at most maxEvents)
	t         int64
	core      core[S, I]             // the core session, or direct past 64 players
	session   *session.Session[S, I] // the core session, or nil
	recorder  *replay.Recorder[S, I] // SetRecorder's (record.go), or nil
	hash      uint64
	settings  wire.AuthSettings // what the hash is of, sent to a Hello refused
	stateSize int
	inputSize int

	local   []I // the host's own slots' inputs, as last given
	used    []I // every slot's input at the newest frame
	usedB   []byte
	scratch []I
	clients []*hostClient[I]
	joins   int
	// barred are the addresses of records freed by the join timeout,
	// refused new slots until their time (a ring, one entry per record).
	barred     []barredAddress
	barredNext int

	sent     []S    // states as sent, slot f%sentLen
	sentIn   []byte // every player's input at each, [f%sentLen*len(usedB):]
	sentTags []rollnet.Frame
	sums     []uint32
	coded    codedCache

	out   []byte // one packet
	chunk []byte // a body in one packet
	ins   []byte // AuthInput parse buffer
	data  []byte // a body's inputs then state, XORed with a base's
	stats HostStats
	// refused are the last 64 connections refused (a ring): each is
	// answered at most once a second, however often it says Hello (past
	// 64 at once, MaxJoinsPerTick a tick bounds the answers).
	refused     [64]refusal
	refusedNext int
	refusals    int // refusals answered this tick
	// started says frame 0 may be simulated: no lobby, or the lobby is
	// over; openedAt is the first tick's time (the lobby's start).
	started  bool
	openedAt int64
	done     bool
	abs      absence // HostConfig.Absence's state (absence.go)

	// Lag compensation (NewHostLagComp): the sights in effect at each
	// kept frame, [f%sentLen*len(clients) + client]; the bound, in 256ths
	// of a frame; the view handed to simulate; the sights parse buffer.
	lagcomp bool
	seen    []claim
	rewind  int64
	view    Sights[S]
	sightIn []byte
}

// NewHost returns a host that reads and writes tr and advances S with
// simulate. Set the initial state through State() before the first
// AdvanceFrame. S and I must be pointer-free and gap-free (rollback.CheckType),
// S at most 64 KiB, I at most 32 bytes and without bools.
func NewHost[S any, I comparable](cfg HostConfig[I], tr transport.Transport, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Host[S, I], error) {
	if tr == nil || simulate == nil {
		return nil, fmt.Errorf("%w: nil transport or simulate", errConfig)
	}
	return newHost(cfg, tr, simulate, nil)
}

// NewHostLagComp is NewHost for a game with lag compensation: simulate is
// also given what each player saw when it made the frame's input
// (Sights.Of), from the sights its clients (NewClientLagComp) stamp their
// inputs with, bounded by HostConfig.MaxRewind. See Sights.
func NewHostLagComp[S any, I comparable](cfg HostConfig[I], tr transport.Transport, simulate func(s *S, inputs []I, frame rollnet.Frame, seen *Sights[S])) (*Host[S, I], error) {
	if tr == nil || simulate == nil {
		return nil, fmt.Errorf("%w: nil transport or simulate", errConfig)
	}
	var h *Host[S, I]
	h, err := newHost(cfg, tr, func(s *S, inputs []I, frame rollnet.Frame) {
		h.view.frame = frame
		simulate(s, inputs, frame, &h.view)
	}, simulate)
	return h, err
}

// newHost makes a host; lagged is the lag-compensated simulate, or nil.
func newHost[S any, I comparable](cfg HostConfig[I], tr transport.Transport, simulate func(s *S, inputs []I, frame rollnet.Frame), lagged func(*S, []I, rollnet.Frame, *Sights[S])) (*Host[S, I], error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	stateSize, inputSize, err := checkTypes[S, I]()
	if err != nil {
		return nil, err
	}
	h := &Host[S, I]{
		s: s, predict: cfg.Predict,
		settings:  authSettings(s.players, stateSize, inputSize, &s.net),
		stateSize: stateSize, inputSize: inputSize,
		local: make([]I, max(s.locals, 1)), used: make([]I, s.players), usedB: make([]byte, s.players*inputSize),
		scratch: make([]I, s.perClient),
		sent:    make([]S, sentLen), sentTags: make([]rollnet.Frame, sentLen), sums: make([]uint32, sentLen),
		sentIn: make([]byte, sentLen*s.players*inputSize),
		out:    make([]byte, 0, wire.MaxPacket), events: make([]rollnet.Event, 0, maxEvents), queue: make([]rollnet.Event, 0, maxEvents),
		chunk: make([]byte, 0, wire.MaxPacket),
		ins:   make([]byte, wire.MaxFrames*s.perClient*inputSize), data: make([]byte, s.players*inputSize+stateSize),
		barred:  make([]barredAddress, max(s.maxClients, 1)),
		started: s.waitFor == 0, openedAt: -1,
		abs: absence{policy: cfg.Absence, playing: or(cfg.PlayingSlots, s.players), until: rollnet.NoFrame, stop: rollnet.NoFrame},
	}
	h.hash = settingsHash(h.settings)
	h.sightIn = make([]byte, wire.MaxFrames*wire.SightLen)
	if lagged != nil {
		h.lagcomp = true
		h.view.src = h
		h.rewind = 256 * int64(s.rewind)
		h.seen = make([]claim, sentLen*max(s.maxClients, 1))
		for i := range h.seen {
			h.seen[i] = noClaim
		}
	}
	if s.players <= maxCorePlayers {
		if h.session, err = session.New[S, I](session.Config[I]{Players: s.players, Capacity: 64, Predict: cfg.Predict}, simulate); err != nil {
			return nil, fmt.Errorf("%w: %w", errConfig, err)
		}
		h.core = h.session
	} else {
		h.core = newDirect[S, I](s.players, simulate)
	}
	h.conns = newConns(tr, s.maxClients, h.hello)
	h.e = link.NewEndpoint(h.conns, s.net, protocol)
	for i := range h.sentTags {
		h.sentTags[i] = rollnet.NoFrame
	}
	// The range coding grows a state by wire's rawSlack bytes at most
	// (and by a symbol more before it gives up on the model); twice the
	// state bounds it with room to spare.
	bodyCap := min(wire.MaxStateBody+64, 2*(stateSize+s.players*inputSize)+64)
	h.coded = newCodedCache(bodyCap)
	for i := range s.maxClients {
		c := newHostClient[I](s.perClient, bodyCap)
		c.first = s.locals + i*s.perClient
		h.clients = append(h.clients, c)
		if err := h.e.AddLink(h.newLink(i)); err != nil {
			return nil, fmt.Errorf("%w: %w", errConfig, err)
		}
	}
	return h, nil
}

// State is the live state: set the initial state through it before the
// first AdvanceFrame; read it after.
func (h *Host[S, I]) State() *S { return h.core.State() }

// Frame is the next frame AdvanceFrame simulates.
func (h *Host[S, I]) Frame() rollnet.Frame { return h.core.Frame() }

// Settings is the settings hash a client's Hello must carry.
func (h *Host[S, I]) Settings() uint64 { return h.hash }

// AddLocalInput sets the input of one of the host's own slots for the next
// AdvanceFrame (and, until set again, the ones after).
func (h *Host[S, I]) AddLocalInput(slot int, in I) error {
	if uint(slot) >= uint(h.s.locals) {
		return fmt.Errorf("%w: slot %d (the host holds %d)", ErrSlot, slot, h.s.locals)
	}
	h.local[slot] = in
	return nil
}

// ChecksumAt is the CRC32-C of the state after frame as sent to clients,
// while it is kept (the newest 64 frames); for another frame it returns
// ErrOutOfWindow.
func (h *Host[S, I]) ChecksumAt(frame rollnet.Frame) (uint32, error) {
	k := int(frame) % sentLen
	if frame < 0 || h.sentTags[k] != frame {
		return 0, fmt.Errorf("%w: frame %d (the host keeps the checksums of the newest %d frames sent)", ErrOutOfWindow, frame, sentLen)
	}
	return h.sums[k], nil
}

// Events appends every event since the last call to dst, oldest first,
// and returns it: a client's connection interrupted, resumed or
// disconnected (then away, its token valid for the grace window). With a
// dst of enough capacity it allocates nothing. The host holds at most
// maxEvents undrained events, dropping the oldest beyond that: drain every
// tick.
func (h *Host[S, I]) Events(dst []rollnet.Event) []rollnet.Event {
	dst = append(dst, h.queue...)
	h.queue = h.queue[:0]
	return dst
}

// Stats returns the host's counters.
func (h *Host[S, I]) Stats() HostStats {
	st := h.stats
	st.Frame = h.core.Frame()
	st.Clients = 0
	for _, c := range h.clients {
		if c.state != clientFree {
			st.Clients++
		}
	}
	cs := h.core.Stats()
	st.Rollbacks, st.ResimulatedFrames = cs.Rollbacks, cs.ResimulatedFrames
	st.Waiting, st.Present = !h.started, h.present()
	h.absenceStats(&st)
	return st
}

// present counts the slots held: the host's own and those of its
// connected clients.
func (h *Host[S, I]) present() int {
	n := h.s.locals
	for _, c := range h.clients {
		if c.state == clientConnected {
			n += h.s.perClient
		}
	}
	return n
}

// lobby reports whether the host still holds frame 0 (HostConfig.
// WaitForPlayers), and ends the wait once the players are there or
// LobbyTimeout passed. The join timeout of the clients already there
// counts from the start: they had nothing to send before it.
func (h *Host[S, I]) lobby() bool {
	if h.started {
		return false
	}
	if h.openedAt < 0 {
		h.openedAt = h.t
	}
	if h.present() < h.s.waitFor && (h.s.lobby == 0 || h.t-h.openedAt < h.s.lobby) {
		return true
	}
	h.started = true
	for _, c := range h.clients {
		if c.state == clientConnected && !c.played {
			c.joinAt = h.t
		}
	}
	return false
}

// Clients appends the statistics of every connected or away client to dst.
func (h *Host[S, I]) Clients(dst []HostClientStats) []HostClientStats {
	for _, c := range h.clients {
		if c.state != clientFree {
			dst = append(dst, c.clientStats(h.s.perClient))
		}
	}
	return dst
}

// Close sends every connected client a disconnect notice and stops the
// host; it does not close the transport.
func (h *Host[S, I]) Close() error {
	if !h.done {
		h.e.Close()
	}
	h.done = true
	return nil
}

// newLink returns a fresh link for record i, for a new connection.
func (h *Host[S, I]) newLink(i int) *link.Link {
	l := link.New(h.conns.names[i])
	l.Optional = true
	return l
}

// AdvanceFrame runs one tick: reads every waiting packet, decides each slot's
// input for the frame (received, late, or predicted), simulates it, and
// sends each client what it is owed. It allocates nothing at steady state.
func (h *Host[S, I]) AdvanceFrame() error {
	if h.done {
		return errClosed
	}
	h.e.Clock()
	h.t = h.e.Time()
	f := h.core.Frame()
	h.joins, h.refusals = 0, 0
	for _, c := range h.clients {
		c.pkts = 0
	}
	h.receive(f)
	h.timers()
	if h.lobby() {
		// Nothing is simulated: the clients admitted wait for frame 0's
		// state, their links kept alive.
		h.sendWelcomes()
		for _, c := range h.clients {
			if c.state == clientConnected {
				h.e.KeepAlive(c.l, 0)
			}
		}
		return nil
	}
	if h.abs.policy != rollnet.AbsencePredict {
		h.sendWelcomes() // a returning client reads the hold's word after its answer
		if h.holds(f) {
			for _, c := range h.clients {
				if c.state == clientConnected {
					h.e.KeepAlive(c.l, 0)
				}
			}
			return nil
		}
	}
	if err := h.gather(f); err != nil {
		return err
	}
	if err := h.core.AdvanceFrame(); err != nil {
		return fmt.Errorf("authority: host step at frame %d: %w", f, err)
	}
	h.record(f)
	if h.recorder != nil {
		_ = h.recorder.RecordConfirmed(h.session) // its error is kept for Flush and Close
	}
	if int(f)%h.s.interval == 0 {
		for _, c := range h.clients {
			if c.state == clientConnected {
				h.sendState(c, f)
			}
		}
	}
	h.sendWelcomes()
	for _, c := range h.clients {
		if c.state == clientConnected {
			h.e.KeepAlive(c.l, 0)
		}
	}
	return nil
}

// receive reads every waiting packet and routes it: the link's own
// messages to the link, inputs and Nacks here; packets from peers on no
// record reach hello through conns.
func (h *Host[S, I]) receive(f rollnet.Frame) {
	for {
		l, typ, b, ok := h.e.Receive()
		if !ok {
			return
		}
		c := h.clients[l.Index()]
		if c.state == clientFree || l.State() != link.Running {
			continue
		}
		if c.pkts++; c.pkts > h.s.maxPkts {
			c.stats.Flooded++
			continue
		}
		if seq := binary.LittleEndian.Uint16(b[1:3]); l.Plausible(seq) {
			c.heardSeq(seq, f)
		}
		if h.e.HandleCommon(l, typ, b) {
			continue
		}
		switch typ {
		case wire.TypeAuthInput:
			h.input(c, b, f)
		case wire.TypeNack:
			h.nack(c, b)
		case wire.TypeHello:
			c.stats.HellosIgnored++
		default:
			l.Malformed()
		}
	}
}

// hello handles a Hello from a peer that is not a client: one answer,
// decided now, for this connection.
func (h *Host[S, I]) hello(from transport.Peer, b []byte) {
	if typ, _, _, err := wire.ParseHeader(b); err != nil || typ != wire.TypeHello {
		h.stats.UnknownPackets++
		return
	}
	// Refused before they count against the joins a tick allows: no
	// answer is owed them, so a flood of them cannot starve an honest
	// Hello of its turn.
	m, _, err := wire.ParseHello(b)
	if err != nil || from == "" {
		h.stats.HellosRefused++
		return
	}
	if m.Settings != h.hash {
		h.stats.HellosRefused++
		h.refuse(from, m)
		return
	}
	resume := -1
	if m.Resume {
		resume = h.byToken(m.Token)
	}
	if resume >= 0 {
		// A valid token from another address while its owner is heard is
		// refused: the owner plays on. Once the owner's connection is
		// interrupted (silent past Net.DisconnectNotify) the token takes
		// the slot over: a client whose address changed is silent on its
		// old one, so it resumes within that.
		if c := h.clients[resume]; c.state == clientConnected && !c.l.Interrupted() {
			h.stats.RejoinsWhileHeard++
			return
		}
	}
	i := -1
	if resume < 0 {
		// A fresh slot: not for an address barred by the join timeout,
		// nor past the records one address may hold; refused before the
		// joins budget too, so such Hellos cannot starve honest ones.
		addr := addressOf(from)
		if h.isBarred(addr) || h.perAddress(addr) >= h.s.perAddress {
			h.stats.HellosRefused++
			return
		}
		for k, c := range h.clients {
			if c.state == clientFree {
				i = k
				break
			}
		}
		if i < 0 {
			h.stats.HellosRefused++
			return
		}
	}
	if h.joins >= h.s.maxJoins {
		h.stats.HellosDropped++
		return
	}
	h.joins++
	if resume >= 0 {
		c := h.clients[resume]
		c.reset(from, h.connect(resume, from, m.Seq), m.Seq, true)
		// Under AbsenceFreeze the frames it missed were held for it or
		// played without it: its backlog is superseded.
		c.resuming = h.s.backlog == BacklogApply && h.abs.policy == rollnet.AbsencePredict
		h.answer(c, wire.WelcomeResume, m.Nonce)
		h.stats.Rejoined++
		return
	}
	c := h.clients[i]
	c.reset(from, h.connect(i, from, m.Seq), m.Seq, false)
	c.token = h.newToken()
	h.answer(c, wire.WelcomeSync, m.Nonce)
	if m.Resume {
		c.reject = true
		h.stats.RejoinsRefused++
	}
	h.stats.Joined++
}

// refusal is a connection refused for its settings, and when.
type refusal struct {
	peer transport.Peer
	at   int64
}

// refuse answers a Hello of other settings (or another protocol) with the
// host's, so the client can say what differs: once a second per
// connection (of the last 64 refused), at most MaxJoinsPerTick a tick, a
// few bytes more than the Hello, and nothing held for it.
func (h *Host[S, I]) refuse(from transport.Peer, m wire.Hello) {
	for _, r := range h.refused {
		if r.peer == from && h.t-r.at < int64(time.Second) {
			return
		}
	}
	if h.refusals >= h.s.maxJoins {
		return
	}
	h.refusals++
	h.refused[h.refusedNext] = refusal{peer: from, at: h.t}
	h.refusedNext = (h.refusedNext + 1) % len(h.refused)
	h.stats.RefusalsSent++
	w := wire.Welcome{Seq: m.Seq, Kind: wire.WelcomeRefused, Nonce: m.Nonce, Host: h.settings}
	h.out = w.Append(h.out[:0])
	_ = h.conns.tr.Send(from, h.out)
}

func (h *Host[S, I]) answer(c *hostClient[I], kind wire.WelcomeKind, nonce uint64) {
	c.kind, c.nonce, c.welcomes = kind, nonce, h.s.copies
	c.welcomeAt = h.t - h.s.spacing
	c.joinAt = h.t
	c.budget, c.budgetAt = h.s.budget, h.t
}

// barredAddress is an address refused new slots until a time.
type barredAddress struct {
	addr  string
	until int64
}

// bar refuses addr new slots for the join timeout.
func (h *Host[S, I]) bar(addr string) {
	h.barred[h.barredNext] = barredAddress{addr: addr, until: h.t + h.s.joinTimeout}
	h.barredNext = (h.barredNext + 1) % len(h.barred)
}

func (h *Host[S, I]) isBarred(addr string) bool {
	for _, b := range h.barred {
		if b.until > h.t && b.addr == addr {
			return true
		}
	}
	return false
}

// perAddress counts the records, connected or away, of connections from
// addr.
func (h *Host[S, I]) perAddress(addr string) int {
	n := 0
	for _, c := range h.clients {
		if c.state != clientFree && addressOf(c.peer) == addr {
			n++
		}
	}
	return n
}

// connect puts record i on connection from with a fresh link, running at
// once: the Hello was this mode's handshake (settings hash and nonce), and
// its sequence number anchors the connection's (a client refused for a
// while has counted far past zero).
func (h *Host[S, I]) connect(i int, from transport.Peer, seq uint16) *link.Link {
	h.conns.bind(i, from)
	l := h.newLink(i)
	h.e.ReplaceLink(i, l)
	h.e.Accept(l, seq) // a link with no anchor yet takes this one
	l.MarkSynchronized()
	h.e.Synced(l)
	return l
}

func (h *Host[S, I]) newToken() (t [wire.TokenLen]byte) {
	for t == ([wire.TokenLen]byte{}) {
		a, b := h.s.net.Rand(), h.s.net.Rand()
		for i := range 8 {
			t[i], t[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
		}
	}
	return t
}

func (h *Host[S, I]) byToken(t [wire.TokenLen]byte) int {
	for i, c := range h.clients {
		if c.state != clientFree && c.token == t {
			return i
		}
	}
	return -1
}

// input takes a client's AuthInput: its acknowledgement, a depth sample,
// and every frame it has not sent before.
func (h *Host[S, I]) input(c *hostClient[I], b []byte, f rollnet.Frame) {
	var m wire.AuthInput
	if _, err := wire.ParseAuthInput(b, &m, h.ins, h.sightIn); err != nil || m.Slots != h.s.perClient || m.Size != h.inputSize {
		c.l.Malformed()
		return
	}
	newest := rollnet.Frame(m.Newest())
	if newest > f+4*rollnet.Frame(h.s.ahead) || rollnet.Frame(m.Ack) > c.sentUpTo {
		c.l.Malformed() // absurd frames, or an ack of a state never sent
		return
	}
	if !h.e.Accept(c.l, m.Seq) {
		return // a sequence number far from the connection's: forged, or replayed long after
	}
	if c.seen.again(m.Seq) {
		c.stats.Replayed++ // a copy: its acknowledgement is old news, or a lie
		return
	}
	c.played = true
	// The newest packet's acknowledgement, not the greatest ever: a forged
	// ack that got through is healed by the client's next packet (an older
	// one, reordered, names a baseline the client still holds).
	c.ack = rollnet.Frame(m.Ack)
	c.heardAck(c.ack, f, rollnet.Frame(h.s.interval))
	if c.fullAt != rollnet.NoFrame && c.ack >= c.fullAt {
		c.fullGap = 1 // a full state arrived: the next may go at once
	}
	c.leadSample(newest, c.ack)
	if !h.abs.held { // (held, the client waits at the stop: its inputs' lead says nothing)
		d := float64(newest - f + 1)
		if c.stats.StatesSent == 0 && c.depth == 0 {
			c.depth = d
		} else {
			c.depth += (d - c.depth) / 8
		}
		c.adv.Heard(int32(newest), int32(f))
	}
	per, size := h.s.perClient, h.inputSize
	for k := range m.Frames {
		g := rollnet.Frame(m.Start) + rollnet.Frame(k)
		if g <= c.heard {
			continue
		}
		if g > f+rollnet.Frame(h.s.ahead) {
			c.stats.TooEarly += uint64(m.Frames - k) // not heard: sent again, and the advice slows the client
			break
		}
		if c.heard != rollnet.NoFrame && g > c.heard+1 {
			c.stats.InputsLost += uint64(g - c.heard - 1)
		}
		c.heard = g
		vals := h.scratch
		sight := noClaim
		if h.lagcomp && m.Sights != nil {
			sight = h.heardSight(c, wire.SightAt(m.Sights, k), g)
		}
		if g >= f {
			c.resuming = false // on time: the backlog, if any, is whole
			vals = c.at(g, per)
			c.tags[int(g)%inputRing] = g
			c.sent[int(g)%inputRing] = false
			c.sights[int(g)%inputRing] = sight
		}
		for j := range vals {
			o := (k*per + j) * size
			copy(rollback.BytesOf(&vals[j]), m.Inputs[o:o+size])
		}
		if g >= f {
			continue
		}
		c.stats.LateInputs++
		if h.s.late == LateRollback && g >= f-rollnet.Frame(h.s.window) && !c.has(g) {
			for j, v := range vals {
				_ = h.core.AddRemoteInput(c.first+j, g, v)
			}
			copy(c.at(g, per), vals)
			c.tags[int(g)%inputRing], c.sent[int(g)%inputRing] = g, true
			c.sights[int(g)%inputRing] = sight
			if h.lagcomp {
				h.inEffect(c, sight, g) // the frame re-simulated: what the player saw then
			}
			c.stats.LateRolledBack++
			continue
		}
		c.pushLate(f, vals, sight, per)
		if c.resuming && c.backlogN == c.lateN-1 {
			c.backlogN++ // the resume's backlog: applied before anything newer
		}
	}
}

// nack resends the fragments a client names, within the bounds.
func (h *Host[S, I]) nack(c *hostClient[I], b []byte) {
	m, _, err := wire.ParseNack(b)
	if err != nil {
		c.l.Malformed()
		return
	}
	if !h.e.Accept(c.l, m.Seq) {
		return
	}
	if c.seen.again(m.Seq) {
		c.stats.Replayed++
		return
	}
	sb := c.out.find(m.Msg)
	c.fill(h.t, h.s.budget)
	if sb == nil || sb.nacks >= maxNacks || c.budget <= 0 {
		c.stats.NacksRefused++
		return
	}
	sb.nacks++
	c.stats.NacksServed++
	for miss := m.Missing & fullMask(sb.count); miss != 0; miss &= miss - 1 {
		c.budget -= int64(h.sendFragment(c, sb, bits.TrailingZeros64(miss)))
		c.stats.FragmentsResent++
	}
}

// timers runs each connection's link timers: a client whose link timed
// out (or whose connection is gone) is away; one away past the grace window
// is freed, its token void. Then each client's rate advice is updated.
func (h *Host[S, I]) timers() {
	for i, c := range h.clients {
		if c.state == clientConnected {
			h.e.Tick(c.l)
			if c.l.State() == link.Disconnected {
				c.state, c.awaySince = clientAway, h.t
				// The connection is let go of: what comes from it now
				// reaches hello, so a Hello with the token from the same
				// address resumes (the link would drop it: it is gone).
				h.conns.unbind(i)
			}
		}
		// A record that never saw an input (a bare Hello, a flood of them
		// from many addresses) holds no world worth resuming: it is freed
		// as soon as its connection is gone, not after the grace window,
		// and after the join timeout however alive its connection (its
		// address barred from new slots as long).
		switch {
		case c.state == clientConnected && !c.played && h.started && h.t-c.joinAt >= h.s.joinTimeout:
			h.bar(addressOf(c.peer))
			h.free(i, c)
			h.stats.JoinTimeouts++
		case c.state == clientAway && (h.t-c.awaySince >= h.s.grace || !c.played):
			h.free(i, c)
			h.stats.Expired++
		}
		if c.state != clientFree && !h.abs.held {
			c.advise(h.core.Frame(), h.s.target, h.s.maxRate)
		}
	}
	h.events = h.e.Events(h.events[:0])
	for k := range h.events {
		if i, ok := h.conns.byName[h.events[k].Peer]; ok {
			h.events[k].Peer = h.clients[i].peer // the connection, not the record's link name
		}
	}
	if drop := len(h.queue) + len(h.events) - maxEvents; drop > 0 { // the oldest go
		h.queue = h.queue[:copy(h.queue, h.queue[min(drop, len(h.queue)):])]
	}
	h.queue = append(h.queue, h.events[max(0, len(h.events)-maxEvents):]...)
}

// maxEvents bounds the events a host holds for Events, as the links'
// queue does.
const maxEvents = 256

// free voids record i's token and frees its slots. With LateRollback the
// frames of the rollback window the core still predicts for them are
// settled first: gather settles only the slots of a client, and a frame
// left unconfirmed would stop the core at its prediction limit.
func (h *Host[S, I]) free(i int, c *hostClient[I]) {
	if h.s.late == LateRollback {
		f := h.core.Frame()
		for g := f - rollnet.Frame(h.s.window); g < f; g++ {
			h.settle(c, g)
		}
	}
	h.conns.unbind(i)
	c.state, c.peer, c.token = clientFree, "", [wire.TokenLen]byte{}
}

// gather decides every slot's input for frame f and gives it to the core
// session.
func (h *Host[S, I]) gather(f rollnet.Frame) error {
	for p := range h.s.locals {
		h.used[p] = h.local[p]
		if err := h.core.AddRemoteInput(p, f, h.local[p]); err != nil {
			return fmt.Errorf("authority: host input: %w", err)
		}
	}
	per := h.s.perClient
	for _, c := range h.clients {
		vals := h.used[c.first : c.first+per]
		confirm := true
		sight := noClaim
		switch {
		case c.state == clientFree:
			clear(vals)
		case c.backlogN > 0:
			copy(vals, c.popLate(per))
			sight = c.popped
			c.stats.LateApplied++
			if c.has(f) {
				c.stats.Displaced++
				copy(c.at(f, per), vals) // what the frame was simulated with
				c.sent[int(f)%inputRing] = true
			}
		case c.has(f):
			c.supersede(f - rollnet.Frame(h.s.window))
			copy(vals, c.at(f, per))
			sight = c.sights[int(f)%inputRing]
			c.sent[int(f)%inputRing] = true
		default:
			if late := c.popLate(per); late != nil {
				copy(vals, late)
				sight = c.popped
				c.stats.LateApplied++
				break
			}
			for j := range vals {
				vals[j] = h.guess(c.first+j, c.last[j], f)
			}
			c.stats.PredictedInputs++
			if h.s.late == LateRollback {
				confirm = false // the core predicts it; a late input may still correct it
			}
		}
		copy(c.last, vals)
		if h.lagcomp {
			h.inEffect(c, sight, f)
		}
		if confirm {
			for j, v := range vals {
				if err := h.core.AddRemoteInput(c.first+j, f, v); err != nil {
					return fmt.Errorf("authority: host input: %w", err)
				}
			}
		}
		if h.s.late == LateRollback && c.state != clientFree {
			h.settle(c, f-rollnet.Frame(h.s.window))
		}
	}
	for p, v := range h.used {
		copy(h.usedB[p*h.inputSize:], rollback.BytesOf(&v))
	}
	return nil
}

// settle confirms frame g of c with the prediction if no input came for it
// in the rollback window (LateRollback).
func (h *Host[S, I]) settle(c *hostClient[I], g rollnet.Frame) {
	if g < 0 || (c.has(g) && c.sent[int(g)%inputRing]) {
		return
	}
	per := h.s.perClient
	vals := c.at(g, per)
	var prev []I
	if c.has(g - 1) {
		prev = c.at(g-1, per)
	}
	for j := range vals {
		var last I
		if prev != nil {
			last = prev[j]
		}
		vals[j] = h.guess(c.first+j, last, g)
		_ = h.core.AddRemoteInput(c.first+j, g, vals[j])
	}
	c.tags[int(g)%inputRing], c.sent[int(g)%inputRing] = g, true
}

func (h *Host[S, I]) guess(p int, last I, f rollnet.Frame) I {
	if h.predict != nil {
		return h.predict(p, last, f)
	}
	return last
}

// record keeps the state after f, and the inputs at f, as they are sent.
func (h *Host[S, I]) record(f rollnet.Frame) {
	k := int(f) % sentLen
	h.sent[k] = *h.core.State()
	h.sentTags[k] = f
	h.sums[k] = rollback.Checksum(rollback.BytesOf(&h.sent[k]))
	copy(h.sentIn[k*len(h.usedB):(k+1)*len(h.usedB)], h.usedB)
	h.coded.reset(f)
}

// sendState sends c the state after f, delta-coded against the newest
// state it acknowledged when that is still kept.
func (h *Host[S, I]) sendState(c *hostClient[I], f rollnet.Frame) {
	k := int(f) % sentLen
	cur := h.data // the head's Check looks at its length alone
	base := h.base(c, f)
	// What a client may cost is bounded by what it acknowledges: a full
	// state waits for the previous one's acknowledgement (the gap
	// doubling while none comes), and every state for the budget.
	c.fill(h.t, h.s.budget)
	if (base == rollnet.NoFrame && c.fullAt != rollnet.NoFrame && f-c.fullAt < c.fullGap) || c.budget <= 0 {
		c.stats.StatesDeferred++
		return
	}
	coded := h.code(f, base)
	head := wire.StateBody{Frame: int32(f), Base: int32(base), Data: cur}
	if h.checked(f, base) {
		head.Checked, head.InputAck, head.Checksum = true, int32(c.heard), h.sums[k]
	}
	// The advice rides when the rate changed by adviceStep, on a full
	// state, and at least every adviceEvery frames against loss; the
	// client keeps the last it got.
	depth := int32(math.Round(c.depth * 10))
	lease := h.leaseFor(c, f, base == rollnet.NoFrame)
	if base == rollnet.NoFrame || c.advAt == rollnet.NoFrame || max(c.adv.Rate()-c.advRate, c.advRate-c.adv.Rate()) >= adviceStep ||
		f-c.advAt >= adviceEvery || lease > 0 {
		head.Advice, head.Depth, head.Rate, head.Lease = true, depth, c.adv.Rate(), lease
		c.advAt, c.advDepth, c.advRate = f, depth, c.adv.Rate()
	}
	if len(coded) == 0 {
		return
	}
	if h.chunk = head.AppendHead(h.chunk[:0]); len(h.chunk)+len(coded) <= wire.MaxChunk {
		// One packet: nothing of it can be missing, so nothing is kept
		// for repair; it goes out from the host's own buffers.
		h.chunk = append(h.chunk, coded...)
		m := wire.StateFragment{Seq: c.l.Seq(), Count: 1, Chunk: h.chunk}
		h.out = m.Append(h.out[:0])
		h.send(c)
		c.budget -= int64(len(h.out))
	} else {
		sb := c.out.claim(f)
		sb.body = append(append(sb.body, h.chunk...), coded...)
		if len(sb.body) > wire.MaxStateBody {
			sb.active = false
			return
		}
		sb.count = uint8(fragmentCount(len(sb.body)))
		for i := range int(sb.count) {
			c.budget -= int64(h.sendFragment(c, sb, i))
		}
	}
	if base != rollnet.NoFrame && base > c.ack {
		c.chainedN++
	}
	c.sentUpTo = f
	c.stats.StatesSent++
	if base == rollnet.NoFrame {
		c.stats.FullStates++
		if c.fullAt != rollnet.NoFrame {
			c.fullGap = min(2*c.fullGap, maxFullGap)
		}
		c.fullAt = f
	}
}

// base is the state the host codes c's state of frame f against: the
// previous one sent it while its link is clean (the chain: each change of
// the world goes once, where coding against the newest acknowledged sends
// every change of the last round trip again in every state: 1.38 times
// the bytes of one client for each of 64 clients pressing twice a second,
// where it was 2.2, bench's BenchmarkAuthorityStateBytesScale); the newest
// it acknowledged (still kept) otherwise; NoFrame (a full state) when
// there is none.
//
// A state lost breaks the chain: the client cannot decode the states
// coded against the one it lacks (about a round trip of them,
// StatesDropped), so its acknowledgement stops rising; once it has not
// risen for two state intervals and the recent spread of its stalls (the
// link's jitter, heardAck) the host codes against the newest acknowledged
// again. A state that overtakes its base does not break it: the client
// keeps it until its base comes (Client.take's early states). So the chain
// is for links that lose nothing: it starts once the client's packets all
// came (heardSeq: a link that loses them likely loses the host's) and its
// acknowledgements rose without a jump past their spread for hold frames
// (from chainHoldMin, doubling when the chain breaks within four holds of
// its start, to chainHoldMax; back to chainHoldMin when it held longer).
// A link that loses a state every few seconds stays off it. A client
// decodes a state only against the very state it names, so a wrong guess
// costs states, never a wrong one. A full state is never chained to: a
// client drops one it did not need (see Client.take).
func (h *Host[S, I]) base(c *hostClient[I], f rollnet.Frame) rollnet.Frame {
	kept := func(g rollnet.Frame) bool { return g >= 0 && f-g < baselineWindow && h.sentTags[int(g)%sentLen] == g }
	if !kept(c.ack) {
		c.chained = false
		return rollnet.NoFrame
	}
	rising := f-c.ackAt <= rollnet.Frame(2*h.s.interval)+c.spread
	switch {
	case c.chained && !rising:
		c.chained = false
		if f-c.chainFrom < 4*c.hold {
			c.hold = min(2*c.hold, chainHoldMax)
		} else {
			c.hold = chainHoldMin
		}
		c.cleanFrom = f
	case !c.chained && rising && f-c.cleanFrom >= c.hold && c.lossGap >= 4*c.hold && !h.s.noChain:
		c.chained, c.chainFrom = true, f
	}
	if p := c.sentUpTo; c.chained && p > c.ack && p != c.fullAt && kept(p) {
		return p
	}
	return c.ack
}

// checked says the state of frame f coded against base carries its
// checksum (and the client's input acknowledgement): every full state,
// and every checkedEvery-th state interval's.
func (h *Host[S, I]) checked(f, base rollnet.Frame) bool {
	return base == rollnet.NoFrame || (int(f)/h.s.interval)%checkedEvery == 0
}

// code returns the coded part of the body of state f against base (its
// checksum when checked, the inputs and delta), coded once per tick for
// every client that acknowledged the same base (the bytes are the same).
func (h *Host[S, I]) code(f, base rollnet.Frame) []byte {
	if b, ok := h.coded.find(base); ok {
		return b
	}
	k := int(f) % sentLen
	n := len(h.usedB)
	in, st := h.data[:n], h.data[n:]
	if base == rollnet.NoFrame {
		copy(in, h.usedB)
		copy(st, rollback.BytesOf(&h.sent[k]))
	} else {
		j := int(base) % sentLen
		xorInto(in, h.usedB, h.sentIn[j*n:])
		xorInto(st, rollback.BytesOf(&h.sent[k]), rollback.BytesOf(&h.sent[j]))
	}
	m := wire.StateBody{Frame: int32(f), Base: int32(base), Data: h.data}
	if h.checked(f, base) {
		m.Checked, m.Checksum = true, h.sums[k]
	}
	return h.coded.put(base, m)
}

// sendFragment sends fragment i of sb to c and returns its size.
func (h *Host[S, I]) sendFragment(c *hostClient[I], sb *sentBody, i int) int {
	m := wire.StateFragment{Seq: c.l.Seq(), Msg: sb.msg, Index: uint8(i), Count: sb.count, Chunk: sb.chunk(i)}
	h.out = m.Append(h.out[:0])
	h.send(c)
	return len(h.out)
}

// sendWelcomes sends the copies of each connection's one answer.
func (h *Host[S, I]) sendWelcomes() {
	for _, c := range h.clients {
		if c.welcomes == 0 || c.state == clientFree || h.t-c.welcomeAt < h.s.spacing {
			continue
		}
		c.welcomes--
		c.welcomeAt = h.t
		if c.reject {
			r := wire.Welcome{Seq: c.l.Seq(), Kind: wire.WelcomeReject, Nonce: c.nonce}
			h.out = r.Append(h.out[:0])
			h.send(c)
		}
		w := wire.Welcome{Seq: c.l.Seq(), Kind: c.kind, Nonce: c.nonce, Token: c.token,
			First: uint8(c.first), Slots: uint8(h.s.perClient), Frame: int32(h.core.Frame())}
		h.out = w.Append(h.out[:0])
		h.send(c)
	}
}

func (h *Host[S, I]) send(c *hostClient[I]) {
	h.e.Send(c.l, h.out)
}
