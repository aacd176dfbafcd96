package codec

import (
	"encoding/binary"
	"math"
)

// StateBody is a host state for one client, as it travels inside
// StateFragments: the state at Frame, delta-coded against the state at Base
// (the newest this client acknowledged), what the host applied for the
// client, every player's input at Frame, the host's time-dilation advice,
// and the state's checksum.
//
// Layout, varints minimal (no header: a body travels in fragments):
//
//	Frame     uvarint(uint32(Frame)+1), Frame >= 0
//	Base      uvarint(uint32(Base)+1): -1 means a full state, else Base < Frame
//	InputAck  uvarint(uint32(InputAck)+1): the newest input frame of this
//	          client the host applied, -1 none
//	Depth     zigzag varint: how early the client's inputs arrive, in
//	          hundredths of a frame
//	Rate      zigzag varint: the advised change of the client's tick rate,
//	          in thousandths, |Rate| <= 1000
//	Players   u8 (1..MaxPlayers), Size u8 (1..MaxInputSize)
//	Inputs    Players × Size bytes, every player's input at Frame
//	Len       uvarint: the state's size in bytes, >= 1
//	Checksum  u32 LE: CRC32-C of the whole state (not of the delta)
//	Delta     the state XORed with the Base state (with zeros when full),
//	          run-length coded as Input's inputs
//
// A state that did not change costs a few bytes; a full state's zero runs
// shrink as well.
type StateBody struct {
	Frame, Base, InputAck int32
	Depth, Rate           int32
	Players, Size         int
	Inputs                []byte
	Checksum              uint32
	// Delta is the state XOR the Base state (the state itself when Base is
	// -1); its length is the state's size.
	Delta []byte
}

// MaxRate bounds StateBody.Rate: a rate change of 100%.
const MaxRate = 1000

// Check reports whether AppendStateBody would encode m.
func (m StateBody) Check() error {
	switch {
	case m.Frame < 0 || m.Base < -1 || m.Base >= m.Frame || m.InputAck < -1 || len(m.Delta) == 0:
		return ErrMalformed
	case m.Players < 1 || m.Size < 1 || len(m.Inputs) != m.Players*m.Size:
		return ErrMalformed
	case m.Rate < -MaxRate || m.Rate > MaxRate:
		return ErrMalformed
	case m.Players > MaxPlayers || m.Size > MaxInputSize:
		return ErrLimit
	}
	return nil
}

// Append appends the encoded body to b; it appends nothing when Check
// reports an error. The caller checks the result against MaxStateBody.
func (m StateBody) Append(b []byte) []byte {
	if m.Check() != nil {
		return b
	}
	b = appendFrame(b, m.Frame)
	b = appendFrame(b, m.Base)
	b = appendFrame(b, m.InputAck)
	b = appendInt32(b, m.Depth)
	b = appendInt32(b, m.Rate)
	b = append(b, byte(m.Players), byte(m.Size))
	b = append(b, m.Inputs...)
	b = binary.AppendUvarint(b, uint64(len(m.Delta)))
	b = binary.LittleEndian.AppendUint32(b, m.Checksum)
	return appendRLE(b, m.Delta, len(m.Delta))
}

// ParseStateBody decodes a whole body into m: the inputs into inputs and
// the delta into delta (m.Inputs and m.Delta alias them). A body claiming
// more than those hold is ErrLimit before anything is copied. The caller
// XORs the delta with its copy of the Base state and checks Checksum.
func ParseStateBody(b []byte, m *StateBody, inputs, delta []byte) (int, error) {
	*m = StateBody{}
	frame, i, err := readFrame(b, 0)
	if err != nil {
		return 0, err
	}
	base, i, err := readFrame(b, i)
	if err != nil {
		return 0, err
	}
	ack, i, err := readFrame(b, i)
	if err != nil {
		return 0, err
	}
	depth, i, err := readInt32(b, i)
	if err != nil {
		return 0, err
	}
	rate, i, err := readInt32(b, i)
	if err != nil {
		return 0, err
	}
	if len(b)-i < 2 {
		return 0, ErrShort
	}
	players, size := int(b[i]), int(b[i+1])
	i += 2
	switch {
	case frame < 0 || base < -1 || base >= frame || ack < -1 || rate < -MaxRate || rate > MaxRate:
		return 0, ErrMalformed
	case players < 1 || size < 1:
		return 0, ErrMalformed
	case players > MaxPlayers || size > MaxInputSize || players*size > len(inputs):
		return 0, ErrLimit
	}
	if len(b)-i < players*size {
		return 0, ErrShort
	}
	in := inputs[: players*size : players*size]
	copy(in, b[i:])
	i += players * size
	n, i, err := readUvarint(b, i)
	if err != nil {
		return 0, err
	}
	if n == 0 || n > math.MaxInt32 {
		return 0, ErrMalformed
	}
	if n > uint64(len(delta)) {
		return 0, ErrLimit
	}
	if len(b)-i < 4 {
		return 0, ErrShort
	}
	sum := binary.LittleEndian.Uint32(b[i:])
	i += 4
	d := delta[:n:n]
	if i, err = decodeRLE(b, i, d, int(n)); err != nil {
		return 0, err
	}
	if i, err = end(b, i); err != nil {
		return 0, err
	}
	*m = StateBody{Frame: frame, Base: base, InputAck: ack, Depth: depth, Rate: rate,
		Players: players, Size: size, Inputs: in, Checksum: sum, Delta: d}
	return i, nil
}
