package authority

import (
	"bytes"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
)

// ClientStats are a Client's own statistics (Client.Stats); a host's view
// of each of its clients is HostClientStats, its own HostStats.
type ClientStats struct {
	// Synchronized says the client has its slots and a host state;
	// Admitted that the host answered its Hello with slots (a client
	// admitted and not synchronized waits for the host's first state:
	// a host holding its lobby, HostConfig.WaitForPlayers, sends none).
	Synchronized, Admitted bool
	First, Slots           int
	// RTT is the link's smoothed round-trip time (before its first
	// measure, the round trip of the Hello and its answer).
	RTT time.Duration
	// Rate is the host's advised change of the tick rate (0.05: 5% fast;
	// Update runs the fixed step at 1+Rate, and a game that drives
	// AdvanceFrame itself multiplies its frame time by 1+Rate before its
	// fixed-step accumulator, so no step is skipped or doubled); Depth how
	// early the host says the client's inputs arrive, in frames.
	Rate, Depth float64
	// Lead is how many frames the predicted present ran ahead of the
	// newest host state received, a mean over the steps of Update since
	// the client was made: what a press costs before the host's answer to
	// it can be played (one round trip, the input's margin on the host,
	// the host's state interval). Held is how many host states the paced
	// queue held after its tick, the same mean: the playout's depth, what
	// it keeps against a host that stalls. RenderDelay is the render
	// clock's delay now, in frames behind the newest host state it
	// observed.
	Lead, Held, RenderDelay float64
	// Matches counts host states equal to the client's own prediction of
	// their frame, Mismatches those that were not (the client took the
	// host's and re-simulated ResimulatedFrames frames to the present).
	Matches, Mismatches, ResimulatedFrames uint64
	// StatesApplied counts host states received whole and taken (every
	// checkedEvery-th verified by its checksum, the others by the next
	// verified one coded against them); StatesDropped those older than
	// the newest, or whose baseline was gone (one that came before its
	// baseline and was taken when it came is not counted); StatesUnverified the times
	// a checked state coded against states taken unverified did not
	// match (they were dropped: a forged state, or a bug); Reanchors the times the client's present was moved to the
	// host's (a first state, or a host state outside the client's window).
	StatesApplied, StatesDropped, StatesUnverified, Reanchors uint64
	// StatesVerified counts the states taken whose checksum was checked
	// and matched (every checkedEvery-th).
	StatesVerified uint64
	// NacksSent counts repair requests, FragmentsRepaired fragments that
	// arrived for a state after its Nack.
	NacksSent, FragmentsRepaired uint64
	// Malformed counts packets from the host that did not decode or did
	// not verify (a wrong checksum); they are in Link.Malformed too.
	Malformed uint64
	// Rejected says the host rejected the last resume (a fresh world
	// followed); Resumed that it accepted it (the same slots).
	Rejected, Rejoined bool
	// Link is the connection's link statistics: round-trip time, bytes
	// per second each way, totals.
	Link rollnet.PeerStats
	// The host's absence policy (HostConfig.Absence): Awaiting counts
	// the players the host holds the match for, Awaited is the first
	// (-1 none), HoldAt the frame every peer stops at (NoFrame: no
	// hold), HeldFor how long the hold has lasted; Forfeited says the
	// match stopped there for good. HoldTicks counts the ticks this
	// client waited at a hold (not the network's doing); LeaseWaits those
	// it waited at its lease with no hold announced: the host's states
	// were late (network trouble).
	Awaiting, Awaited     int
	HoldAt                rollnet.Frame
	HeldFor               time.Duration
	Forfeited             bool
	HoldTicks, LeaseWaits uint64
}

