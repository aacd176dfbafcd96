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
