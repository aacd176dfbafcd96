package pacing_test

import (
	"encoding/binary"
	"testing"

	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
)

// FuzzQueue drives a queue with hostile sequences: each 3 bytes are an
// operation and a signed 16-bit frame offset from the newest frame pushed
// so far (so reorders, duplicates, gaps and far jumps all occur), and an
// offset of exactly -32768 pushes math.MinInt32. It checks what must hold
// whatever arrives: no panic, never more than Capacity held, the state
// handed out is the state pushed for its frame, applied frames go forward
// except at a Restart, and a tick applies at most one state.
func FuzzQueue(f *testing.F) {
	op := func(b []byte, o byte, off int16) []byte {
		return binary.LittleEndian.AppendUint16(append(b, o), uint16(off))
	}
	var s []byte
	for _, x := range []struct {
		o   byte
		off int16
	}{{0, 1}, {0, 1}, {0, 1}, {1, 0}, {0, 2}, {1, 0}, {0, -1}, {1, 0}, {1, 0}, {0, 300}, {1, 0}, {2, 0}, {1, 0}, {0, -32768}, {3, 0}} {
		s = op(s, x.o, x.off)
	}
	f.Add(s)
	f.Add(op(op(op(nil, 0, 5), 0, 5), 1, 0))
	s = nil // a state reordered behind a newer one, then ticks
	for _, off := range []int16{1, 1, 1, 0, 2, -1, 0, 0, 0, 0} {
		s = op(s, map[bool]byte{true: 1, false: 0}[off == 0], off)
	}
	f.Add(s)
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := pacing.NewQueue[int32](playout.QueueConfig{Depth: 3, Start: 2, LostAhead: 50})
		if err != nil {
			t.Fatal(err)
		}
		var newest int32
		last, started := int32(0), false
		for ; len(b) >= 3; b = b[3:] {
			off := int16(binary.LittleEndian.Uint16(b[1:]))
			switch b[0] % 4 {
			case 0:
				fr := newest + int32(off)
				if off == -32768 {
					fr = -1 << 31
				}
				newest = max(newest, fr)
				held := q.Len()
				q.Push(fr, &fr)
				if q.Len() > held+1 {
					t.Fatalf("one push, %d more held", q.Len()-held)
				}
			case 1:
				held := q.Len()
				out, frame, s := q.TickAhead(int(off) % 8) // a catch-up's ticks to come, or (negative) none
				if out == pacing.Coast {
					if q.Len() != held {
						t.Fatalf("a coast changed what is held")
					}
					continue
				}
				if *s != frame {
					t.Fatalf("state %d handed out for frame %d", *s, frame)
				}
				if out == pacing.Apply && started && frame <= last {
					t.Fatalf("applied %d after %d", frame, last)
				}
				last, started = frame, true
			case 2:
				q.LoseTimeline()
			case 3:
				if off == 0 {
					q.Reset()
					started = false
				}
			}
			if q.Len() > q.Config().Capacity {
				t.Fatalf("holds %d", q.Len())
			}
		}
	})
}