// Client predicts the world from the host's states and its own inputs. See
// the package documentation.
type Client[S any, I comparable] struct {
	host      transport.Peer
	net       link.Settings
	e         link.Endpoint
	l         *link.Link
	sim       func(s *S, inputs []I, frame rollnet.Frame)
	t         int64
	tick      int64
	players   int
	inputSize int
	stateSize int
	hash      uint64
	settings  wire.AuthSettings
	capacity  int
	maxSend   int
	target    int
	retry     int64
	nackAfter int64
	period    int64

	ring    *rollback.Ring[S]
	frame   rollnet.Frame // next frame to simulate
	started bool
	firstIn rollnet.Frame // first frame of own inputs held

	// connection
	nonce    uint64
	helloAt  int64
	helloSeq bool // a Hello went out on this connection
	token    rollnet.RejoinToken
	held     bool             // token is the host's: given with the slots, or accepted
	resume   bool             // the Hello carries token
	answer   wire.WelcomeKind // 0 until the connection's answer
	refused  error            // the host refused the settings: every AdvanceFrame's error
	first    int
	slots    int
	rtt      int64

	own     []I // [frame%capacity*players + slot - first]... see ownAt
	pending []I // per slot: the input for the next frame
	others  []I // every player's input at the newest host state
	args    []I

	// host states
	base       []S    // delta baselines, slot f%baselineWindow
	baseIn     []byte // every player's input at each, [k*len(bodyIn):]
	baseTags   []rollnet.Frame
	baseOf     []rollnet.Frame // each baseline's own base (NoFrame: a full state)
	sure       []bool          // each baseline verified: its checksum, or a verified state's chain
	wantFull   bool            // a full state is due: none taken on this connection, or no baseline left
	newestHost rollnet.Frame
	checked    rollnet.Frame // the newest state checked by its checksum
	checkedSum uint32
	reconciled rollnet.Frame
	hostAck    rollnet.Frame // newest own input frame the host applied
	asm        reassembler
	body       wire.StateBody
	bodyIn     int    // the inputs' bytes at the head of bodyData
	bodyData   []byte // a body's inputs then state
	early      [earlyLen]earlyState
	earlyN     uint64 // states taken after waiting for their base (tests)

	out      []byte
	outIn    []byte
	rate     int32
	depth    int32
	view     presentation[S]
	fixed    bool // the last AdvanceFrame (or Update) corrected a misprediction
	updating bool // inside Update: its steps share one fixed flag
	stats    ClientStats
	done     bool

	// Lag compensation (NewClientLagComp): the sight the next step's
	// inputs carry (what was drawn last), each own frame's, by
	// frame%capacity, the view handed to simulate, and a message's sights.
	lagcomp  bool
	stamp    claim
	ownSight []claim
	sights   Sights[S]
	outSight []byte

	// Absence (client_absence.go): the furthest lease the host sent
	// (leased: one came), and the hold it announced.
	leased  bool
	until   rollnet.Frame
	hold    clientHold
	stepped bool // the last AdvanceFrame simulated a frame
}

// NewClient returns a client of cfg.Host over tr that advances S with
// simulate (the host's simulation, deterministic). It says Hello on its
// first AdvanceFrame.
func NewClient[S any, I comparable](cfg ClientConfig, tr transport.Transport, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Client[S, I], error) {
	if tr == nil || simulate == nil || cfg.Host == "" {
		return nil, fmt.Errorf("%w: nil transport or simulate, or no host", errConfig)
	}
	return newClient(cfg, tr, simulate, false)
}

// NewClientLagComp is NewClient for a game with lag compensation (see
// NewHostLagComp): each input carries what the client drew when it was
// made (the sight Update stamps at the end of each call, or DrawnAt), and
// simulate is also given its own players' sights (Sights.Of), so it
// predicts a hit as the host will judge it whenever it saw the host's
// world; the host's state corrects it otherwise.
func NewClientLagComp[S any, I comparable](cfg ClientConfig, tr transport.Transport, simulate func(s *S, inputs []I, frame rollnet.Frame, seen *Sights[S])) (*Client[S, I], error) {
	if tr == nil || simulate == nil || cfg.Host == "" {
		return nil, fmt.Errorf("%w: nil transport or simulate, or no host", errConfig)
	}
	var c *Client[S, I]
	c, err := newClient(cfg, tr, func(s *S, inputs []I, frame rollnet.Frame) {
		c.sights.frame = frame
		simulate(s, inputs, frame, &c.sights)
	}, true)
	return c, err
}

