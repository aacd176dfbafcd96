package codec

import (
	"encoding/binary"
	"math"
)

// StateBody is a host state for one client, as it travels inside
// StateFragments: the state at Frame and every player's input at Frame,
// both XORed with those at Base (the newest state this client
// acknowledged) and run-length coded; what the host applied for the
// client; the host's time-dilation advice; and the state's checksum.
//
// Layout (body version 2, authority protocol 2), varints minimal (no
// header: a body travels in fragments). First the head, this client's:
//
//	Frame     uvarint(Frame), Frame >= 0
//	Base      uvarint(D<<1 | A): D is Frame-Base, 1..Frame, or 0 for a
//	          full state (Base -1); A is 1 when the advice follows
//	InputAck  zigzag varint(InputAck-Frame): the newest input frame of
//	          this client the host applied, >= -1 (-1 none)
//	Depth     (A only) zigzag varint: how early the client's inputs
//	          arrive, in hundredths of a frame
//	Rate      (A only) zigzag varint: the advised change of the client's
//	          tick rate, in thousandths, |Rate| <= MaxRate
//
// then the coded part, which depends on Frame and Base alone (every client
// that acknowledged the same Base is sent the same bytes):
//
//	Checksum  u32 LE: CRC32-C of the whole state (not of the delta)
//	Inputs    every player's input at Frame XORed with those at Base (as
//	          they are when full), run-length coded as Input's inputs
//	Delta     the state XORed with the Base state (as it is when full),
//	          run-length coded
//
// The sizes of the inputs and of the state are not sent: host and client
// agree on them (they are in the authority's settings hash), and the
// decoder is given them. Body version 1 (authority protocol 1) sent
// Frame+1, Base+1 and InputAck+1 whole, the advice always, the players,
// the input size and the state's size, and the inputs raw: every client's
// bytes grew with the room.
type StateBody struct {
	Frame, Base, InputAck int32
	// Advice says Depth and Rate are sent (a client keeps the last it
	// got); without it they are zero.
	Advice      bool
	Depth, Rate int32
	Checksum    uint32
	// Inputs is every player's input at Frame XOR those at Base (the
	// inputs themselves when Base is -1), MaxStateInputs bytes at most.
	Inputs []byte
	// Delta is the state XOR the Base state (the state itself when Base is
	// -1); its length is the state's size.
	Delta []byte
}

// MaxRate bounds StateBody.Rate: a rate change of 100%.
const MaxRate = 1000

// MaxStateInputs bounds StateBody.Inputs: MaxAuthPlayers players of
// MaxInputSize bytes.
const MaxStateInputs = MaxAuthPlayers * MaxInputSize

// Check reports whether Append would encode m.
func (m StateBody) Check() error {
	switch {
	case m.Frame < 0 || m.Base < -1 || m.Base >= m.Frame || m.InputAck < -1 || len(m.Delta) == 0 || len(m.Inputs) == 0:
		return ErrMalformed
	case m.Rate < -MaxRate || m.Rate > MaxRate || (!m.Advice && (m.Depth != 0 || m.Rate != 0)):
		return ErrMalformed
	case len(m.Inputs) > MaxStateInputs || len(m.Delta) > math.MaxInt32:
		return ErrLimit
	}
	return nil
}

// Append appends the encoded body to b, the head then the coded part; it
// appends nothing when Check reports an error. The caller checks the
// result against MaxStateBody.
func (m StateBody) Append(b []byte) []byte {
	if m.Check() != nil {
		return b
	}
	return m.AppendCoded(m.AppendHead(b))
}

// AppendHead appends the head alone: Frame, Base, InputAck, and the
// advice (Depth, Rate) when Advice.
// It appends nothing when Check reports an error.
func (m StateBody) AppendHead(b []byte) []byte {
	if m.Check() != nil {
		return b
	}
	b = binary.AppendUvarint(b, uint64(m.Frame))
	d := uint64(0)
	if m.Base >= 0 {
		d = uint64(m.Frame - m.Base)
	}
	a := uint64(0)
	if m.Advice {
		a = 1
	}
	b = binary.AppendUvarint(b, d<<1|a)
	b = appendInt32(b, m.InputAck-m.Frame)
	if !m.Advice {
		return b
	}
	b = appendInt32(b, m.Depth)
	return appendInt32(b, m.Rate)
}

// AppendCoded appends the coded part alone: Checksum, Inputs, Delta. It
// appends nothing when Check reports an error. A host codes it once per
// (Base, Frame) and appends it after each client's head.
func (m StateBody) AppendCoded(b []byte) []byte {
	if m.Check() != nil {
		return b
	}
	b = binary.LittleEndian.AppendUint32(b, m.Checksum)
	b = appendRLE(b, m.Inputs, len(m.Inputs))
	return appendRLE(b, m.Delta, len(m.Delta))
}

// ParseStateBody decodes a whole body into m: len(inputs) bytes of
// inputs into inputs and len(delta) bytes of state into delta (m.Inputs
// and m.Delta alias them): the sizes host and client agree on. The
// caller XORs both with its copies at Base and checks Checksum.
func ParseStateBody(b []byte, m *StateBody, inputs, delta []byte) (int, error) {
	*m = StateBody{}
	if len(inputs) == 0 || len(delta) == 0 || len(inputs) > MaxStateInputs {
		return 0, ErrLimit
	}
	v, i, err := readUvarint(b, 0)
	if err != nil {
		return 0, err
	}
	if v > math.MaxInt32 {
		return 0, ErrMalformed
	}
	frame := int32(v)
	d, i, err := readUvarint(b, i)
	if err != nil {
		return 0, err
	}
	advice := d&1 == 1
	d >>= 1
	if d > uint64(frame) {
		return 0, ErrMalformed
	}
	base := int32(-1)
	if d > 0 {
		base = frame - int32(d)
	}
	ack, i, err := readInt32(b, i)
	if err != nil {
		return 0, err
	}
	if int64(frame)+int64(ack) < -1 || int64(frame)+int64(ack) > math.MaxInt32 {
		return 0, ErrMalformed
	}
	var depth, rate int32
	if advice {
		if depth, i, err = readInt32(b, i); err != nil {
			return 0, err
		}
		if rate, i, err = readInt32(b, i); err != nil {
			return 0, err
		}
		if rate < -MaxRate || rate > MaxRate {
			return 0, ErrMalformed
		}
	}
	if len(b)-i < 4 {
		return 0, ErrShort
	}
	sum := binary.LittleEndian.Uint32(b[i:])
	i += 4
	in := inputs[:len(inputs):len(inputs)]
	if i, err = decodeRLE(b, i, in, len(in)); err != nil {
		return 0, err
	}
	dl := delta[:len(delta):len(delta)]
	if i, err = decodeRLE(b, i, dl, len(dl)); err != nil {
		return 0, err
	}
	if i, err = end(b, i); err != nil {
		return 0, err
	}
	*m = StateBody{Frame: frame, Base: base, InputAck: frame + ack, Advice: advice, Depth: depth, Rate: rate,
		Checksum: sum, Inputs: in, Delta: dl}
	return i, nil
}
