package wire

import (
	"encoding/binary"
	"math"
)

// StateBody is a host state for one client, as it travels inside
// StateFragments: every player's input at Frame and the state at Frame,
// XORed with those at Base (a state this client holds: the newest it
// acknowledged, or the previous one sent it)
// and range coded as one (rangecode.go); now and then the state's checksum and what
// the host applied of the client's inputs; and the host's time-dilation
// advice when it changed.
//
// Layout (body version 5, authority protocol 7), varints minimal (no
// header: a body travels in fragments). First the head, this client's:
//
//	Flags     u8: 1<<7 always (a body sent whole is told from a fragment
//	          by it, see StateFragment), C<<6 (Checked: Checksum and
//	          InputAck follow), A<<5 (Advice: Depth and Rate follow), and
//	          D, 0..MaxBaseDistance: Frame-Base, or 0 for a full state
//	          (Base -1), which is always Checked
//	Frame     a full state: uvarint(Frame), Frame >= 0; else u16 LE, the
//	          low 16 bits of Frame: the decoder takes the frame with those
//	          bits nearest to one it is given (a client's newest state: a
//	          state it can decode is at most MaxBaseDistance frames past
//	          it, and one 32,768 frames stale is past the link's sequence
//	          window), so a long match costs no third byte
//	InputAck  (C only) zigzag varint(InputAck-Frame): the newest input
//	          frame of this client the host heard, >= -1 (-1 none)
//	Depth     (A only) zigzag varint: how early the client's inputs
//	          arrive, in tenths of a frame (protocol 2: hundredths)
//	Rate      (A only) zigzag varint: the advised change of the client's
//	          tick rate, in thousandths, |Rate| <= MaxRate
//	Lease     (A only; protocol 5) uvarint, 0..MaxLease: the client may
//	          simulate the frames before Frame+Lease (a host that may hold
//	          the match, authority.HostConfig.Absence); 0: no bound
//
// then the coded part, which depends on Frame and Base alone (every client
// that acknowledged the same Base is sent the same bytes):
//
//	Checksum  (C only) u32 LE: CRC32-C of the whole state (not of the
//	          delta)
//	Data      every player's input at Frame then the state, XORed with
//	          those at Base (as they are when full), range coded to the
//	          end of the body (rangecode.go: an adaptive model of a sparse
//	          delta, started afresh in every body)
//
// The sizes of the inputs and of the state are not sent: host and client
// agree on them (they are in the authority's settings hash), and the
// decoder is given them. Body version 4 (authority protocol 6) range
// coded Data with a model of byte gaps (no word positions), a raw Data
// flagged by the coder's first bit. Body version 3 (authority protocols 3 to 5)
// run-length coded Data (Input's coding, nothing XORed frame to frame)
// without its trailing zeros. Body version 2 (authority protocol 2) sent
// InputAck and the checksum in every body, coded the inputs and the state
// apart, each with its trailing zeros, and Base as a varint after Frame.
type StateBody struct {
	Frame, Base int32
	// Checked says Checksum and InputAck are sent; a full state (Base
	// -1) always is. A client verifies the states that carry a checksum
	// (and through them the baselines they were coded against).
	Checked bool
	// InputAck is the newest input frame of the client the host heard
	// (Checked only; else zero).
	InputAck int32
	// Advice says Depth and Rate are sent (a client keeps the last it
	// got); without it they are zero.
	Advice      bool
	Depth, Rate int32
	// Lease (Advice only) bounds the client's prediction: it simulates no
	// frame at or past Frame+Lease; 0 sets no bound.
	Lease    int32
	Checksum uint32 // Checked only; else zero
	// Data is every player's input at Frame then the state, XORed with
	// those at Base (themselves when Base is -1): MaxStateInputs bytes of
	// inputs at most, then the state.
	Data []byte
}

// MaxRate bounds StateBody.Rate: a rate change of 100%.
const MaxRate = 1000

// MaxStateInputs bounds the inputs in a StateBody: MaxAuthPlayers players
// of MaxInputSize bytes.
const MaxStateInputs = MaxAuthPlayers * MaxInputSize

// MaxBaseDistance is the most frames between a StateBody's Frame and its
// Base.
const MaxBaseDistance = 31

// bodyMark is the high bit every body's first byte has set.
const bodyMark = 0x80

