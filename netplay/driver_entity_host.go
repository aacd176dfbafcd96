package netplay

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
)

// Limits of the entity host.
const (
	// welcomeEvery is the fewest ticks between two welcomes to one peer:
	// what a client's joins can make the host send is bounded by time,
	// not by how often it asks.
	welcomeEvery = 10
	// inputRing holds a client's inputs by number (and a client's
	// predictions): the largest backlog and a round trip beside it.
	inputRing = 64
	// minBacklog and clientBurst size the inputs a client may have
	// waiting (entityPeer.backlog): at least minBacklog; a client steps
	// at most clientBurst ticks at once after a stall (its timestep's
	// cap, 250 ms at 60 Hz), and sends them in one message.
	minBacklog  = 8
	clientBurst = 15
	// leadTarget is how many of a client's inputs the host wants waiting
	// when it needs one (authority's TargetDepth): one, and one spare;
	// the advice deepens it by the tail of the margins' dips.
	leadTarget = 2
	// maxAdvice bounds the advice, in thousandths (the client's
	// timestep clamps it to its MaxScale, 10%, too).
	maxAdvice = 100
	// maxEntityMessages bounds the messages the host reads from one
	// client per tick; more are counted and dropped.
	maxEntityMessages = 8
)

// entityHost is an entity match's host: it runs the world, takes its
// clients' inputs, and sends each its state message every tick.
type entityHost[S any, I comparable] struct {
	m       *Match[S, I]
	ec      EntityConfig[S, I]
	eh      *entity.Host
	world   S
	now     uint32 // ticks simulated
	isBuilt bool

	inputs    []I
	lag       entityRewind[S] // lag compensation (EntityConfig.MaxRewind)
	peers     map[transport.Peer]*entityPeer[I]
	slots     []*entityPeer[I] // by slot
	byID      []*entityPeer[I] // by entity.Host client number
	refused   map[transport.Peer]uint32
	out       []byte
	enc       []byte
	inputSize int
	st        entityHostStats
}

// entityPeer is what the host keeps for one client.
type entityPeer[I comparable] struct {
	peer     transport.Peer
	slot     int
	id       int // its number in the entity.Host
	in       [inputRing]I
	seqs     [inputRing]uint32
	sights   [inputRing]int64 // what the client drew making each input (noSight: nothing)
	sentUpTo uint32           // the tick of the newest state message sent it
	lastSeq  uint32           // the input of the last sight heard (0: none)
	lastSeen int64            // that sight
	newest   uint32           // newest input number received
	echo     uint32           // newest input number a message named (the state's echo)
	echoAt   time.Time        // when that message arrived
	applied  uint32           // newest applied
	last     I
	adv      pacing.Advice // the timing advice, from how many inputs wait when one is needed
	heard    uint32        // the tick it was last heard
	welcomed uint32        // the tick of its last welcome (+1; 0 none)
	msgs     int           // messages read this tick
}

type entityHostStats struct {
	malformed, flooded, dropped    uint64
	rewinds, tooOld, tooNew, jumps uint64
	sent, received                 uint64 // datagram payload bytes, both ways
	// Inputs: arrived after the host skipped their number (late), past
	// the backlog (too early), missing when needed with newer ones there
	// (skipped: the last applied again), and ticks with none waiting
	// (held: the last applied again).
	late, tooEarly, skipped, held uint64
}

func newEntityHost[S any, I comparable](m *Match[S, I], ec EntityConfig[S, I]) driver[S, I] {
	return &entityHost[S, I]{
		m: m, ec: ec, peers: map[transport.Peer]*entityPeer[I]{}, refused: map[transport.Peer]uint32{},
		inputSize: inputSize[I](),
	}
}

func (d *entityHost[S, I]) mode() Mode              { return ModeHost }
func (d *entityHost[S, I]) greetsAs() greeting.Role { return greeting.RoleHost }
func (d *entityHost[S, I]) awaits() string          { return "the other players" }
func (d *entityHost[S, I]) built() bool             { return d.isBuilt }
func (d *entityHost[S, I]) check(*peer) error       { return nil }
func (d *entityHost[S, I]) admit(*peer)             {}