func newClient[S any, I comparable](cfg ClientConfig, tr transport.Transport, simulate func(s *S, inputs []I, frame rollnet.Frame), lagcomp bool) (*Client[S, I], error) {
	stateSize, inputSize, err := checkTypes[S, I]()
	if err != nil {
		return nil, err
	}
	net, err := resolveNet(cfg.Net)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errConfig, err)
	}
	c := &Client[S, I]{
		host: cfg.Host, net: net, sim: simulate,
		players: cfg.Players, inputSize: inputSize, stateSize: stateSize,
		capacity: or(cfg.Capacity, 128), maxSend: or(cfg.MaxSend, wire.MaxFrames), target: or(cfg.TargetDepth, 2),
		retry: net.SyncRetry, nackAfter: int64(or(cfg.NackAfter, 2)),
		token: cfg.Rejoin, resume: cfg.Rejoin != rollnet.RejoinToken{},
	}
	switch {
	case c.players < 1 || c.players > maxHostPlayers:
		return nil, fmt.Errorf("%w: Players %d not in [1, %d]", errConfig, cfg.Players, maxHostPlayers)
	case c.maxSend < 1 || c.maxSend > wire.MaxFrames || c.maxSend > c.capacity:
		return nil, fmt.Errorf("%w: MaxSend %d not in [1, min(Capacity, %d)]", errConfig, cfg.MaxSend, wire.MaxFrames)
	case c.target < 0 || c.nackAfter < 1:
		return nil, fmt.Errorf("%w: negative TargetDepth or NackAfter", errConfig)
	}
	c.period = int64(time.Second) / int64(net.FrameRate)
	if c.ring, err = rollback.New[S](c.capacity); err != nil {
		return nil, fmt.Errorf("%w: Capacity: %w", errConfig, err)
	}
	c.settings = authSettings(c.players, stateSize, inputSize, &net)
	c.hash = settingsHash(c.settings)
	if c.view, err = newPresentation[S](cfg.Playout, time.Duration(c.period)); err != nil {
		return nil, err
	}
	if err := c.dial(tr); err != nil {
		return nil, err
	}
	c.own = make([]I, c.capacity*c.players)
	c.pending = make([]I, c.players)
	c.others = make([]I, c.players)
	c.args = make([]I, c.players)
	c.base = make([]S, baselineWindow)
	c.baseTags = make([]rollnet.Frame, baselineWindow)
	c.baseOf = make([]rollnet.Frame, baselineWindow)
	c.sure = make([]bool, baselineWindow)
	c.asm = newReassembler(wire.MaxStateBody)
	c.bodyIn = c.players * inputSize
	c.baseIn = make([]byte, baselineWindow*c.bodyIn)
	c.bodyData = make([]byte, c.bodyIn+stateSize)
	for i := range c.early {
		c.early[i].data = make([]byte, len(c.bodyData))
	}
	c.out = make([]byte, 0, wire.MaxPacket)
	c.outIn = make([]byte, 0, wire.MaxFrames*c.players*inputSize)
	c.stamp = noClaim
	if lagcomp {
		c.lagcomp = true
		c.sights.src = c
		c.ownSight = make([]claim, c.capacity)
		c.outSight = make([]byte, 0, wire.MaxFrames*wire.SightLen)
	}
	c.forget()
	return c, nil
}

// forget drops the world: the next host state anchors a fresh one.
func (c *Client[S, I]) forget() {
	c.started, c.wantFull = false, true
	c.leased, c.until, c.hold = false, rollnet.NoFrame, clientHold{stop: rollnet.NoFrame}
	c.newestHost, c.reconciled, c.hostAck = rollnet.NoFrame, rollnet.NoFrame, rollnet.NoFrame
	c.checked = rollnet.NoFrame
	for i := range c.baseTags {
		c.baseTags[i] = rollnet.NoFrame
	}
	for i := range c.early {
		c.letGo(&c.early[i])
	}
	if c.view.q != nil {
		c.view.reset()
	}
	c.asm = reassembler{slots: c.asm.slots}
	for i := range c.asm.slots {
		c.asm.slots[i].active = false
	}
}

// dial makes the link to the host over tr; it runs once the host answers
// the Hello (this mode's handshake).
func (c *Client[S, I]) dial(tr transport.Transport) error {
	c.e = link.NewEndpoint(tr, c.net, protocol)
	c.l = link.New(c.host)
	if err := c.e.AddLink(c.l); err != nil {
		return fmt.Errorf("%w: %w", errConfig, err)
	}
	return nil
}

// Rejoin continues over a new transport (the old one was cut): the
// client says Hello with its rejoin token. RESUME_ACCEPT continues the
// world (the inputs predicted meanwhile are sent and the host applies them
// late); RESUME_REJECT and the INITIAL_SYNC after it start a fresh one.
func (c *Client[S, I]) Rejoin(tr transport.Transport) error {
	if tr == nil {
		return fmt.Errorf("%w: nil transport", errConfig)
	}
	if err := c.dial(tr); err != nil {
		return err
	}
	c.resume = c.answer == wire.WelcomeSync || c.answer == wire.WelcomeResume
	c.answer, c.helloSeq = 0, false
	return nil
}

// RejoinToken is the client's rejoin token and whether it holds one: the host's
// with the slots, or ClientConfig.Rejoin once the host accepted it. Keep
// it to start a new process with (ClientConfig.Rejoin) within the host's
// grace window.
func (c *Client[S, I]) RejoinToken() (rollnet.RejoinToken, bool) { return c.token, c.held }

// AddLocalInput sets the input of one of the client's slots (an index
// into them, 0..Slots-1) for the next AdvanceFrame and, until set again, the
// ones after.
func (c *Client[S, I]) AddLocalInput(slot int, in I) error {
	if !c.started {
		return ErrNotReady
	}
	if uint(slot) >= uint(c.slots) {
		return fmt.Errorf("%w: slot %d (the client holds %d)", ErrSlot, slot, c.slots)
	}
	c.pending[slot] = in
	return nil
}

// Events appends every event since the last call to dst, oldest first,
// and returns it (network interrupted or resumed, disconnected: then
// Rejoin over a new transport resumes). With a dst of enough capacity it
// allocates nothing. The client holds at most 256 undrained events,
// dropping the oldest beyond that: drain every tick.
func (c *Client[S, I]) Events(dst []rollnet.Event) []rollnet.Event { return c.e.Events(dst) }

