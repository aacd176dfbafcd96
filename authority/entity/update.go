package entity

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// tagUpdate opens an update (host to client).
const tagUpdate = 0xE5

// Record kinds: the two low bits of a record's head.
const (
	kindEntered = 0 // the entity joined the client's set; its whole state follows
	kindChanged = 1 // its state changed since the client acknowledged it; the whole state follows
	kindLeft    = 2 // it left the client's set (or was despawned)
)

// updateHeaderMax bounds an update's bytes outside its records.
const updateHeaderMax = 2 + 5 + 5 + 5 + 4

// update is one datagram of entity records from the host to a client.
//
//	tag     byte 0xE5
//	epoch   byte      the client's set's epoch; a newer one clears the mirror
//	seq     uvarint   the update's number to this client (from 1)
//	tick    uvarint   the host tick the states are of
//	count   uvarint   records
//	records count times, by ascending index:
//	  head  uvarint   (index - next)<<2 | kind, next = previous index + 1 (0 first)
//	  gen   uvarint   the key's generation
//	  state size bytes, for entered and changed: the game's encoding
//	crc     uint32 LE CRC32-C of the bytes before it
//
// States are absolute (the whole encoding), so applying a record twice,
// or after a newer one, is harmless once the receiver keeps the newer.
type update struct {
	epoch   uint8
	seq     uint32
	tick    uint32
	count   int
	records []byte // count records, checked by parseUpdate
}

// appendUpdateHeader appends an update's fields before its records.
func appendUpdateHeader(b []byte, epoch uint8, seq, tick uint32, count int) []byte {
	b = append(b, tagUpdate, epoch)
	b = binary.AppendUvarint(b, uint64(seq))
	b = binary.AppendUvarint(b, uint64(tick))
	return binary.AppendUvarint(b, uint64(count))
}

// record is one record of an update.
type record struct {
	index uint32
	kind  uint8
	gen   uint16
	state []byte // aliases the update, for entered and changed
}

// recordLen is the length of a record of index after next, with a
// state of size bytes (0 for left).
func recordLen(index, next uint32, kind uint8, gen uint16, size int) int {
	return uvarintLen(uint64(index-next)<<2|uint64(kind)) + uvarintLen(uint64(gen)) + size
}

// appendRecord appends r, which follows a record of index next-1.
func appendRecord(b []byte, next uint32, r record) []byte {
	b = binary.AppendUvarint(b, uint64(r.index-next)<<2|uint64(r.kind))
	b = binary.AppendUvarint(b, uint64(r.gen))
	return append(b, r.state...)
}

// finishUpdate appends the checksum of the update that starts at start.
func finishUpdate(b []byte, start int) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// parseRecord reads the record at the start of b, which follows a record
// of index next-1, in an update of states of size bytes and a table of
// capacity slots.
func parseRecord(b []byte, next uint32, size, capacity int) (r record, n int, err error) {
	head, k := binary.Uvarint(b)
	if err := varintErr(k, head, uint64(capacity)<<2); err != nil {
		return r, 0, err
	}
	n = k
	r.kind = uint8(head & 3)
	idx := uint64(next) + head>>2
	if r.kind > kindLeft || idx >= uint64(capacity) {
		return r, 0, ErrMalformed
	}
	r.index = uint32(idx)
	gen, k := binary.Uvarint(b[n:])
	if err := varintErr(k, gen, 1<<16-1); err != nil {
		return r, 0, err
	}
	r.gen = uint16(gen)
	n += k
	if r.kind != kindLeft {
		if len(b) < n+size {
			return r, 0, io.ErrUnexpectedEOF
		}
		r.state = b[n : n+size : n+size]
		n += size
	}
	return r, n, nil
}

// parseUpdate reads an update and checks each of its records (parse them
// again with parseRecord): io.ErrUnexpectedEOF when b is cut short,
// ErrMalformed when it is not an update, a record is out of range or the
// checksum fails.
func parseUpdate(b []byte, size, capacity int) (u update, n int, err error) {
	if len(b) < 2 {
		return u, 0, io.ErrUnexpectedEOF
	}
	if b[0] != tagUpdate {
		return u, 0, ErrMalformed
	}
	u.epoch = b[1]
	n = 2
	var vals [3]uint64
	for i, max := range [3]uint64{1<<32 - 1, 1<<32 - 1, uint64(capacity)} {
		v, k := binary.Uvarint(b[n:])
		if err := varintErr(k, v, max); err != nil {
			return u, 0, err
		}
		vals[i] = v
		n += k
	}
	u.seq, u.tick, u.count = uint32(vals[0]), uint32(vals[1]), int(vals[2])
	start, next := n, uint32(0)
	for range u.count {
		r, k, err := parseRecord(b[n:], next, size, capacity)
		if err != nil {
			return u, 0, err
		}
		n += k
		next = r.index + 1
	}
	u.records = b[start:n:n]
	if len(b) < n+4 {
		return u, 0, io.ErrUnexpectedEOF
	}
	if binary.LittleEndian.Uint32(b[n:]) != crc32.Checksum(b[:n], castagnoli) {
		return u, 0, ErrMalformed
	}
	return u, n + 4, nil
}