func (d *entityHost[S, I]) connect() error {
	m, ec := d.m, d.ec
	if ec.MaxRewind > 0 {
		d.lag.init(ec.Capacity, ec.Size, m.cfg.Players, ec.MaxRewind, m.cfg.FrameRate)
	}
	var changed func([]int32) []int32
	if ec.Changed != nil && ec.MaxRewind <= 0 {
		changed = func(dst []int32) []int32 { return ec.Changed(&d.world, dst) }
	}
	h, err := entity.NewHost(entity.HostConfig{
		Capacity: ec.Capacity, Size: ec.Size,
		Encode: func(dst []byte, index int) {
			ec.Encode(&d.world, dst, index)
			d.lag.keep(dst, index)
		},
		Changed:        changed,
		Interest:       d.interest,
		Priority:       d.priority,
		BytesPerSecond: ec.BytesPerSecond, TickRate: m.cfg.FrameRate, Linger: ec.Linger,
		MTU: transport.MaxDatagram - entityStateHeadMax - ec.Size,
	})
	if err != nil {
		return fmt.Errorf("netplay: %w", err)
	}
	d.eh = h
	d.inputs = make([]I, m.cfg.Players)
	d.slots = make([]*entityPeer[I], m.cfg.Players)
	d.out = make([]byte, 0, transport.MaxDatagram)
	d.enc = make([]byte, ec.Size)
	d.isBuilt = true
	if err := m.started(Running); err != nil {
		return err
	}
	if m.cfg.LocalPlayers > 0 {
		m.seat = 0
		m.names[0] = m.cfg.Name
	}
	return nil
}

// interest is the entity.Host's: the game's, for the client's slot.
func (d *entityHost[S, I]) interest(client int, dst []int32) []int32 {
	if client < len(d.byID) && d.byID[client] != nil {
		return d.ec.Interest(&d.world, d.byID[client].slot, dst)
	}
	return dst
}

func (d *entityHost[S, I]) priority(client, index int) float32 {
	if d.ec.Priority == nil {
		return 0
	}
	if client < len(d.byID) && d.byID[client] != nil {
		return d.ec.Priority(&d.world, d.byID[client].slot, index)
	}
	return 0
}

func (d *entityHost[S, I]) tick(in I, now time.Time) error {
	m := d.m
	for _, p := range d.slots {
		if p != nil {
			p.msgs = 0
		}
	}
	for {
		n, from, err := m.link.mx.Receive(m.rbuf)
		if err != nil {
			if err != transport.ErrNoPacket {
				return fmt.Errorf("netplay: transport: %w", err)
			}
			break
		}
		d.receive(from, m.rbuf[:n], now)
	}
	clear(d.inputs)
	if m.cfg.LocalPlayers > 0 {
		d.inputs[0] = in
	}
	for i := range d.lag.sights {
		d.lag.sights[i] = noSight
	}
	for _, p := range d.slots {
		if p != nil {
			var seen int64
			p.adv.Advise(int32(p.applied+1), int32(d.now), leadTarget, maxAdvice)
			d.inputs[p.slot], seen = p.next(&d.st)
			if d.lag.on() {
				d.lag.sights[p.slot] = d.sightOf(p, seen)
			}
		}
	}
	d.lag.simulating = true
	m.simulate(&d.world, d.inputs, rollnet.Frame(d.now))
	d.lag.simulating = false
	d.now++
	slots := d.ec.Slots(&d.world)
	d.lag.start(d.now, slots)
	d.eh.Tick(slots)
	for _, p := range d.slots {
		if p != nil {
			d.send(p, now)
		}
	}
	d.expire()
	m.st.Phase, m.st.Advanced = Running, true
	m.st.Have = m.cfg.LocalPlayers + len(d.peers)
	return nil
}

// next is the input for this tick: the next by number when it arrived,
// else the last one again (counted: skipped when newer ones are there,
// held when none is); and what the client drew when it made it
// (noSight for one applied again). Inputs are taken in order, one a
// tick, however they arrived: a burst waits its turn (the advice slows
// the client when too many wait).
func (p *entityPeer[I]) next(st *entityHostStats) (I, int64) {
	seen := int64(noSight)
	switch {
	case p.newest > p.applied:
		want := p.applied + 1
		if p.seqs[want%inputRing] == want {
			p.last, seen = p.in[want%inputRing], p.sights[want%inputRing]
		} else {
			st.skipped++ // lost: the last one held in its place
		}
		p.applied = want
	case p.newest > 0:
		st.held++
		p.adv.Held()
	}
	return p.last, seen
}

// backlog is the most inputs the client may have waiting, sized from
// its link: a round trip of it (the host's estimate), the clientBurst
// ticks a client steps at once after a stall, and the lead the advice
// holds (its target and the tail it deepens it by), at least minBacklog
// and within the ring. Newer inputs are refused as too early (the
// advice slows the client).
func (d *entityHost[S, I]) backlog(p *entityPeer[I]) uint32 {
	rtt := d.eh.Stats(p.id).RTT
	n := int(math.Ceil(float64(rtt))) + clientBurst + leadTarget + pacing.AdviceMaxTail
	return uint32(min(max(n, minBacklog), inputRing-1))
}

