package wire

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// PeerStatus is what the sender knows of one player's connection, as GGPO
// sends it: whether the player is connected and the last frame seen of them.
type PeerStatus struct {
	Connected bool
	LastFrame int32
}

// Input carries the sender's inputs for every frame the receiver has not
// acknowledged, the sender's acknowledgement of the receiver's inputs and,
// in sessions of more than two players, the sender's view of every player's
// connection.
//
// Layout after the header, all varints minimal:
//
//	Start    uvarint
//	Ack      zigzag varint of Ack-Start
//	Frames   uvarint
//	Players  uvarint (the mask)
//	len(Status)<<1 | HasChecksum uvarint, then per entry
//	         uvarint(zigzag(LastFrame-Start)<<1 | Connected)
//	inputs   XOR-then-run-length coded, see below
//	checksum present when HasChecksum's bit is set, and only then:
//	         zigzag varint of CheckFrame-Start, then Checksum u32 LE
//	delay    present when HasDelay's bit (bit 8 of the status word) is
//	         set, and only then (protocol 5): DelayWish, DelayFrom and
//	         DelayTo uvarints (each at most MaxDelay), then the zigzag
//	         varint of DelayAt-Start
//
// Nothing follows: a byte left over is malformed, so bytes appended to a
// real packet never read as a checksum. (Before protocol 3 a checksum was
// "whatever bytes remain", which let a spoofed copy of a real Input with
// five bytes appended raise a false desync; a recording's Input blocks,
// which carry neither statuses nor checksums, encode the same in both.)
//
// The inputs, Frames × popcount(Players) × Size bytes frame-major then
// player, are first XORed against the input of the same player one frame
// earlier in the packet (the first frame against zero, so every packet stands
// alone). The resulting bytes are cut into tokens, each a uvarint control c:
// c even is a run of c/2+2 zero bytes; c odd is a literal of c/2+1 bytes
// that follow. Runs are the maximal runs of two zeros or more; literals are
// what lies between them. So tokens alternate, a literal holds no two
// consecutive zeros and starts or ends with a zero only at the edge of the
// stream; the decoder rejects anything else, so the coding is canonical.
// A held button costs nothing after its first frame.
//
// The checksum rides along only when HasChecksum is set: the sender's
// checksum of its state after CheckFrame, a confirmed frame, so a desync
// is found without datagrams of its own. Absent, it costs nothing.
type Input struct {
	Seq     uint16
	Ack     int32        // newest frame of the receiver's inputs the sender has, contiguously; -1 none
	Start   int32        // first frame carried (>= 0)
	Frames  int          // frames carried, 0..MaxFrames
	Players uint64       // mask of the players whose inputs are carried, ascending order
	Size    int          // bytes per player input, 1..MaxInputSize: session config, not on the wire
	Inputs  []byte       // Frames × popcount(Players) × Size bytes, frame-major, then player
	Status  []PeerStatus // empty when absent (2-player sessions); else one per player

	HasChecksum bool   // CheckFrame and Checksum are carried
	CheckFrame  int32  // the frame (>= 0) whose state Checksum is of
	Checksum    uint32 // CRC32-C of the sender's state after CheckFrame

	// The input delay that follows the network (p2p's delay.go): the
	// sender's wish, and the newest change of the match's delay it knows,
	// from DelayFrom to DelayTo at frame DelayAt (>= 0).
	HasDelay                      bool
	DelayWish, DelayFrom, DelayTo uint8
	DelayAt                       int32
}

// MaxDelay is the largest input delay an Input's delay block carries.
const MaxDelay = 255

// statusDelay is the status word's bit saying a delay block follows.
const statusDelay = 1 << 8

// checkFields reports whether the fields agree with each other and the limits.
func (m Input) checkFields() error {
	if m.Frames < 0 || m.Size < 1 || m.Start < 0 || m.Ack < -1 || (m.HasChecksum && m.CheckFrame < 0) || (m.HasDelay && m.DelayAt < 0) {
		return ErrMalformed
	}
	if m.Frames > MaxFrames || m.Size > MaxInputSize || len(m.Status) > MaxPlayers {
		return ErrLimit
	}
	if int64(m.Start)+int64(m.Frames)-1 > math.MaxInt32 {
		return ErrMalformed
	}
	if len(m.Inputs) != m.Frames*bits.OnesCount64(m.Players)*m.Size {
		return ErrMalformed
	}
	return nil
}

// Check reports whether Append would encode m: ErrMalformed or ErrLimit when
// the fields disagree with each other or the limits, ErrTooLarge when the
// encoding would exceed MaxPacket (send fewer frames).
func (m Input) Check() error {
	if err := m.checkFields(); err != nil {
		return err
	}
	if m.Len() > MaxPacket {
		return ErrTooLarge
	}
	return nil
}

