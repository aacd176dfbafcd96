package entity

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// tagAck opens an ack (client to host).
const tagAck = 0xE6

// ackWindow is how many updates before the newest an ack names: the
// bits of ack.bits. A client drops an update older than that, so every
// update it applied is one an ack can name.
const ackWindow = 64

// ack is what a client sends back after applying updates: the newest
// update of the epoch it holds, which of the 64 before it it holds, and
// the size and digest of its mirror once they were applied.
//
//	tag     byte 0xE6
//	epoch   byte
//	number  uvarint   the client's acks so far (a later ack has a larger one)
//	seq     uvarint   newest update applied
//	bits    uint64 LE bit i: update seq-1-i applied
//	count   uvarint   entities in the mirror
//	digest  uint64 LE sum of the mirror's key terms
//	crc     uint32 LE CRC32-C of the bytes before it
type ack struct {
	epoch  uint8
	number uint32
	seq    uint32
	bits   uint64
	count  uint32
	digest uint64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Len is the ack's length on the wire.
func (a ack) Len() int {
	return 2 + uvarintLen(uint64(a.number)) + uvarintLen(uint64(a.seq)) + 8 + uvarintLen(uint64(a.count)) + 8 + 4
}

// Append appends the ack to b; it does not allocate when b has room.
func (a ack) Append(b []byte) []byte {
	start := len(b)
	b = append(b, tagAck, a.epoch)
	b = binary.AppendUvarint(b, uint64(a.number))
	b = binary.AppendUvarint(b, uint64(a.seq))
	b = binary.LittleEndian.AppendUint64(b, a.bits)
	b = binary.AppendUvarint(b, uint64(a.count))
	b = binary.LittleEndian.AppendUint64(b, a.digest)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// parseAck reads an ack: io.ErrUnexpectedEOF when b is cut short,
// ErrMalformed when it is not an ack or its checksum fails.
func parseAck(b []byte) (a ack, n int, err error) {
	if len(b) < 2 {
		return a, 0, io.ErrUnexpectedEOF
	}
	if b[0] != tagAck {
		return a, 0, ErrMalformed
	}
	a.epoch = b[1]
	n = 2
	number, k := binary.Uvarint(b[n:])
	if err := varintErr(k, number, 1<<32-1); err != nil {
		return a, 0, err
	}
	a.number = uint32(number)
	n += k
	seq, k := binary.Uvarint(b[n:])
	if err := varintErr(k, seq, 1<<32-1); err != nil {
		return a, 0, err
	}
	a.seq = uint32(seq)
	n += k
	if len(b) < n+8 {
		return a, 0, io.ErrUnexpectedEOF
	}
	a.bits = binary.LittleEndian.Uint64(b[n:])
	n += 8
	count, k := binary.Uvarint(b[n:])
	if err := varintErr(k, count, 1<<32-1); err != nil {
		return a, 0, err
	}
	a.count = uint32(count)
	n += k
	if len(b) < n+8+4 {
		return a, 0, io.ErrUnexpectedEOF
	}
	a.digest = binary.LittleEndian.Uint64(b[n:])
	n += 8
	if binary.LittleEndian.Uint32(b[n:]) != crc32.Checksum(b[:n], castagnoli) {
		return a, 0, ErrMalformed
	}
	return a, n + 4, nil
}

// varintErr is the error of a uvarint read of k bytes giving v, which
// must be at most max.
func varintErr(k int, v, max uint64) error {
	switch {
	case k == 0:
		return io.ErrUnexpectedEOF
	case k < 0 || v > max:
		return ErrMalformed
	}
	return nil
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
