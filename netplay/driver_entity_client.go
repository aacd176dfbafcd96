package netplay

import (
	"fmt"
	"math"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
)

// entityHistory is the states of each entity a client keeps for its
// playout: the render delay (3 ticks by default) and a little more.
const entityHistory = 6

// entityClient is an entity match's client: a mirror of the entities
// relevant to it (entity.Client), its own entity predicted from its
// inputs and redone from the host's encoding when they differ, and the
// others decoded at one render time T (a playout clock steered by the
// host's ticks) into its world. Its inputs are steps of a
// playout.Timestep at the rate the host advises (pacing.Advice: a few
// inputs waiting on the host when it needs one, and no more), so a game
// whose ticks come in bursts sends inputs the host takes in order.
type entityClient[S any, I comparable] struct {
	m      *Match[S, I]
	ec     EntityConfig[S, I]
	host   transport.Peer
	mirror *entity.Client
	clock  *pacing.Clock
	ts     *playout.Timestep
	world  S

	slot      int    // -1 until welcomed
	seq       uint32 // inputs taken
	ins       [inputRing]I
	sights    [inputRing]int64 // what was drawn when each input was made (noSight: nothing)
	drawn     int64            // the render time of the last draw, 256ths of a tick (noSight: none)
	predSeq   [inputRing]uint32
	pred      []byte // inputRing encodings of the own entity after each input
	own       int32  // the entity this player controls, -1 for none
	ownGen    uint16
	acked     uint32               // the newest input the host applied
	sentAt    [inputRing]time.Time // when each input was first sent as the newest
	sentSeq   uint32               // the newest input sent
	echoed    uint32               // the newest input the host echoed
	rtt       time.Duration        // smoothed round trip (0 before the first echo)
	lead      uint16               // the host's advice: its inputs waiting (tenths), and the rate (thousandths)
	rate      int16
	cmpTick   uint32 // the host tick of the newest state compared
	pending   entityState
	pendBuf   []byte
	hasPend   bool
	newest    uint32 // the newest host tick heard
	joinAt    time.Time
	heardAt   time.Time
	lastTick  time.Time
	out       []byte
	inputSize int
	started   bool // a state arrived
	again     bool // send the inputs again at the next tick

	compared, agreed, corrections uint64
	malformed, sent, received     uint64
}

func newEntityClient[S any, I comparable](m *Match[S, I], ec EntityConfig[S, I]) driver[S, I] {
	m.gate.mu.Lock()
	m.gate.client = true
	m.gate.mu.Unlock()
	return &entityClient[S, I]{m: m, ec: ec, slot: -1, own: -1, inputSize: inputSize[I](), drawn: noSight}
}

func (d *entityClient[S, I]) mode() Mode              { return ModeClient }
func (d *entityClient[S, I]) greetsAs() greeting.Role { return greeting.RoleClient }
func (d *entityClient[S, I]) awaits() string          { return "the host to announce itself" }
func (d *entityClient[S, I]) built() bool             { return d.mirror != nil }
func (d *entityClient[S, I]) admit(*peer)             {}

// check refuses a P2P room while connecting and a host of other settings.
func (d *entityClient[S, I]) check(pe *peer) error {
	switch pe.h.Role {
	case greeting.RoleClient:
		return nil
	case greeting.RolePlayer, greeting.RoleSpectator, greeting.RoleRejoiner:
		if d.mirror != nil {
			return nil
		}
		return fmt.Errorf("%w: %s %q is %v", ErrP2PRoom, pe.id, pe.h.Name, pe.h.Role)
	}
	return d.m.checkSettings(pe)
}

// connect becomes the client of the room's host once it announced itself.
func (d *entityClient[S, I]) connect() error {
	m, ec := d.m, d.ec
	for _, pe := range m.peers.order {
		if !pe.heard || pe.h.Role != greeting.RoleHost {
			continue
		}
		m.gate.mu.Lock()
		m.gate.host = pe.id
		m.gate.mu.Unlock()
		mirror, err := entity.NewClient(entity.ClientConfig{Capacity: ec.Capacity, Size: ec.Size, History: entityHistory})
		if err != nil {
			return fmt.Errorf("netplay: %w", err)
		}
		clock, err := pacing.NewClock(playout.ClockConfig{Step: time.Second / time.Duration(m.cfg.FrameRate)})
		if err != nil {
			return fmt.Errorf("netplay: %w", err)
		}
		ts, err := playout.NewTimestep(playout.TimestepConfig{Step: time.Second / time.Duration(m.cfg.FrameRate), MaxSteps: clientBurst})
		if err != nil {
			return fmt.Errorf("netplay: %w", err)
		}
		d.host, d.mirror, d.clock, d.ts = pe.id, mirror, clock, ts
		d.pred = make([]byte, inputRing*ec.Size)
		d.pendBuf = make([]byte, ec.Size)
		d.out = make([]byte, 0, transport.MaxDatagram)
		d.heardAt = m.cfg.Now()
		m.names[0] = pe.h.Name
		return m.started(Synchronizing)
	}
	return nil
}