// Corrected says the last AdvanceFrame (any step of the last Update) took a
// host state that differed from
// the prediction and re-simulated: what the game drew of its predicted
// entities may jump. Hide the jump in what is drawn, never in the state:
// feed the difference to a playout.Smoother (a fraction decays per step),
// or snap for causes that should (a spawn, a teleport).
func (c *Client[S, I]) Corrected() bool { return c.fixed }

// Synchronized says the client holds its slots and a host state.
func (c *Client[S, I]) Synchronized() bool { return c.started }

// State is the predicted present: the state after Frame()-1.
func (c *Client[S, I]) State() *S { return c.ring.Live() }

// Frame is the next frame AdvanceFrame simulates.
func (c *Client[S, I]) Frame() rollnet.Frame { return c.frame }

// HostState is the newest host state received whole, and its frame
// (NoFrame and nil before the first). The pointer aliases the client's
// storage, valid until the next AdvanceFrame.
func (c *Client[S, I]) HostState() (*S, rollnet.Frame) {
	if c.newestHost == rollnet.NoFrame {
		return nil, rollnet.NoFrame
	}
	return &c.base[int(c.newestHost)%baselineWindow], c.newestHost
}

// ConfirmedChecksum is the newest host state this client checked by its
// checksum (the host's checksum equal to the state's as decoded): its
// frame and checksum, the same as the host's ChecksumAt of that frame;
// ok is false before the first. A game logs agreement from it the same
// way in every mode.
func (c *Client[S, I]) ConfirmedChecksum() (frame rollnet.Frame, sum uint32, ok bool) {
	if c.checked == rollnet.NoFrame {
		return 0, 0, false
	}
	return c.checked, c.checkedSum, true
}

// ChecksumAt is the checksum of the host's state at frame while the
// client holds it verified (checked by its checksum, or the baseline of a
// state that was); ErrOutOfWindow otherwise.
func (c *Client[S, I]) ChecksumAt(frame rollnet.Frame) (uint32, error) {
	k := int(frame) % baselineWindow
	if frame < 0 || c.baseTags[k] != frame || !c.sure[k] {
		return 0, fmt.Errorf("%w: frame %d (a client holds the newest %d host states, the verified ones checked)", ErrOutOfWindow, frame, baselineWindow)
	}
	return rollback.Checksum(rollback.BytesOf(&c.base[k])), nil
}

// timeScale is the rate to run the client's fixed step at: 1 plus the
// host's advice (ClientStats.Rate).
func (c *Client[S, I]) timeScale() float64 { return 1 + float64(c.rate)/1000 }

// Stats returns the client's statistics.
func (c *Client[S, I]) Stats() ClientStats {
	s := c.stats
	s.Synchronized, s.First, s.Slots = c.started, c.first, c.slots
	s.Admitted = c.answer == wire.WelcomeSync || c.answer == wire.WelcomeResume
	s.Link = c.l.Stats()
	s.RTT = s.Link.RTT
	if s.RTT == 0 {
		s.RTT = time.Duration(c.rtt)
	}
	s.Rate, s.Depth = float64(c.rate)/1000, float64(c.depth)/10
	c.holdStats(&s)
	p := &c.view
	s.RenderDelay = p.clk.Delay()
	if p.steps > 0 {
		s.Lead = float64(p.leadSum) / float64(p.steps)
		s.Held = float64(p.heldSum) / float64(p.steps)
	}
	return s
}

// Close sends the host a disconnect notice and stops the client; it does
// not close the transport.
func (c *Client[S, I]) Close() error {
	if !c.done {
		c.e.Close()
	}
	c.done = true
	return nil
}

// AdvanceFrame runs one tick: reads the host's packets, reconciles the newest
// host state (at most one re-simulation), simulates the next frame with
// the client's inputs and the others' as the host last reported them, and
// sends the host every input it has not applied. Before the first host
// state it only says Hello. It allocates nothing at steady state.
func (c *Client[S, I]) AdvanceFrame() error {
	if c.done {
		return errClosed
	}
	if c.refused != nil {
		return c.refused
	}
	c.e.Clock()
	c.t = c.e.Time()
	c.tick++
	c.stepped = false
	if !c.updating {
		c.fixed = false
	}
	c.receive()
	if c.l.State() == link.Running {
		c.e.Tick(c.l)
	}
	if c.refused != nil {
		return c.refused
	}
	ready := c.answer == wire.WelcomeSync || c.answer == wire.WelcomeResume
	if !ready && (!c.helloSeq || c.t-c.helloAt >= c.retry) {
		c.hello()
	}
	switch {
	case !c.started && (!ready || c.newestHost == rollnet.NoFrame):
		if ready {
			// Admitted, no state yet: a host holding its lobby sends
			// none until its players are there; the link is kept alive
			// (and its round trip measured) meanwhile.
			c.sendNacks()
			c.e.KeepAlive(c.l, 0)
		}
		return nil
	case !c.started:
		c.anchor(c.newestHost)
	case ready && c.newestHost > c.reconciled:
		c.reconcile(c.newestHost)
	}
	if c.stepped = c.mayStep(); c.stepped {
		// Resumed after a hold, the host's states from the stop come a
		// round trip after the present moves: the playout waits for the
		// first rather than coast (it would count it late).
		if c.view.applied = c.hold.stop == rollnet.NoFrame || c.newestHost >= c.hold.stop || c.view.q.Len() > 0; c.view.applied {
			c.view.tick()
		}
		c.step() // while a resume waits for its answer, the world goes on predicted
	} else {
		c.waited()
		// The host states before the stop still arrive (the client ran
		// ahead of them): they play out paced as ever, and once none is
		// left the playout waits, coasting nothing (a state that came to
		// a coasted tick would count as late, a deep queue would jump).
		if c.view.applied = c.view.q.Len() > 0; c.view.applied {
			c.view.tick()
		}
	}
	if ready {
		c.sendInputs()
		c.sendNacks()
		c.e.KeepAlive(c.l, 0)
	}
	return nil
}

