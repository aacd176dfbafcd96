package playout_test

import (
	"encoding/binary"
	"testing"

	"github.com/rollnet/rollnet/playout"
)

// FuzzQueue feeds a queue hostile frame numbers (each 4 bytes: a frame, or
// with the top bit of the first byte's pair set, a tick) and checks what
// must hold whatever arrives: no panic, never more than Capacity held, the
// state handed out is the state pushed for its frame, and applied frames
// only go forward except at a Restart.
func FuzzQueue(f *testing.F) {
	seed := func(frames ...int32) []byte {
		var b []byte
		for _, fr := range frames {
			b = binary.LittleEndian.AppendUint32(b, uint32(fr))
		}
		return b
	}
	const tick = -1 << 31 // MinInt32 is a tick
	f.Add(seed(1, 2, 3, tick, 4, tick, 6, tick, tick, 5, tick))
	f.Add(seed(1, 1, tick, 1000, tick, -5, tick, 2147483647, tick))
	f.Add(seed(3, 2, 1, tick, tick, tick, tick))
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := playout.NewQueue[int32](playout.QueueConfig{Depth: 3, Start: 2, LostAhead: 50})
		if err != nil {
			t.Fatal(err)
		}
		last, started := int32(0), false
		for len(b) >= 4 {
			fr := int32(binary.LittleEndian.Uint32(b))
			b = b[4:]
			if fr != tick {
				q.Push(fr, &fr)
			} else {
				out, frame, s := q.Tick()
				if out != playout.Coast {
					if *s != frame {
						t.Fatalf("state %d handed out for frame %d", *s, frame)
					}
					if out == playout.Apply && started && frame <= last {
						t.Fatalf("applied %d after %d", frame, last)
					}
					last, started = frame, true
				}
			}
			if q.Len() > q.Config().Capacity {
				t.Fatalf("holds %d", q.Len())
			}
		}
	})
}
