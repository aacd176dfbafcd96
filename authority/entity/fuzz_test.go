package entity

import (
	"bytes"
	"testing"
)

// FuzzParseAck: parseAck never panics, and what it accepts encodes back
// to the bytes it read.
func FuzzParseAck(f *testing.F) {
	f.Add(ack{epoch: 1, number: 9, seq: 300, bits: 0xF0F0, count: 12, digest: 0xDEADBEEF}.Append(nil))
	f.Add([]byte{tagAck})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, n, err := parseAck(b)
		if err != nil {
			return
		}
		if got := a.Append(nil); !bytes.Equal(got, b[:n]) {
			t.Fatalf("re-encoded %x, read %x", got, b[:n])
		}
	})
}

// FuzzParseUpdate: parseUpdate never panics, its records parse again
// within the update, and a client applies whatever it accepts.
func FuzzParseUpdate(f *testing.F) {
	f.Add(sampleUpdate())
	f.Add(appendUpdateHeader(nil, 0, 1, 1, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, n, err := parseUpdate(b, 3, 10000)
		if err != nil {
			return
		}
		if n > len(b) {
			t.Fatalf("read %d of %d bytes", n, len(b))
		}
		next, rs := uint32(0), u.records
		for range u.count {
			r, k, err := parseRecord(rs, next, 3, 10000)
			if err != nil {
				t.Fatalf("record after a checked update: %v", err)
			}
			rs, next = rs[k:], r.index+1
		}
		c, err := NewClient(ClientConfig{Capacity: 10000, Size: 3})
		if err != nil {
			t.Fatal(err)
		}
		_ = c.Receive(b)
		_ = c.Receive(b)
	})
}

// FuzzClientApplies: updates with a valid checksum over any bytes (so
// the fuzzer reaches the records) leave the mirror consistent: its count
// and digest are those of the entities it holds.
func FuzzClientApplies(f *testing.F) {
	u := sampleUpdate()
	f.Add(u[:len(u)-4], u[:len(u)-4])
	f.Fuzz(func(t *testing.T, a, b []byte) {
		c, err := NewClient(ClientConfig{Capacity: 10000, Size: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, body := range [][]byte{a, b, a} {
			_ = c.Receive(finishUpdate(append([]byte(nil), body...), 0))
		}
		n, sum := 0, uint64(0)
		for i, held := range c.present {
			if held {
				n++
				sum += mix(Key{Index: uint32(i), Gen: c.gen[i]})
			}
		}
		if n != c.count || sum != c.digest {
			t.Fatalf("mirror holds %d (digest %x), counts %d (digest %x)", n, sum, c.count, c.digest)
		}
	})
}
