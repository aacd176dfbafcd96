package local_test

import (
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// nasty is a link with every impairment on.
var nasty = local.Link{
	Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond,
	Loss: 0.02, Burst: local.Burst{Enter: 0.01, Leave: 0.3},
	Duplicate: 0.05, Reorder: 0.05,
}

// script runs a fixed scenario of three endpoints on seed and returns every
// delivery, byte for byte, as text. With chatter, c also talks to a and b,
// which must not change a and b's own traffic.
func script(t *testing.T, seed uint64, chatter bool) (all string, ab string) {
	f := newFixture(t, local.Config{Seed: seed, Link: nasty}, "a", "b", "c")
	require.NoError(t, f.net.SetLink("b", "a", local.Link{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Loss: 0.1, Ordered: true}))
	var log, abLog strings.Builder
	payload := make([]byte, transport.MaxDatagram)
	for i := range 3000 {
		// Sizes and contents vary with i so that byte-level mix-ups show.
		n := 8 + (i*131)%(transport.MaxDatagram-8)
		for j := range payload[:n] {
			payload[j] = byte(i + j*7)
		}
		require.NoError(t, f.eps["a"].Send("b", payload[:n]))
		require.NoError(t, f.eps["b"].Send("a", payload[:n/2+1]))
		if chatter {
			require.NoError(t, f.eps["c"].Send("a", payload[:n/3+1]))
			require.NoError(t, f.eps["c"].Send("b", payload[:n/4+1]))
			require.NoError(t, f.eps["a"].Send("c", payload[:9]))
		}
		if i == 1000 {
			f.net.Partition("a", "b")
		}
		if i == 1100 {
			f.net.Heal("a", "b")
		}
		f.clock.Advance(time.Duration(1+i%17) * time.Millisecond)
		for _, name := range []string{"a", "b", "c"} {
			n, from, err := f.eps[name].Receive(f.buf)
			for err == nil {
				line := fmt.Sprintf("%v %s<-%s %d %08x\n", f.clock.Now().Sub(epoch), name, from, n, crc32.ChecksumIEEE(f.buf[:n]))
				log.WriteString(line)
				if from != "c" && name != "c" {
					abLog.WriteString(line)
				}
				n, from, err = f.eps[name].Receive(f.buf)
			}
			require.ErrorIs(t, err, transport.ErrNoPacket)
		}
	}
	return log.String(), abLog.String()
}

func TestDeterministic(t *testing.T) {
	all1, ab1 := script(t, 1234, true)
	all2, ab2 := script(t, 1234, true)
	require.Equal(t, all1, all2, "same seed, same calls, different deliveries")
	require.Equal(t, ab1, ab2)
	require.Greater(t, strings.Count(all1, "\n"), 5000)

	all3, _ := script(t, 1235, true)
	require.NotEqual(t, all1, all3, "another seed, same deliveries")

	// Traffic on the links to and from c leaves a↔b's deliveries alone.
	_, abQuiet := script(t, 1234, false)
	require.Equal(t, ab1, abQuiet, "traffic on other links changed a↔b's randomness")
}

func TestLinkSeedsDiffer(t *testing.T) {
	// The two directions of a link, and links between other names, draw
	// different streams from the same network seed.
	f := newFixture(t, local.Config{Seed: 0, Link: local.Link{Loss: 0.5}}, "a", "b", "c")
	pattern := func(from, to string) string {
		var s strings.Builder
		for i := range 64 {
			f.sendSeq(from, to, uint64(i))
			if len(f.drain(to)) == 0 {
				s.WriteByte('x')
			} else {
				s.WriteByte('.')
			}
		}
		return s.String()
	}
	seen := map[string]string{}
	for _, d := range [][2]string{{"a", "b"}, {"b", "a"}, {"a", "c"}, {"c", "a"}, {"b", "c"}, {"c", "b"}} {
		p := pattern(d[0], d[1])
		for k, q := range seen {
			require.NotEqual(t, q, p, "%s→%s and %s draw the same stream", d[0], d[1], k)
		}
		seen[d[0]+"→"+d[1]] = p
	}
}