func (d *entityClient[S, I]) tick(in I, now time.Time) error {
	m := d.m
	for {
		n, from, err := m.link.mx.Receive(m.rbuf)
		if err != nil {
			if err != transport.ErrNoPacket {
				return fmt.Errorf("netplay: transport: %w", err)
			}
			break
		}
		if from != d.host {
			continue
		}
		if err := d.receive(m.rbuf[:n], now); err != nil {
			return err
		}
	}
	dt := time.Second / time.Duration(m.cfg.FrameRate)
	if !d.lastTick.IsZero() {
		dt = min(now.Sub(d.lastTick), 250*time.Millisecond)
	}
	d.lastTick = now
	if d.slot < 0 {
		m.st.Phase, m.st.Advanced = Synchronizing, false
		if now.Sub(d.joinAt) >= 100*time.Millisecond {
			d.joinAt = now
			d.out = entityJoin{capacity: uint32(d.ec.Capacity), size: uint32(d.ec.Size), inputSize: uint32(d.inputSize)}.append(d.out[:0])
			d.send()
		}
		if !now.Before(m.deadline) {
			return fmt.Errorf("%w: %v waiting for host %s's welcome", ErrTimeout, m.cfg.Timeout, d.host)
		}
		return nil
	}
	if now.Sub(d.heardAt) > m.cfg.Timeout {
		m.st.Phase, m.st.Ended = Ended, EndHostGone
		m.left(d.host, "the host "+m.nameOf(d.host), entityFrame(d.newest), "")
		return nil
	}
	heard := d.hasPend // a state to acknowledge
	d.reconcile()
	_ = d.ts.SetScale(1 + float64(d.rate)/1000)
	n := d.ts.Advance(dt)
	for range n {
		d.step(in)
	}
	// Sent when there are new inputs or updates to acknowledge, and once
	// more at the next tick after new inputs: a burst's message lost
	// would leave the host without inputs until the next burst.
	if n > 0 || heard || d.again {
		d.sendInputs(now)
	}
	d.again = n > 0
	d.clock.Advance(dt)
	d.draw()
	m.st.Phase, m.st.Advanced = Synchronizing, false
	if d.started {
		m.st.Phase, m.st.Advanced = Running, true
	}
	m.st.Rollbacks, m.st.RTT = int(d.corrections), d.rtt
	m.st.Rebuilds = int(d.mirror.Stats().Divergences)
	return nil
}

// receive handles one datagram from the host.
func (d *entityClient[S, I]) receive(b []byte, now time.Time) error {
	d.received += uint64(len(b))
	if len(b) == 0 {
		d.malformed++
		return nil
	}
	switch b[0] {
	case tagEntityWelcome:
		w, err := parseEntityWelcome(b)
		if err == errVersionMismatch && len(b) == 3 && b[2] == verdictSettings {
			return fmt.Errorf("%w: host %s plays entity protocol version %d, this client %d", ErrSettings, d.host, b[1], entityVersion)
		}
		if err != nil {
			d.malformed++
			return nil
		}
		switch w.verdict {
		case verdictSettings:
			return fmt.Errorf("%w: host %s plays entities of other settings (capacity, size, input size or protocol version)", ErrSettings, d.host)
		case verdictFull:
			return fmt.Errorf("%w: host %s has no free slot", ErrSettings, d.host)
		}
		if d.slot < 0 && int(w.slot) < d.m.cfg.Players {
			d.slot = int(w.slot)
			d.m.seat = d.slot
			d.m.names[d.slot] = d.m.cfg.Name
			d.m.tell("joined the host %s (slot %d)", d.m.nameOf(d.host), d.slot+1)
		}
	case tagEntityState:
		s, err := parseEntityState(b, d.ec.Capacity, d.ec.Size)
		if err != nil {
			d.malformed++
			return nil
		}
		d.heardAt = now
		d.sampleRTT(s, now)
		if len(s.update) > 0 {
			_ = d.mirror.Receive(s.update) // counted by the mirror
		}
		if !d.started || s.tick > d.newest {
			d.started = true
			d.newest = s.tick
			d.lead, d.rate = s.lead, s.rate
			d.clock.Observe(int32(s.tick))
		}
		d.compare(s)
		if d.slot >= 0 && s.input <= d.seq && (!d.hasPend || s.input >= d.pending.input) {
			d.pending = s
			if s.own >= 0 {
				copy(d.pendBuf, s.ownState)
				d.pending.ownState = d.pendBuf
			}
			d.pending.update = nil
			d.hasPend = true
		}
	default:
		d.malformed++
	}
	return nil
}