func (c *Client[S, I]) hello() {
	if !c.helloSeq {
		c.nonce = c.net.Rand() | 1
		c.helloSeq = true
	}
	c.helloAt = c.t
	m := wire.Hello{Seq: c.l.Seq(), Settings: c.hash, Nonce: c.nonce, Resume: c.resume, Token: c.token.Secret, Protocol: protocol}
	c.out = m.Append(c.out[:0])
	c.send()
}

func (c *Client[S, I]) send() { c.e.Send(c.l, c.out) }

// receive reads the host's packets: the link's own messages to the link
// once it runs, Welcomes and state fragments here.
func (c *Client[S, I]) receive() {
	for {
		l, typ, b, ok := c.e.Receive()
		if !ok {
			return
		}
		if l.State() == link.Running && c.e.HandleCommon(l, typ, b) {
			continue
		}
		switch typ {
		case wire.TypeWelcome:
			c.welcome(b)
		case wire.TypeStateFragment:
			c.fragment(b)
		case wire.TypeQualityReport, wire.TypeQualityReply, wire.TypeKeepAlive, wire.TypeDisconnect:
			// The link's, before the Welcome that starts it (reordered).
		default:
			c.malformed()
		}
	}
}

func (c *Client[S, I]) malformed() {
	c.stats.Malformed++
	c.l.Malformed()
}

// welcome takes the connection's answer: the first wins; copies, and a
// reject after an acceptance, are ignored. A reject is followed by an
// INITIAL_SYNC, which starts a fresh world.
func (c *Client[S, I]) welcome(b []byte) {
	m, _, err := wire.ParseWelcome(b)
	if err != nil || int(m.First)+int(m.Slots) > c.players {
		c.malformed()
		return
	}
	if !c.helloSeq || m.Nonce != c.nonce {
		return // stale or forged
	}
	if m.Kind == wire.WelcomeHold {
		if (c.answer == wire.WelcomeSync || c.answer == wire.WelcomeResume) && c.e.Accept(c.l, m.Seq) {
			c.takeHold(&m)
		}
		return
	}
	if m.Kind == wire.WelcomeRefused {
		// Our nonce: the host's answer to this connection's Hello. Its
		// settings are not ours, and will not become ours: stop here.
		// (A host that accepted us does not refuse later: a refusal
		// after the answer is forged or stale.)
		if c.answer == 0 && m.Host != c.settings {
			c.refused = &SettingsError{Host: hostSettingsOf(m.Host), Client: hostSettingsOf(c.settings)}
		}
		return
	}
	switch {
	case c.answer == wire.WelcomeSync || c.answer == wire.WelcomeResume:
		return
	case m.Kind == wire.WelcomeReject:
		if c.answer == 0 {
			c.answer = wire.WelcomeReject
			c.stats.Rejected, c.stats.Rejoined, c.held = true, false, false
			c.forget()
		}
		return
	case m.Kind == wire.WelcomeResume && (c.answer == wire.WelcomeReject || !c.resume):
		return
	}
	c.rtt = c.t - c.helloAt
	// It echoes our nonce: it comes from the host, and anchors the
	// connection's sequence numbers (on a new link, the first accepted
	// packet does).
	c.e.Accept(c.l, m.Seq)
	if c.l.State() != link.Running {
		c.l.MarkSynchronized()
		c.e.Synced(c.l)
	}
	switch {
	case m.Kind == wire.WelcomeSync:
		c.forget()
		// A host answers a Hello with a token INITIAL_SYNC only when it
		// rejects the token: rejected, even if the RESUME_REJECT before
		// it was lost or is still on its way.
		c.stats.Rejected, c.stats.Rejoined = c.resume, false
		c.first, c.slots, c.token = int(m.First), int(m.Slots), rollnet.RejoinToken{Secret: m.Token}
		clear(c.pending)
	case !c.started:
		// Resumed without a world to go on with (a process started
		// with ClientConfig.Rejoin, or cut before its first state): the
		// slots as the Welcome says, and the host's next state, full
		// since this connection acknowledged none, starts the world.
		c.forget()
		c.stats.Rejected, c.stats.Rejoined = false, true
		c.first, c.slots = int(m.First), int(m.Slots)
		clear(c.pending)
	default:
		c.stats.Rejected, c.stats.Rejoined = false, true
	}
	c.held, c.wantFull = true, true // the host codes this connection's first state whole
	c.answer = m.Kind
}

