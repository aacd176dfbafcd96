package netplay

import (
	"encoding/binary"
	"errors"
	"io"
)

// The entity mode's messages (EntityConfig), beside netplay's greetings.
// Their first bytes are outside the session messages' (wire.Version<<4 |
// type) and netplay's own (greeting.AppByte), so the mux hands them to the
// entity drivers as session datagrams. Every message carries
// entityVersion as its second byte: a peer of another version is refused
// at its join (and its other messages are dropped as malformed).
//
//	join     client: tag 0xE8, version, capacity uvarint, size uvarint,
//	         input size uvarint (sent every 100 ms until welcomed)
//	welcome  host: tag 0xE9, version, verdict byte (0 admitted, 1 other
//	         settings, 2 full), slot uvarint (admitted); at most one per
//	         client per welcomeEvery ticks, whatever it sends
//	state    host, every tick: tag 0xEA, version, tick uvarint, last
//	         input applied uvarint (0: none yet), echo uvarint (the
//	         newest input number an input message named, 0: none yet,
//	         less the last input applied: at least 0),
//	         held uvarint (how long ago that message arrived, in tenths
//	         of a millisecond, at most maxHeld), lead uvarint (how many
//	         of the client's inputs were waiting when the host needed
//	         one, smoothed, in tenths), rate uvarint (the change of its
//	         tick rate the host advises, in thousandths, zigzag: 50 is
//	         5% fast; pacing.Advice), own uvarint (the index
//	         of the entity the client controls, plus 1; 0: none), then for
//	         own > 0 its generation uvarint and its encoding (size bytes),
//	         then the rest: package entity's update, or nothing
//	input    client, every tick: tag 0xEB, version, seq uvarint (the
//	         newest input's number, from 1), n byte (1 to maxInputs), n
//	         inputs of input size bytes, newest first, their sights (what
//	         the client drew when it made each: the render time in 256ths
//	         of a host tick; below), then the rest: package entity's ack,
//	         or nothing
//
// An input message's sights: a uvarint, 0 when the newest input has none
// (and then nothing more), else its render time + 1; then for each older
// input a uvarint, 0 for none, else zigzag(newer's − its − 256) + 1 (a
// steady render clock moves a tick an input: one byte each).
//
// Version 2 added the sights (lag compensation, EntityConfig.MaxRewind);
// version 3 the host's timing advice (lead and rate) and 16 inputs a
// message (a client that steps many ticks at once after a stall);
// version 4 the echo and held of a state, from which the client times
// its round trip (Stats.RTT): the time from sending input message N to
// reading a state that echoes N, less the time the host held N.
const (
	entityVersion = 4

	tagEntityJoin    = 0xE8
	tagEntityWelcome = 0xE9
	tagEntityState   = 0xEA
	tagEntityInput   = 0xEB

	// maxInputs is the most inputs one input message repeats.
	maxInputs = 16
	// maxLead and maxRate bound a state's lead (tenths of a tick) and
	// rate (thousandths).
	maxLead = 1<<16 - 1
	maxRate = 1000
	// maxHeld bounds a state's held, in tenths of a millisecond (about
	// 28 minutes).
	maxHeld = 1<<24 - 1
)

// A welcome's verdicts.
const (
	verdictAdmitted = 0
	verdictSettings = 1
	verdictFull     = 2
)

var errEntityMessage = errors.New("netplay: malformed entity message")

type entityJoin struct {
	capacity, size, inputSize uint32
}

func (j entityJoin) append(b []byte) []byte {
	b = append(b, tagEntityJoin, entityVersion)
	b = binary.AppendUvarint(b, uint64(j.capacity))
	b = binary.AppendUvarint(b, uint64(j.size))
	return binary.AppendUvarint(b, uint64(j.inputSize))
}

// entityHead checks a message's tag and version and returns its body.
// A message of another version reads as errVersionMismatch, so a join
// from another release is refused rather than dropped.
func entityHead(b []byte, tag byte) ([]byte, error) {
	if len(b) < 2 {
		return nil, io.ErrUnexpectedEOF
	}
	if b[0] != tag {
		return nil, errEntityMessage
	}
	if b[1] != entityVersion {
		return nil, errVersionMismatch
	}
	return b[2:], nil
}