// sampleRTT takes a round-trip sample from a state that echoes an input
// message newer than the last echoed: the time since that message was
// sent, less the time the host held it. The estimate is smoothed as
// TCP's (an eighth of each sample), from the first sample on.
func (d *entityClient[S, I]) sampleRTT(s entityState, now time.Time) {
	e := s.echo
	if e <= d.echoed || e > d.sentSeq || d.sentSeq-e >= inputRing {
		return // none, repeated, or naming an input never sent or too old to remember
	}
	d.echoed = e
	sample := now.Sub(d.sentAt[e%inputRing]) - time.Duration(s.held)*100*time.Microsecond
	sample = max(sample, 0)
	if d.rtt == 0 {
		d.rtt = max(sample, 1)
		return
	}
	d.rtt += (sample - d.rtt) / 8
	d.rtt = max(d.rtt, 1)
}

// compare counts a state's agreement with this client's prediction: the
// host's encoding of the own entity after input K (and the ticks it held
// K for want of the next) against what this client predicted after K.
// Every state whose K it predicted counts once, duplicates and older
// ones not, however many arrive between two of its ticks.
func (d *entityClient[S, I]) compare(s entityState) {
	k := s.input
	if d.slot < 0 || s.own < 0 || s.own != d.own || s.ownGen != d.ownGen || k == 0 || k > d.seq || d.predSeq[k%inputRing] != k {
		return
	}
	if s.tick <= d.cmpTick {
		return
	}
	d.cmpTick = s.tick
	d.compared++
	size := d.ec.Size
	if equalEncoding(d.pred[int(k%inputRing)*size:int(k%inputRing+1)*size], s.ownState) {
		d.agreed++
	}
}

// reconcile checks the host's encoding of the own entity after input K
// against what this client predicted after K; equal (the common case)
// costs nothing, different takes the host's and predicts again from K+1.
func (d *entityClient[S, I]) reconcile() {
	if !d.hasPend {
		return
	}
	d.hasPend = false
	p := &d.pending
	d.acked = max(d.acked, p.input)
	if p.own < 0 {
		d.own = -1
		return
	}
	slots := d.ec.Slots(&d.world)
	size := d.ec.Size
	k := p.input
	held := p.own == d.own && p.ownGen == d.ownGen && slots[p.own].Live && slots[p.own].Gen == p.ownGen
	if held && k > 0 && d.predSeq[k%inputRing] == k &&
		equalEncoding(d.pred[int(k%inputRing)*size:int(k%inputRing+1)*size], p.ownState) {
		return
	}
	if held {
		d.corrections++
	}
	d.own, d.ownGen = p.own, p.ownGen
	slots[p.own] = entity.Slot{Gen: p.ownGen, Live: true}
	d.ec.Decode(&d.world, int(p.own), p.ownState, p.ownState, 0)
	first := k + 1
	if d.seq >= inputRing && first < d.seq-inputRing+2 {
		first = d.seq - inputRing + 2
	}
	for q := first; q <= d.seq; q++ {
		d.predict(q)
	}
}

// predict steps the own entity by input q and keeps its encoding.
func (d *entityClient[S, I]) predict(q uint32) {
	size := d.ec.Size
	d.ec.Predict(&d.world, d.slot, int(d.own), d.ins[q%inputRing])
	d.ec.Encode(&d.world, d.pred[int(q%inputRing)*size:int(q%inputRing+1)*size], int(d.own))
	d.predSeq[q%inputRing] = q
}