// fragment takes one piece of a host state; a completed one is decoded.
func (c *Client[S, I]) fragment(b []byte) {
	if c.answer != wire.WelcomeSync && c.answer != wire.WelcomeResume {
		return // no world to put it in yet
	}
	f, _, err := wire.ParseStateFragment(b)
	if err != nil {
		c.malformed()
		return
	}
	if !c.e.Accept(c.l, f.Seq) {
		c.stats.Malformed++ // far from the host's sequence numbers: replayed or forged
		return
	}
	if f.Count == 1 {
		// A body in one packet: nothing to reassemble or repair; its
		// frame orders it (decode drops one older than the newest).
		c.decode(f.Chunk)
		return
	}
	for i := range c.asm.slots {
		if s := &c.asm.slots[i]; s.active && s.msg == f.Msg && s.nacks > 0 && s.have&(1<<f.Index) == 0 {
			c.stats.FragmentsRepaired++
		}
	}
	a, bad := c.asm.add(f, c.tick)
	if bad {
		c.malformed()
		return
	}
	if a == nil {
		return
	}
	// Only a body that verified (a state taken) moves the reassembler on:
	// a forged one that got through, never verified, cannot make the
	// host's real bodies look old.
	if c.decode(a.body()) {
		c.asm.finish(a)
	} else {
		a.active = false
	}
}

// decode verifies a whole state body and keeps the state as a baseline;
// it reports whether the state was taken. A state whose base has not come
// yet (reordered on the way) waits among the early states, and is taken
// when its base is.
func (c *Client[S, I]) decode(body []byte) bool {
	m := &c.body
	near := c.newestHost
	if near == rollnet.NoFrame {
		near = c.frame // no state to decode a delta against: any frame will do
	}
	if _, err := wire.ParseStateBody(body, m, c.bodyData, int32(near)); err != nil {
		c.malformed()
		return false
	}
	if !c.take(m) {
		return false
	}
	c.takeEarly()
	return true
}

// earlyLen is how many states a client keeps that came before their base
// (reordered): a state of a chain (Host.base) is coded against the one
// sent before it, and one that overtakes it would otherwise be dropped,
// with every state coded against it, until the host gives the chain up.
// Each holds a body's Data: the state and every player's input.
const earlyLen = 4

// earlyState is a state body (m, its Data in data) kept until its base
// comes.
type earlyState struct {
	held bool
	m    wire.StateBody
	data []byte
}

// take verifies the state body m and keeps its state as a baseline; it
// reports whether the state was taken. One whose base has not come, but
// may, is kept among the early states (and not taken yet).
func (c *Client[S, I]) take(m *wire.StateBody) bool {
	f := rollnet.Frame(m.Frame)
	if f <= c.newestHost {
		c.stats.StatesDropped++
		return false
	}
	k := int(f) % baselineWindow
	n := c.bodyIn
	dst, in := rollback.BytesOf(&c.base[k]), c.baseIn[k*n:(k+1)*n]
	bk := -1
	if m.Base == -1 && !c.wantFull && c.newestHost != rollnet.NoFrame && f-c.newestHost+c.ackLag() < baselineWindow {
		// A full state the host had no cause to send: this connection
		// acknowledged a state it still keeps (the host hears an
		// acknowledgement a round trip late). Forged (its checksum is
		// its own), or a copy long delayed: taken, the host's next
		// states, coded against the state acknowledged, would be wrong.
		c.stats.StatesDropped++
		return false
	}
	if m.Base == -1 {
		c.wantFull = false
		copy(in, m.Data[:n])
		copy(dst, m.Data[n:])
	} else {
		bk = int(m.Base) % baselineWindow
		if c.baseTags[bk] != rollnet.Frame(m.Base) || bk == k {
			if rollnet.Frame(m.Base) <= c.newestHost || bk == k || !c.keepEarly(m) {
				c.stats.StatesDropped++ // (a kept one is counted if it is let go)
			}
			return false
		}
		xorInto(in, m.Data[:n], c.baseIn[bk*n:(bk+1)*n])
		xorInto(dst, m.Data[n:], rollback.BytesOf(&c.base[bk]))
	}
	c.baseTags[k] = rollnet.NoFrame
	if m.Checked && rollback.Checksum(dst) != m.Checksum {
		c.malformed()
		if bk >= 0 {
			// Its baseline, or one before it taken unverified, may be
			// what was wrong (forged): none of them is coded against
			// again.
			c.baseTags[bk] = rollnet.NoFrame
			c.dropUnsure()
		}
		return false
	}
	c.baseTags[k], c.baseOf[k], c.sure[k] = f, rollnet.Frame(m.Base), false
	if m.Checked {
		c.stats.StatesVerified++
		c.verify(f)
		c.checked, c.checkedSum = f, m.Checksum
	}
	c.newestHost = f
	c.stats.StatesApplied++
	c.view.push(f, &c.base[k], c.t)
	for p := range c.others {
		copy(rollback.BytesOf(&c.others[p]), in[p*c.inputSize:])
	}
	// The newest state's, not the greatest ever: the host's count only
	// grows, and a forged state that got through (claiming the host has
	// inputs it never had, so the client would stop sending them) is
	// healed by the next real one. It rides on the checked states only.
	if m.Checked {
		c.hostAck = rollnet.Frame(m.InputAck)
	}
	if m.Advice {
		c.rate, c.depth = m.Rate, m.Depth
		if m.Lease > 0 {
			c.leased, c.until = true, max(c.until, f+rollnet.Frame(m.Lease))
		}
	}
	return true
}