// Len is the encoded size in bytes. It is meaningful only when the fields
// agree (see Check).
func (m Input) Len() int {
	n := HeaderLen + uvarintLen(uint64(uint32(m.Start))) +
		uvarintLen(zigzag(int64(m.Ack)-int64(m.Start))) +
		uvarintLen(uint64(m.Frames)) + uvarintLen(m.Players) + uvarintLen(m.statusWord())
	for _, s := range m.Status {
		n += uvarintLen(statusWord(s, m.Start))
	}
	n += rleLen(m.Inputs, bits.OnesCount64(m.Players)*m.Size)
	if m.HasChecksum {
		n += uvarintLen(zigzag(int64(m.CheckFrame)-int64(m.Start))) + 4
	}
	if m.HasDelay {
		n += uvarintLen(uint64(m.DelayWish)) + uvarintLen(uint64(m.DelayFrom)) + uvarintLen(uint64(m.DelayTo)) +
			uvarintLen(zigzag(int64(m.DelayAt)-int64(m.Start)))
	}
	return n
}

// safeInputs is a stream length whose coding, with every other field at its
// largest, cannot exceed MaxPacket: a coding is at most one byte longer than
// its stream plus one per 64 bytes, and the fields take at most 3+5+10+2+10+2
// bytes, 64 statuses of 6, a checksum of 10 and a delay block of 11.
const safeInputs = MaxPacket/2 + 64

// Append appends the encoded message to b. It never emits more than
// MaxPacket bytes: when Check reports an error it appends nothing and returns
// b unchanged. It does not allocate when b has MaxPacket bytes of room, even
// for a message it refuses (a long stream is measured before it is written).
// So a sender may skip Check and compare lengths instead.
func (m Input) Append(b []byte) []byte {
	if m.checkFields() != nil || (len(m.Inputs) > safeInputs && m.Len() > MaxPacket) {
		return b
	}
	n0 := len(b)
	b = appendHeader(b, TypeInput, m.Seq)
	b = binary.AppendUvarint(b, uint64(uint32(m.Start)))
	b = binary.AppendUvarint(b, zigzag(int64(m.Ack)-int64(m.Start)))
	b = binary.AppendUvarint(b, uint64(m.Frames))
	b = binary.AppendUvarint(b, m.Players)
	b = binary.AppendUvarint(b, m.statusWord())
	for _, s := range m.Status {
		b = binary.AppendUvarint(b, statusWord(s, m.Start))
	}
	b = appendRLE(b, m.Inputs, bits.OnesCount64(m.Players)*m.Size)
	if m.HasChecksum {
		b = binary.AppendUvarint(b, zigzag(int64(m.CheckFrame)-int64(m.Start)))
		b = binary.LittleEndian.AppendUint32(b, m.Checksum)
	}
	if m.HasDelay {
		b = binary.AppendUvarint(b, uint64(m.DelayWish))
		b = binary.AppendUvarint(b, uint64(m.DelayFrom))
		b = binary.AppendUvarint(b, uint64(m.DelayTo))
		b = binary.AppendUvarint(b, zigzag(int64(m.DelayAt)-int64(m.Start)))
	}
	if len(b)-n0 > MaxPacket {
		return b[:n0]
	}
	return b
}

// statusWord is the count of statuses and the checksum and delay flags,
// as coded.
func (m Input) statusWord() uint64 {
	w := uint64(len(m.Status)) << 1
	if m.HasChecksum {
		w |= 1
	}
	if m.HasDelay {
		w |= statusDelay
	}
	return w
}

func statusWord(s PeerStatus, start int32) uint64 {
	w := zigzag(int64(s.LastFrame)-int64(start)) << 1
	if s.Connected {
		w |= 1
	}
	return w
}

// maxDelta bounds a decoded frame delta before it is added to a frame, so the
// sum cannot overflow; the result is range-checked after.
const maxDelta = 1 << 33