// step takes one step's input: predicts the own entity.
func (d *entityClient[S, I]) step(in I) {
	d.seq++
	d.ins[d.seq%inputRing] = in
	d.sights[d.seq%inputRing] = d.drawn
	if d.own >= 0 {
		d.predict(d.seq)
	}
}

// sendInputs sends the inputs the host has not applied (at most
// maxInputs), newest first, with what was drawn when each was made and
// the mirror's ack.
func (d *entityClient[S, I]) sendInputs(now time.Time) {
	if d.seq == 0 {
		return
	}
	if d.seq > d.sentSeq {
		d.sentSeq = d.seq
		d.sentAt[d.seq%inputRing] = now
	}
	n := int(min(d.seq-d.acked, maxInputs))
	n = max(n, 1)
	d.out = appendEntityInputHead(d.out[:0], d.seq, n)
	for i := range n {
		d.out = append(d.out, rollback.BytesOf(&d.ins[(d.seq-uint32(i))%inputRing])...)
	}
	var sights [maxInputs]int64
	for i := range n {
		sights[i] = d.sights[(d.seq-uint32(i))%inputRing]
	}
	d.out = appendSights(d.out, sights[:n])
	d.out = d.mirror.AppendAck(d.out)
	d.send()
}

func (d *entityClient[S, I]) send() {
	d.sent += uint64(len(d.out))
	_ = d.m.link.tr.Send(d.host, d.out)
}

// draw decodes every entity of the mirror but the own one at the render
// time into the world, and frees the slots of those it no longer holds.
func (d *entityClient[S, I]) draw() {
	t, ok := d.clock.T()
	d.drawn = noSight
	if !ok {
		t = math.Inf(1) // before the clock starts: the newest states
	} else if t >= 0 {
		// Drawn at a time the wire can say exactly (256ths of a tick),
		// not past the newest tick heard: the sight of the next inputs.
		d.drawn = min(int64(math.Floor(t*256)), int64(d.newest)*256)
		t = float64(d.drawn) / 256
	}
	slots := d.ec.Slots(&d.world)
	for i := range slots {
		if int32(i) == d.own {
			continue
		}
		st, ok := d.mirror.Entity(i)
		if !ok {
			slots[i].Live = false
			continue
		}
		slots[i] = entity.Slot{Gen: st.Key.Gen, Live: true}
		a, b, alpha, _ := d.mirror.Playout(i, t)
		d.ec.Decode(&d.world, i, a, b, alpha)
	}
}

func (d *entityClient[S, I]) state() *S            { return &d.world }
func (d *entityClient[S, I]) frame() rollnet.Frame { return entityFrame(d.newest) }
func (d *entityClient[S, I]) playout() (a, b *S, alpha float64, ok bool) {
	return &d.world, &d.world, 0, d.started
}
func (d *entityClient[S, I]) checksum() (rollnet.Frame, uint32, bool)  { return 0, 0, false }
func (d *entityClient[S, I]) checksumAt(rollnet.Frame) (uint32, error) { return 0, errNoChecksum }

func (d *entityClient[S, I]) stats(s Stats) (Stats, transport.Peer) {
	ms := d.mirror.Stats()
	s.Rollbacks, s.Compared, s.Agreed = d.corrections, d.compared, d.agreed
	s.InputLead, s.TimeScale = float64(d.lead)/10, 1+float64(d.rate)/1000
	if d.ts != nil {
		s.TimeScale = d.ts.Scale()
	}
	s.Rebuilds, s.RTT = ms.Divergences, d.rtt
	s.Malformed += d.malformed + ms.Malformed
	s.BytesSent, s.BytesReceived = d.sent, d.received
	return s, d.host
}

func (d *entityClient[S, I]) token() (Token, bool)                  { return Token{}, false }
func (d *entityClient[S, I]) seatOf(pe *peer, _ transport.Peer) int { return helloSeat(pe) }
func (d *entityClient[S, I]) seatPeer(int) transport.Peer           { return "" }
func (d *entityClient[S, I]) rosterFrom() transport.Peer            { return "" }
func (d *entityClient[S, I]) parseRoster([]byte) error              { return nil }
func (d *entityClient[S, I]) close()                                {}
func (d *entityClient[S, I]) sessions() sessions[S, I]              { return sessions[S, I]{} }