// keepEarly keeps m (its Data copied) among the early states: in a free
// slot, or in place of the newest kept if m is older (the older come due
// first), and reports whether it did. A state further ahead than the
// baselines reach is not kept.
func (c *Client[S, I]) keepEarly(m *wire.StateBody) bool {
	if c.newestHost == rollnet.NoFrame || rollnet.Frame(m.Frame)-c.newestHost >= baselineWindow {
		return false
	}
	slot := -1
	for i := range c.early {
		e := &c.early[i]
		if e.held && rollnet.Frame(e.m.Frame) <= c.newestHost {
			c.letGo(e) // no newer than the newest taken: of no use
		}
		switch {
		case e.held && e.m.Frame == m.Frame:
			return false // a copy: the first is as good
		case !e.held:
			if slot < 0 || c.early[slot].held {
				slot = i
			}
		case slot < 0 || (c.early[slot].held && e.m.Frame > c.early[slot].m.Frame):
			slot = i
		}
	}
	e := &c.early[slot]
	if e.held && e.m.Frame < m.Frame {
		return false
	}
	c.letGo(e) // the newest kept makes room for an older one
	e.held, e.m = true, *m
	e.m.Data = e.data
	copy(e.data, m.Data)
	return true
}

// letGo drops an early state, if e holds one: counted in StatesDropped
// then, not when it came.
func (c *Client[S, I]) letGo(e *earlyState) {
	if e.held {
		e.held = false
		c.stats.StatesDropped++
	}
}

// takeEarly takes the early states whose base is now held, oldest first,
// while there are any (one taken may be the base of another), and lets go
// of those no newer than the newest state taken.
func (c *Client[S, I]) takeEarly() {
	for {
		next := -1
		for i := range c.early {
			e := &c.early[i]
			if !e.held {
				continue
			}
			if rollnet.Frame(e.m.Frame) <= c.newestHost {
				c.letGo(e)
				continue
			}
			if bk := int(e.m.Base) % baselineWindow; c.baseTags[bk] == rollnet.Frame(e.m.Base) &&
				(next < 0 || e.m.Frame < c.early[next].m.Frame) {
				next = i
			}
		}
		if next < 0 {
			return
		}
		e := &c.early[next]
		e.held = false
		if !c.take(&e.m) {
			return
		}
		c.earlyN++
	}
}

// ackLag is how many frames older than the newest state the client took
// the acknowledgement the host codes against may be: a round trip, and
// two frames of slack.
func (c *Client[S, I]) ackLag() rollnet.Frame {
	rtt := max(c.rtt, c.l.RTT())
	return rollnet.Frame((rtt+c.period-1)/c.period) + 2
}

// verify marks state f verified, and the baselines it was coded against,
// back to one already verified: a checksum that matches says the state
// is the host's, and so was its baseline (a wrong one would have made it
// wrong).
func (c *Client[S, I]) verify(f rollnet.Frame) {
	for range baselineWindow {
		k := int(f) % baselineWindow
		if f < 0 || c.baseTags[k] != f || c.sure[k] {
			return
		}
		c.sure[k] = true
		f = c.baseOf[k]
	}
}

// dropUnsure drops every baseline not verified, and goes back to the
// newest verified one (the acknowledgement the host codes against next):
// a checked state coded against one of them did not match, so one of
// them was not the host's.
func (c *Client[S, I]) dropUnsure() {
	c.stats.StatesUnverified++
	newest := rollnet.NoFrame
	for k, f := range c.baseTags {
		switch {
		case f == rollnet.NoFrame:
		case !c.sure[k]:
			c.baseTags[k] = rollnet.NoFrame
		case f > newest:
			newest = f
		}
	}
	c.newestHost = newest
	c.wantFull = newest == rollnet.NoFrame
}