var errVersionMismatch = errors.New("netplay: entity protocol of another version")

// uvarint reads one uvarint of at most max from b, canonical (its
// shortest form, so a message has one encoding).
func uvarint(b []byte, max uint64) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		if n == 0 {
			return 0, nil, io.ErrUnexpectedEOF
		}
		return 0, nil, errEntityMessage
	}
	if v > max || n != uvarintSize(v) {
		return 0, nil, errEntityMessage
	}
	return v, b[n:], nil
}

func uvarintSize(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func parseEntityJoin(b []byte) (j entityJoin, err error) {
	if b, err = entityHead(b, tagEntityJoin); err != nil {
		return j, err
	}
	var v [3]uint64
	for i := range v {
		if v[i], b, err = uvarint(b, 1<<24); err != nil {
			return j, err
		}
	}
	if len(b) != 0 {
		return j, errEntityMessage
	}
	return entityJoin{capacity: uint32(v[0]), size: uint32(v[1]), inputSize: uint32(v[2])}, nil
}

type entityWelcome struct {
	verdict byte
	slot    uint32
}

func (w entityWelcome) append(b []byte) []byte {
	b = append(b, tagEntityWelcome, entityVersion, w.verdict)
	if w.verdict == verdictAdmitted {
		b = binary.AppendUvarint(b, uint64(w.slot))
	}
	return b
}

func parseEntityWelcome(b []byte) (w entityWelcome, err error) {
	if b, err = entityHead(b, tagEntityWelcome); err != nil {
		return w, err
	}
	if len(b) < 1 || b[0] > verdictFull {
		return w, errEntityMessage
	}
	w.verdict, b = b[0], b[1:]
	if w.verdict == verdictAdmitted {
		var v uint64
		if v, b, err = uvarint(b, 255); err != nil {
			return w, err
		}
		w.slot = uint32(v)
	}
	if len(b) != 0 {
		return w, errEntityMessage
	}
	return w, nil
}

// entityState is a state message; own and update alias the message.
type entityState struct {
	tick, input uint32
	echo        uint32 // the newest input number heard (0: none)
	held        uint32 // tenths of a millisecond since it was heard
	lead        uint16 // tenths of a tick
	rate        int16  // thousandths
	own         int32  // -1: none
	ownGen      uint16
	ownState    []byte
	update      []byte
}

// appendEntityStateHead appends a state message's fields before its
// update (which the caller appends).
func appendEntityStateHead(b []byte, s entityState) []byte {
	b = append(b, tagEntityState, entityVersion)
	b = binary.AppendUvarint(b, uint64(s.tick))
	b = binary.AppendUvarint(b, uint64(s.input))
	b = binary.AppendUvarint(b, uint64(s.echo-s.input))
	b = binary.AppendUvarint(b, uint64(s.held))
	b = binary.AppendUvarint(b, uint64(s.lead))
	b = binary.AppendUvarint(b, uint64(int64(s.rate)<<1^int64(s.rate)>>63))
	b = binary.AppendUvarint(b, uint64(s.own+1))
	if s.own >= 0 {
		b = binary.AppendUvarint(b, uint64(s.ownGen))
		b = append(b, s.ownState...)
	}
	return b
}

// entityStateHeadMax bounds a state message's bytes before its update,
// beside the own entity's encoding.
const entityStateHeadMax = 2 + 5 + 5 + 5 + 4 + 3 + 2 + 5 + 3

func parseEntityState(b []byte, capacity, size int) (s entityState, err error) {
	if b, err = entityHead(b, tagEntityState); err != nil {
		return s, err
	}
	var tick, input, echo, held, lead, rate, own uint64
	if tick, b, err = uvarint(b, 1<<32-1); err != nil {
		return s, err
	}
	if input, b, err = uvarint(b, 1<<32-1); err != nil {
		return s, err
	}
	if echo, b, err = uvarint(b, 1<<32-1-input); err != nil {
		return s, err
	}
	echo += input
	if held, b, err = uvarint(b, maxHeld); err != nil {
		return s, err
	}
	s.echo, s.held = uint32(echo), uint32(held)
	if lead, b, err = uvarint(b, maxLead); err != nil {
		return s, err
	}
	if rate, b, err = uvarint(b, 2*maxRate); err != nil {
		return s, err
	}
	s.lead, s.rate = uint16(lead), int16(int64(rate>>1)^-int64(rate&1))
	if own, b, err = uvarint(b, uint64(capacity)); err != nil {
		return s, err
	}
	s.tick, s.input, s.own = uint32(tick), uint32(input), int32(own)-1
	if s.own >= 0 {
		var gen uint64
		if gen, b, err = uvarint(b, 1<<16-1); err != nil {
			return s, err
		}
		if len(b) < size {
			return s, io.ErrUnexpectedEOF
		}
		s.ownGen, s.ownState, b = uint16(gen), b[:size:size], b[size:]
	}
	s.update = b
	return s, nil
}

// entityInput is an input message; inputs and ack alias the message.
type entityInput struct {
	seq    uint32
	n      int
	inputs []byte // n × input size, newest first
	// sights are the inputs' render times in 256ths of a host tick,
	// newest first (noSight: none).
	sights [maxInputs]int64
	ack    []byte
}

// noSight is an input's sight when its client drew no host state.
const noSight = -1

// maxSight bounds a sight: a host tick (32 bits) in 256ths.
const maxSight = 1<<40 - 1

// appendEntityInputHead appends an input message's fields before its
// inputs (which the caller appends, newest first, then the sights with
// appendSights, then the ack).
func appendEntityInputHead(b []byte, seq uint32, n int) []byte {
	b = append(b, tagEntityInput, entityVersion)
	b = binary.AppendUvarint(b, uint64(seq))
	return append(b, byte(n))
}

// appendSights appends the sights of an input message's inputs (newest
// first); a newest input without one sends none.
func appendSights(b []byte, sights []int64) []byte {
	valid := func(t int64) bool { return t >= 0 && t <= maxSight }
	if len(sights) == 0 || !valid(sights[0]) {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(sights[0])+1)
	for i := 1; i < len(sights); i++ {
		if !valid(sights[i]) {
			b = append(b, 0)
			continue
		}
		d := sights[i-1] - sights[i] - 256
		if !valid(sights[i-1]) {
			d = sights[0] - sights[i] - 256*int64(i) // the gap counts from the newest
		}
		b = binary.AppendUvarint(b, uint64(d<<1^d>>63)+1)
	}
	return b
}

func parseEntityInput(b []byte, inputSize int) (in entityInput, err error) {
	if b, err = entityHead(b, tagEntityInput); err != nil {
		return in, err
	}
	var seq uint64
	if seq, b, err = uvarint(b, 1<<32-1); err != nil {
		return in, err
	}
	if len(b) < 1 {
		return in, io.ErrUnexpectedEOF
	}
	n := int(b[0])
	b = b[1:]
	if seq == 0 || n < 1 || n > maxInputs || uint64(n) > seq {
		return in, errEntityMessage
	}
	if len(b) < n*inputSize {
		return in, io.ErrUnexpectedEOF
	}
	in = entityInput{seq: uint32(seq), n: n, inputs: b[: n*inputSize : n*inputSize]}
	b = b[n*inputSize:]
	for i := range in.sights {
		in.sights[i] = noSight
	}
	var v uint64
	if v, b, err = uvarint(b, maxSight+1); err != nil {
		return in, err
	}
	if v > 0 {
		in.sights[0] = int64(v - 1)
		for i := 1; i < n; i++ {
			if v, b, err = uvarint(b, 1<<42); err != nil {
				return in, err
			}
			if v == 0 {
				continue
			}
			z := v - 1
			d := int64(z>>1) ^ -int64(z&1)
			newer := in.sights[i-1]
			if newer < 0 {
				newer, d = in.sights[0], d+256*int64(i-1)
			}
			t := newer - d - 256
			if t < 0 || t > maxSight {
				return in, errEntityMessage
			}
			in.sights[i] = t
		}
	}
	in.ack = b
	return in, nil
}