// receive handles one datagram.
func (d *entityHost[S, I]) receive(from transport.Peer, b []byte, now time.Time) {
	d.st.received += uint64(len(b))
	p := d.peers[from]
	if p != nil {
		if p.msgs >= maxEntityMessages {
			d.st.flooded++
			return
		}
		p.msgs++
	}
	if len(b) == 0 {
		d.st.malformed++
		return
	}
	switch b[0] {
	case tagEntityJoin:
		d.join(from, p, b)
	case tagEntityInput:
		if p == nil {
			d.st.dropped++
			return
		}
		in, err := parseEntityInput(b, d.inputSize)
		if err != nil {
			d.st.malformed++
			return
		}
		p.heard = d.now
		if in.seq > p.echo {
			p.echo, p.echoAt = in.seq, now
		}
		p.adv.Heard(int32(in.seq), int32(d.now))
		limit := p.applied + d.backlog(p)
		for i := range in.n {
			seq := in.seq - uint32(i)
			k := seq % inputRing
			switch {
			case seq > limit:
				d.st.tooEarly++ // refused: the client sends it again while it is among its newest
				continue
			case p.seqs[k] == seq:
				continue // a copy
			case seq <= p.applied:
				if seq+inputRing > p.newest {
					p.seqs[k] = seq // (counted once)
					d.st.late++     // its tick went without it
				}
				continue
			}
			p.seqs[k] = seq
			p.sights[k] = in.sights[i]
			copy(rollback.BytesOf(&p.in[k]), in.inputs[i*d.inputSize:])
			p.newest = max(p.newest, seq)
		}
		if len(in.ack) > 0 {
			_ = d.eh.Receive(p.id, in.ack) // counted by the entity host
		}
	default:
		d.st.malformed++
	}
}

// join admits a client (or answers one admitted again), at most once
// per welcomeEvery ticks per peer.
func (d *entityHost[S, I]) join(from transport.Peer, p *entityPeer[I], b []byte) {
	m := d.m
	j, err := parseEntityJoin(b)
	w := entityWelcome{verdict: verdictAdmitted}
	switch {
	case err == errVersionMismatch:
		// Refused in the joiner's version: a refusal reads the same in
		// every version, so an older client says why it cannot play.
		if at, ok := d.refused[from]; ok && d.now-at < welcomeEvery {
			return
		}
		d.refused[from] = d.now
		d.out = append(d.out[:0], tagEntityWelcome, b[1], verdictSettings)
		d.st.sent += uint64(len(d.out))
		_ = m.link.tr.Send(from, d.out)
		return
	case err != nil:
		d.st.malformed++
		return
	case int(j.capacity) != d.ec.Capacity || int(j.size) != d.ec.Size || int(j.inputSize) != d.inputSize:
		w.verdict = verdictSettings
	}
	if w.verdict == verdictAdmitted && p == nil {
		slot := -1
		for i := m.cfg.LocalPlayers; i < len(d.slots); i++ {
			if d.slots[i] == nil {
				slot = i
				break
			}
		}
		if slot < 0 {
			w.verdict = verdictFull
		} else {
			p = &entityPeer[I]{peer: from, slot: slot, id: d.eh.AddClient(), heard: d.now}
			d.peers[from], d.slots[slot] = p, p
			for len(d.byID) <= p.id {
				d.byID = append(d.byID, nil)
			}
			d.byID[p.id] = p
			m.names[slot] = m.nameOf(from)
			m.tell("%s joined at frame %d (slot %d)", m.nameOf(from), d.now, slot+1)
		}
	}
	if p != nil {
		if p.welcomed != 0 && d.now+1-p.welcomed < welcomeEvery {
			return
		}
		p.welcomed = d.now + 1
		w.slot = uint32(p.slot)
	} else {
		if at, ok := d.refused[from]; ok && d.now-at < welcomeEvery {
			return
		}
		d.refused[from] = d.now
	}
	d.out = w.append(d.out[:0])
	d.st.sent += uint64(len(d.out))
	_ = m.link.tr.Send(from, d.out)
}

