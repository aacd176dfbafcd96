package main

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/rollnet/rollnet/codec"
)

// sums is the demo's check of the server-authoritative mode, beside the
// mode's own (each host state carries a checksum the client verifies):
// the host sends the CRC32-C of its state after each frame, the client the
// CRC of each host state it applied (the one its paced playout played),
// and each side compares the other's with its own for every frame both
// hold. A difference is a desync, and exits with status 1, as in P2P.
// It travels as a netplay message (Match.Send, Config.OnMessage; a
// dedicated host's through netplay.AppendMessage):
//
//	[codec.Version<<4 | 15] "psum" [first frame u32 LE] [n u8] [crc u32 LE × n]
//
// n is 1 to maxSums, the CRCs are of frames first, first+1, ...
const (
	sumsType  = codec.Version << 4 // the type byte it had as a datagram of its own
	sumsMagic = "psum"
	maxSums   = 16
	sumsMax   = 1 + len(sumsMagic) + 4 + 1 + 4*maxSums
)

// errNotSums: parseSums met something else (a hello, a mode's packet).
var errNotSums = errors.New("pong: not a checksum message")

// errSumsInvalid: parseSums met a checksum message that breaks its rules.
var errSumsInvalid = errors.New("pong: malformed checksum message")

// appendSums appends the message for crcs (1..maxSums of them) of frames
// first onwards to b; it allocates nothing when b has room for sumsMax.
func appendSums(b []byte, first int32, crcs []uint32) []byte {
	crcs = crcs[:min(len(crcs), maxSums)]
	b = append(b, sumsType)
	b = append(b, sumsMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(first))
	b = append(b, byte(len(crcs)))
	for _, c := range crcs {
		b = binary.LittleEndian.AppendUint32(b, c)
	}
	return b
}

// parseSums decodes a whole checksum message b, appending its CRCs to dst.
// It returns errNotSums for anything else, io.ErrUnexpectedEOF for a short
// one, errSumsInvalid for a negative frame, a count out of range or
// trailing bytes.
func parseSums(b []byte, dst []uint32) (first int32, crcs []uint32, err error) {
	const head = 1 + len(sumsMagic)
	if len(b) < head {
		if len(b) > 0 && b[0] != sumsType {
			return 0, dst, errNotSums
		}
		return 0, dst, io.ErrUnexpectedEOF
	}
	if b[0] != sumsType || string(b[1:head]) != sumsMagic {
		return 0, dst, errNotSums
	}
	if len(b) < head+5 {
		return 0, dst, io.ErrUnexpectedEOF
	}
	first = int32(binary.LittleEndian.Uint32(b[head:]))
	n := int(b[head+4])
	switch rest := b[head+5:]; {
	case first < 0 || n < 1 || n > maxSums:
		return 0, dst, errSumsInvalid
	case len(rest) < 4*n:
		return 0, dst, io.ErrUnexpectedEOF
	case len(rest) > 4*n:
		return 0, dst, errSumsInvalid
	default:
		for i := range n {
			dst = append(dst, binary.LittleEndian.Uint32(rest[4*i:]))
		}
	}
	return first, dst, nil
}

// sumsWindow is how many frames of checksums each side keeps, its own and
// the other's: four seconds at 60 fps, past any lag -impair allows.
const sumsWindow = 256

type sumSlot struct {
	frame    int32
	crc      uint32
	compared bool
}

// checks holds this side's checksums and the other side's by frame and
// compares each frame both hold, once.
type checks struct {
	mine, theirs    [sumsWindow]sumSlot
	compared, agree int
	first           int32 // the first frame that differed, -1 if none
	firstMine       uint32
	firstTheirs     uint32
}

func newChecks() checks {
	var c checks
	for i := range c.mine {
		c.mine[i].frame, c.theirs[i].frame = -1, -1
	}
	c.first = -1
	return c
}

func (c *checks) own(f int32, crc uint32) {
	if f < 0 {
		return
	}
	c.mine[f%sumsWindow] = sumSlot{frame: f, crc: crc}
	c.try(f)
}

func (c *checks) other(f int32, crc uint32) {
	if f < 0 {
		return
	}
	s := &c.theirs[f%sumsWindow]
	if s.frame == f {
		return // a duplicate: compared already, or waiting for ours
	}
	*s = sumSlot{frame: f, crc: crc}
	c.try(f)
}

func (c *checks) try(f int32) {
	m, t := &c.mine[f%sumsWindow], &c.theirs[f%sumsWindow]
	if m.frame != f || t.frame != f || m.compared {
		return
	}
	m.compared = true
	c.compared++
	if m.crc == t.crc {
		c.agree++
		return
	}
	if c.first < 0 {
		c.first, c.firstMine, c.firstTheirs = f, m.crc, t.crc
	}
}

func (c *checks) desyncs() int { return c.compared - c.agree }
