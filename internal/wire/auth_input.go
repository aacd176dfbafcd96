package wire

import (
	"encoding/binary"
	"math"
)

// AuthInput carries a client's inputs to its host: every frame the host has
// not applied yet (so a lost packet costs nothing), for each of the
// client's slots, and its acknowledgement of the host's states. With
// nothing new it is a frame marker (Frames 0), so the host can always
// measure how early the client's inputs arrive.
//
// Layout after the header, varints minimal:
//
//	Ack     the newest host state received whole, uvarint(uint32(Ack)+1)
//	Start   uvarint: the first frame carried, or the marker's frame
//	Frames  uvarint, 0..MaxFrames
//	Slots   u8: bits 0-6 the slots, 1..MaxPlayers; bit 7 says sights follow
//	Size    u8, 1..MaxInputSize
//	inputs  Frames × Slots × Size bytes frame-major, XORed frame to frame
//	        and run-length coded as Input's
//	sights  (authority protocol 4 on, when bit 7 is set) Frames × SightLen
//	        bytes, one Sight a frame, XORed frame to frame and run-length
//	        coded the same way
//
// The slots are not named: the host knows which a connection holds, so a
// client cannot claim another's. A sight says what the client drew of the
// host's world when it made the frame's input (lag compensation); a client
// that does not say sends none, at no cost.
type AuthInput struct {
	Seq    uint16
	Ack    int32 // -1 none
	Start  int32 // >= 0
	Frames int
	Slots  int
	Size   int
	Inputs []byte // Frames × Slots × Size bytes
	// Sights is Frames × SightLen bytes (each frame's Sight, AppendSight),
	// or nil: the client says nothing of what it drew. A marker (Frames 0)
	// carries none.
	Sights []byte
}

// Newest is the newest frame the message speaks for: the last carried, or
// the marker's frame.
func (m AuthInput) Newest() int32 {
	if m.Frames == 0 {
		return m.Start
	}
	return m.Start + int32(m.Frames) - 1
}

// Check reports whether Append would encode m: ErrMalformed when fields
// disagree, ErrLimit past a limit, ErrTooLarge past MaxPacket.
func (m AuthInput) Check() error {
	if m.Frames < 0 || m.Start < 0 || m.Ack < -1 || m.Slots < 1 || m.Size < 1 {
		return ErrMalformed
	}
	if m.Frames > MaxFrames || m.Slots > MaxPlayers || m.Size > MaxInputSize {
		return ErrLimit
	}
	if int64(m.Start)+int64(m.Frames)-1 > math.MaxInt32 || len(m.Inputs) != m.Frames*m.Slots*m.Size {
		return ErrMalformed
	}
	if m.Frames > 0 && m.Sights != nil && (len(m.Sights) != m.Frames*SightLen || checkSights(m.Sights) != nil) {
		return ErrMalformed
	}
	if m.Len() > MaxPacket {
		return ErrTooLarge
	}
	return nil
}

// Len is the encoded size in bytes, meaningful when the fields agree.
func (m AuthInput) Len() int {
	n := HeaderLen + frameLen(m.Ack) + uvarintLen(uint64(m.Start)) + uvarintLen(uint64(m.Frames)) + 2
	if m.Frames > 0 {
		n += rleLen(m.Inputs, m.Slots*m.Size)
	}
	if m.Sights != nil && m.Frames > 0 {
		n += rleLen(m.Sights, SightLen)
	}
	return n
}

// Append appends the encoded message to b; it appends nothing when Check
// reports an error.
func (m AuthInput) Append(b []byte) []byte {
	if m.Check() != nil {
		return b
	}
	b = appendHeader(b, TypeAuthInput, m.Seq)
	b = appendFrame(b, m.Ack)
	b = binary.AppendUvarint(b, uint64(m.Start))
	b = binary.AppendUvarint(b, uint64(m.Frames))
	slots := byte(m.Slots)
	if m.Sights != nil && m.Frames > 0 {
		slots |= sightsFlag
	}
	b = append(b, slots, byte(m.Size))
	if m.Frames > 0 {
		b = appendRLE(b, m.Inputs, m.Slots*m.Size)
		if m.Sights != nil {
			b = appendRLE(b, m.Sights, SightLen)
		}
	}
	return b
}

// ParseAuthInput decodes a whole AuthInput packet into m, the inputs into
// inputs (m.Inputs aliases it). More inputs than inputs holds is ErrLimit,
// before anything is copied. Sights, when the message carries them, go into
// sights (m.Sights aliases it; MaxFrames×SightLen bytes hold any); with a
// sights too short for them (nil) it is ErrLimit.
func ParseAuthInput(b []byte, m *AuthInput, inputs, sights []byte) (int, error) {
	*m = AuthInput{}
	seq, err := parseHeaderOf(b, TypeAuthInput)
	if err != nil {
		return 0, err
	}
	ack, i, err := readFrame(b, HeaderLen)
	if err != nil {
		return 0, err
	}
	start, i, err := readUvarint(b, i)
	if err != nil {
		return 0, err
	}
	frames, i, err := readUvarint(b, i)
	if err != nil {
		return 0, err
	}
	if len(b)-i < 2 {
		return 0, ErrShort
	}
	slots, size := int(b[i]&^sightsFlag), int(b[i+1])
	seen := b[i]&sightsFlag != 0
	i += 2
	if seen && frames == 0 {
		return 0, ErrMalformed // a marker says nothing of sights: the flag is not canonical
	}
	switch {
	case ack < -1 || start > math.MaxInt32 || slots < 1 || size < 1:
		return 0, ErrMalformed
	case frames > MaxFrames || slots > MaxPlayers || size > MaxInputSize:
		return 0, ErrLimit
	case int64(start)+int64(frames)-1 > math.MaxInt32:
		return 0, ErrMalformed
	}
	total := int(frames) * slots * size
	if total > len(inputs) {
		return 0, ErrLimit
	}
	out := inputs[:total:total]
	var saw []byte
	if seen {
		k := int(frames) * SightLen
		if k > len(sights) {
			return 0, ErrLimit
		}
		saw = sights[:k:k]
	}
	if frames > 0 {
		if i, err = decodeRLE(b, i, out, slots*size); err != nil {
			return 0, err
		}
		if seen {
			if i, err = decodeRLE(b, i, saw, SightLen); err != nil {
				return 0, err
			}
			if err := checkSights(saw); err != nil {
				return 0, err
			}
		}
	}
	n, err := end(b, i)
	if err != nil {
		return 0, err
	}
	*m = AuthInput{Seq: seq, Ack: ack, Start: int32(start), Frames: int(frames), Slots: slots, Size: size, Inputs: out, Sights: saw}
	return n, nil
}