// send sends a client its state message: the tick, its last input
// applied, its own entity, and the entity update that fits.
func (d *entityHost[S, I]) send(p *entityPeer[I], now time.Time) {
	s := entityState{tick: d.now, input: p.applied, echo: p.echo, own: -1, rate: int16(p.adv.Rate())}
	if p.echo > 0 {
		s.held = uint32(min(max((now.Sub(p.echoAt)+50*time.Microsecond)/(100*time.Microsecond), 0), maxHeld)) // rounded
	}
	s.lead = uint16(min(max(math.Round(p.adv.Margin()*10), 0), maxLead))
	slots := d.ec.Slots(&d.world)
	if own := d.ec.Own(&d.world, p.slot); own >= 0 && own < len(slots) && slots[own].Live {
		d.ec.Encode(&d.world, d.enc, own)
		s.own, s.ownGen, s.ownState = int32(own), slots[own].Gen, d.enc
	}
	d.out = appendEntityStateHead(d.out[:0], s)
	d.out = d.eh.Append(d.out, p.id)
	p.sentUpTo = d.now
	d.st.sent += uint64(len(d.out))
	// An update carries records no later one repeats (and the state the
	// client compares its prediction with): it goes by the transport's
	// bulk path, which queues it behind congestion control, instead of
	// Send, where a newer datagram supersedes one still waiting. Over
	// WebRTC, Send keeps at most 256 bytes buffered, so on a loaded
	// machine a 1 KB state waited and the next one superseded it: a
	// crowd client in another process was sent 2.1 KB/s of its 16 and
	// compared 108 predictions in 783 ticks; by the bulk path 771 in
	// 780. One the transport refuses is sent again, unacknowledged.
	_, _ = d.m.link.mx.SendBulk(p.peer, d.out)
}

// expire frees the slots of clients silent for the Grace.
func (d *entityHost[S, I]) expire() {
	m := d.m
	grace := uint32(m.cfg.Grace.Seconds()*float64(m.cfg.FrameRate)) + 1
	for _, p := range d.slots {
		if p == nil || d.now-p.heard <= grace {
			continue
		}
		m.tell("%s left at frame %d (slot %d): silent for %v", m.names[p.slot], d.now, p.slot+1, m.cfg.Grace)
		d.eh.RemoveClient(p.id)
		d.byID[p.id] = nil
		delete(d.peers, p.peer)
		d.slots[p.slot] = nil
		m.names[p.slot] = ""
	}
	if len(d.refused) > 1024 {
		clear(d.refused)
	}
}

func (d *entityHost[S, I]) state() *S            { return &d.world }
func (d *entityHost[S, I]) frame() rollnet.Frame { return entityFrame(d.now) }
func (d *entityHost[S, I]) playout() (a, b *S, alpha float64, ok bool) {
	return &d.world, &d.world, 0, true
}
func (d *entityHost[S, I]) checksum() (rollnet.Frame, uint32, bool)  { return 0, 0, false }
func (d *entityHost[S, I]) checksumAt(rollnet.Frame) (uint32, error) { return 0, errNoChecksum }

func (d *entityHost[S, I]) stats(s Stats) (Stats, transport.Peer) {
	var far transport.Peer
	var rtt float32
	for _, p := range d.slots {
		if p == nil {
			continue
		}
		hs := d.eh.Stats(p.id)
		s.Rebuilds += hs.Mismatches
		s.HeldBack += hs.HeldBack
		s.Malformed += hs.Malformed
		if hs.RTT >= rtt {
			rtt, far = hs.RTT, p.peer
		}
	}
	s.RTT = time.Duration(float64(rtt) * float64(time.Second) / float64(d.m.cfg.FrameRate))
	s.Malformed += d.st.malformed
	s.BytesSent, s.BytesReceived = d.st.sent, d.st.received
	s.Rewinds, s.SightsTooOld, s.SightsTooNew, s.SightJumps = d.st.rewinds, d.st.tooOld, d.st.tooNew, d.st.jumps
	s.InputsLate, s.InputsTooEarly, s.InputsSkipped, s.InputsHeld = d.st.late, d.st.tooEarly, d.st.skipped, d.st.held
	return s, far
}

func (d *entityHost[S, I]) token() (Token, bool) { return Token{}, false }

func (d *entityHost[S, I]) seatOf(pe *peer, from transport.Peer) int {
	if p := d.peers[from]; p != nil {
		return p.slot
	}
	return -1
}

func (d *entityHost[S, I]) seatPeer(int) transport.Peer { return "" }
func (d *entityHost[S, I]) rosterFrom() transport.Peer  { return "" }
func (d *entityHost[S, I]) parseRoster([]byte) error    { return nil }
func (d *entityHost[S, I]) close()                      {}
func (d *entityHost[S, I]) sessions() sessions[S, I]    { return sessions[S, I]{} }

// equalEncoding reports whether two encodings are the same.
func equalEncoding(a, b []byte) bool { return bytes.Equal(a, b) }