// lead is how many frames past the host's newest state the client's
// present should be: one round trip, plus the target depth.
func (c *Client[S, I]) lead() int {
	rt := int((c.rtt + c.period - 1) / c.period)
	return min(rt+c.target+1, c.capacity/2)
}

// anchor makes host state f the client's past and predicts forward to the
// present.
func (c *Client[S, I]) anchor(f rollnet.Frame) {
	*c.ring.Live() = c.base[int(f)%baselineWindow]
	c.ring.Reset()
	c.ring.Commit()
	c.frame = f + 1
	c.reconciled = f
	c.started = true
	c.firstIn = c.frame
	c.stats.Reanchors++
	for range c.lead() - 1 {
		if !c.mayStep() {
			break
		}
		c.step()
	}
}

// reconcile compares host state f with the client's own prediction of f:
// equal costs nothing; different restores the host's and re-simulates to
// the present.
func (c *Client[S, I]) reconcile(f rollnet.Frame) {
	c.reconciled = f
	host := &c.base[int(f)%baselineWindow]
	n := int(c.frame - 1 - f)
	if n < 0 || n >= c.ring.Depth() {
		c.anchor(f) // the host is past the client's present, or far behind it
		return
	}
	mine, _ := c.ring.Peek(n)
	if bytes.Equal(rollback.BytesOf(mine), rollback.BytesOf(host)) {
		c.stats.Matches++
		return
	}
	c.stats.Mismatches++
	c.fixed = true
	_ = c.ring.Rollback(n)
	*c.ring.Live() = *host
	*mine = *host
	for g := f + 1; g < c.frame; g++ {
		c.simulate(g)
	}
	c.stats.ResimulatedFrames += uint64(n)
}

// step simulates the next frame with the pending inputs.
func (c *Client[S, I]) step() {
	o := int(c.frame) % c.capacity * c.players
	copy(c.own[o+c.first:o+c.first+c.slots], c.pending[:c.slots])
	if c.lagcomp {
		c.ownSight[int(c.frame)%c.capacity] = c.stampFor(c.frame)
	}
	c.simulate(c.frame)
	c.frame++
}

// simulate simulates frame g on the live state, own inputs from the
// history, the others' as the host last reported, and commits.
func (c *Client[S, I]) simulate(g rollnet.Frame) {
	copy(c.args, c.others)
	o := int(g) % c.capacity * c.players
	copy(c.args[c.first:c.first+c.slots], c.own[o+c.first:o+c.first+c.slots])
	c.sim(c.ring.Live(), c.args, g)
	c.ring.Commit()
}

// sendInputs sends the own inputs the host has not applied, oldest first
// (at most MaxSend frames, fewer if they would not fit a packet), or a
// frame marker, with the newest state received as the acknowledgement. A
// backlog (after a cut) goes oldest first so none is skipped.
func (c *Client[S, I]) sendInputs() {
	last := c.frame - 1
	from := max(c.hostAck+1, c.firstIn, last-rollnet.Frame(c.capacity)+1)
	m := wire.AuthInput{Seq: c.l.Seq(), Ack: int32(c.newestHost), Start: int32(last), Slots: c.slots, Size: c.inputSize}
	for n := min(int(last-from+1), c.maxSend); n > 0; n /= 2 {
		buf := c.outIn[:0]
		for g := from; g < from+rollnet.Frame(n); g++ {
			o := int(g) % c.capacity * c.players
			for j := c.first; j < c.first+c.slots; j++ {
				buf = append(buf, rollback.BytesOf(&c.own[o+j])...)
			}
		}
		m.Start, m.Frames, m.Inputs = int32(from), n, buf
		if c.lagcomp {
			m.Sights = c.outSight[:0]
			for g := from; g < from+rollnet.Frame(n); g++ {
				m.Sights = wire.AppendSight(m.Sights, sightOfClaim(c.ownSight[int(g)%c.capacity], g))
			}
		}
		if m.Check() == nil {
			break
		}
	}
	c.out = m.Append(c.out[:0])
	if len(c.out) > 0 {
		c.send()
	}
}

// sendNacks asks for the missing fragments of an incomplete state once its
// fragments stopped coming, at most three times per state.
func (c *Client[S, I]) sendNacks() {
	for i := range c.asm.slots {
		a := &c.asm.slots[i]
		if !a.active || a.nacks >= maxNacks || c.tick-a.lastAt < c.nackAfter || c.tick-a.nackAt < c.nackAfter {
			continue
		}
		a.nacks++
		a.nackAt = c.tick
		m := wire.Nack{Seq: c.l.Seq(), Msg: a.msg, Missing: a.missing()}
		c.out = m.Append(c.out[:0])
		c.send()
		c.stats.NacksSent++
	}
}