// Check reports whether Append would encode m.
func (m StateBody) Check() error {
	switch {
	case m.Frame < 0 || m.Base < -1 || m.Base >= m.Frame || (m.Base >= 0 && m.Frame-m.Base > MaxBaseDistance) || len(m.Data) == 0:
		return ErrMalformed
	case m.Base == -1 && !m.Checked, !m.Checked && (m.InputAck != 0 || m.Checksum != 0), m.Checked && m.InputAck < -1:
		return ErrMalformed
	case m.Rate < -MaxRate || m.Rate > MaxRate || (!m.Advice && (m.Depth != 0 || m.Rate != 0 || m.Lease != 0)):
		return ErrMalformed
	case m.Lease < 0 || m.Lease > MaxLease || int64(m.Frame)+int64(m.Lease) > math.MaxInt32:
		return ErrMalformed
	case len(m.Data) > math.MaxInt32:
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

// AppendHead appends the head alone: the flags, Frame, InputAck when
// Checked, and the advice (Depth, Rate) when Advice. It appends nothing
// when Check reports an error.
func (m StateBody) AppendHead(b []byte) []byte {
	if m.Check() != nil {
		return b
	}
	flags := byte(bodyMark)
	if m.Base >= 0 {
		flags |= byte(m.Frame - m.Base)
	}
	if m.Checked {
		flags |= 1 << 6
	}
	if m.Advice {
		flags |= 1 << 5
	}
	b = append(b, flags)
	if m.Base >= 0 {
		b = binary.LittleEndian.AppendUint16(b, uint16(m.Frame))
	} else {
		b = binary.AppendUvarint(b, uint64(m.Frame))
	}
	if m.Checked {
		b = appendInt32(b, m.InputAck-m.Frame)
	}
	if !m.Advice {
		return b
	}
	b = appendInt32(b, m.Depth)
	b = appendInt32(b, m.Rate)
	return binary.AppendUvarint(b, uint64(m.Lease))
}

// AppendCoded appends the coded part alone: Checksum when Checked, then
// Data without its trailing zeros. It appends nothing when Check reports
// an error. A host codes it once per (Base, Frame) and appends it after
// each client's head.
func (m StateBody) AppendCoded(b []byte) []byte {
	if m.Check() != nil {
		return b
	}
	if m.Checked {
		b = binary.LittleEndian.AppendUint32(b, m.Checksum)
	}
	return appendRange(b, m.Data)
}

// ParseStateBody decodes a whole body into m, its Data into data (m.Data
// aliases it): as many bytes as the inputs and the state that host and
// client agree on. A delta's Frame is the one with the low 16 bits sent
// nearest to near (the caller's newest state's frame). The caller XORs
// Data with its copies at Base and checks Checksum when Checked.
func ParseStateBody(b []byte, m *StateBody, data []byte, near int32) (int, error) {
	*m = StateBody{}
	if len(data) == 0 {
		return 0, ErrLimit
	}
	if len(b) == 0 {
		return 0, ErrShort
	}
	flags := b[0]
	if flags&bodyMark == 0 {
		return 0, ErrMalformed
	}
	checked, advice, d := flags&(1<<6) != 0, flags&(1<<5) != 0, int32(flags&MaxBaseDistance)
	var v uint64
	i := 1
	if d == 0 {
		var err error
		if v, i, err = readUvarint(b, 1); err != nil {
			return 0, err
		}
	} else {
		if len(b) < 3 {
			return 0, ErrShort
		}
		low := binary.LittleEndian.Uint16(b[1:])
		i = 3
		f := int64(near) + int64(int16(low-uint16(near)))
		if f < 0 {
			return 0, ErrMalformed
		}
		v = uint64(f)
	}
	var err error
	if v > math.MaxInt32 || int64(d) > int64(v) || (d == 0 && !checked) {
		return 0, ErrMalformed
	}
	frame := int32(v)
	base := int32(-1)
	if d > 0 {
		base = frame - d
	}
	var ack int32
	if checked {
		if ack, i, err = readInt32(b, i); err != nil {
			return 0, err
		}
		if int64(frame)+int64(ack) < -1 || int64(frame)+int64(ack) > math.MaxInt32 {
			return 0, ErrMalformed
		}
		ack += frame
	}
	var depth, rate, lease int32
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
		var l uint64
		if l, i, err = readUvarint(b, i); err != nil {
			return 0, err
		}
		if l > MaxLease || int64(frame)+int64(l) > math.MaxInt32 {
			return 0, ErrMalformed
		}
		lease = int32(l)
	}
	var sum uint32
	if checked {
		if len(b)-i < 4 {
			return 0, ErrShort
		}
		sum = binary.LittleEndian.Uint32(b[i:])
		i += 4
	}
	out := data[:len(data):len(data)]
	if err = decodeRange(b[i:], out); err != nil {
		return 0, err
	}
	i = len(b)
	*m = StateBody{Frame: frame, Base: base, Checked: checked, InputAck: ack, Advice: advice, Depth: depth, Rate: rate,
		Lease: lease, Checksum: sum, Data: out}
	return i, nil
}