// ParseInput decodes a whole Input packet into m and caller-owned storage,
// without allocating. m.Size must be set by the caller (it is not on the
// wire). The inputs are written into inputs, which must have capacity for
// MaxFrames × popcount(Players) × m.Size bytes, and m.Inputs aliases it; the
// statuses, when present, into status, which must then have capacity for
// MaxPlayers entries, and m.Status aliases it (else m.Status is empty). A
// message that claims more than the limits or the buffers allow is ErrLimit,
// reported before anything is copied. On error m is left unchanged (the
// buffers may have been written).
func ParseInput(b []byte, m *Input, inputs []byte, status []PeerStatus) (int, error) {
	var seq uint16
	if len(b) >= HeaderLen && b[0] == Version<<4|byte(TypeInput) { // parseHeaderOf's answer, in line
		seq = le.Uint16(b[1:])
	} else if _, err := parseHeaderOf(b, TypeInput); err != nil {
		return 0, err
	}
	if len(b) > MaxPacket {
		return 0, ErrTooLarge
	}
	size := m.Size
	if size < 1 {
		return 0, ErrMalformed
	}
	if size > MaxInputSize {
		return 0, ErrLimit
	}
	// Every field below is a uvarint. Its one-byte form is read in line
	// (readUvarint does not inline, and this is the path of every frame's
	// packet); longer ones by readUvarintSlow.
	// Start, a frame number, takes two bytes past 127 frames: those in
	// line too.
	i := HeaderLen
	var v uint64
	var err error
	if i < len(b) && b[i] < 0x80 {
		v, i = uint64(b[i]), i+1
	} else if i+1 < len(b) && b[i+1] < 0x80 && b[i+1] != 0 {
		v, i = uint64(b[i]&0x7f)|uint64(b[i+1])<<7, i+2
	} else if v, i, err = readUvarintSlow(b, i); err != nil {
		return 0, err
	}
	if v > math.MaxInt32 {
		return 0, ErrMalformed
	}
	start := int64(v)
	if i < len(b) && b[i] < 0x80 {
		v, i = uint64(b[i]), i+1
	} else if v, i, err = readUvarintSlow(b, i); err != nil {
		return 0, err
	}
	d := unzigzag(v)
	if d < -maxDelta || d > maxDelta || start+d < -1 || start+d > math.MaxInt32 {
		return 0, ErrMalformed
	}
	ack := start + d
	if i < len(b) && b[i] < 0x80 {
		v, i = uint64(b[i]), i+1
	} else if v, i, err = readUvarintSlow(b, i); err != nil {
		return 0, err
	}
	if v > MaxFrames {
		return 0, ErrLimit
	}
	frames := int(v)
	if start+int64(frames)-1 > math.MaxInt32 {
		return 0, ErrMalformed
	}
	var players uint64
	if i < len(b) && b[i] < 0x80 {
		players, i = uint64(b[i]), i+1
	} else if players, i, err = readUvarintSlow(b, i); err != nil {
		return 0, err
	}
	if i < len(b) && b[i] < 0x80 {
		v, i = uint64(b[i]), i+1
	} else if v, i, err = readUvarintSlow(b, i); err != nil {
		return 0, err
	}
	has, hasDelay := v&1 == 1, v&statusDelay != 0
	if v >>= 1; v&^(statusDelay>>1) > MaxPlayers {
		return 0, ErrLimit
	}
	count := int(v &^ (statusDelay >> 1))
	stride := bits.OnesCount64(players) * size
	if cap(inputs) < MaxFrames*stride || (count > 0 && cap(status) < MaxPlayers) {
		return 0, ErrLimit
	}
	status = status[:count]
	for k := range status {
		if v, i, err = readUvarint(b, i); err != nil {
			return 0, err
		}
		d := unzigzag(v >> 1)
		if d < -maxDelta || d > maxDelta || start+d < math.MinInt32 || start+d > math.MaxInt32 {
			return 0, ErrMalformed
		}
		status[k] = PeerStatus{Connected: v&1 == 1, LastFrame: int32(start + d)}
	}
	inputs = inputs[:frames*stride]
	if i, err = decodeRLE(b, i, inputs, stride); err != nil {
		return 0, err
	}
	var check int64
	var sum uint32
	if has {
		if v, i, err = readUvarint(b, i); err != nil {
			return 0, err
		}
		d := unzigzag(v)
		if d < -maxDelta || d > maxDelta || start+d < 0 || start+d > math.MaxInt32 {
			return 0, ErrMalformed
		}
		check = start + d
		if len(b)-i < 4 {
			return 0, ErrShort
		}
		sum = binary.LittleEndian.Uint32(b[i:])
		i += 4
	}
	var dl [3]uint8
	var at int64
	if hasDelay {
		for k := range dl {
			if v, i, err = readUvarint(b, i); err != nil {
				return 0, err
			}
			if v > MaxDelay {
				return 0, ErrMalformed
			}
			dl[k] = uint8(v)
		}
		if v, i, err = readUvarint(b, i); err != nil {
			return 0, err
		}
		d := unzigzag(v)
		if d < -maxDelta || d > maxDelta || start+d < 0 || start+d > math.MaxInt32 {
			return 0, ErrMalformed
		}
		at = start + d
	}
	n, err := end(b, i)
	if err != nil {
		return 0, err
	}
	if count == 0 {
		status = nil
	}
	// Field by field: a composite literal is built aside and copied.
	m.Seq, m.Ack, m.Start, m.Frames, m.Players = seq, int32(ack), int32(start), frames, players
	m.Inputs, m.Status = inputs, status
	m.HasChecksum, m.CheckFrame, m.Checksum = has, int32(check), sum
	m.HasDelay, m.DelayWish, m.DelayFrom, m.DelayTo, m.DelayAt = hasDelay, dl[0], dl[1], dl[2], int32(at)
	return n, nil
}
