package local_test

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// BenchmarkSendReceive is one datagram through the network and out: Send,
// then Receive, on a perfect link and on a link with every impairment. Its
// physical baseline is BenchmarkSendReceiveBaselineCopy, the two memory
// copies a datagram costs at least (go run ./bench pairs them by name). The
// cpu-ns/op metric is the process's CPU time per operation, steadier than
// ns/op on a shared machine.
func BenchmarkSendReceive(b *testing.B) {
	for _, size := range []int{64, 256, transport.MaxDatagram} {
		for _, c := range []struct {
			name string
			link local.Link
		}{{"Perfect", local.Link{}}, {"Nasty", nasty}} {
			b.Run(c.name+"/"+sizeName(size), func(b *testing.B) {
				clock := local.NewClock(epoch)
				net, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now, Link: c.link})
				if err != nil {
					b.Fatal(err)
				}
				a, _ := net.Endpoint("a")
				r, _ := net.Endpoint("b")
				msg := make([]byte, size)
				buf := make([]byte, transport.MaxDatagram)
				// Keep about 16 datagrams in flight, as a game does.
				step := 10 * time.Millisecond
				// The link's state and its lane at the receiver are
				// allocated by its first datagram, once: not measured.
				_ = a.Send("b", msg)
				clock.Advance(time.Second)
				_, _, _ = r.Receive(buf)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				cpu0 := cpuNanos()
				for b.Loop() {
					_ = a.Send("b", msg)
					clock.Advance(step)
					for {
						if _, _, err := r.Receive(buf); err != nil {
							break
						}
					}
				}
				reportCPU(b, cpu0)
			})
		}
	}
}

// BenchmarkSendReceiveBaselineCopy is the floor for BenchmarkSendReceive,
// under the same sub-benchmark names: copying the datagram into a queue
// buffer and out again.
func BenchmarkSendReceiveBaselineCopy(b *testing.B) {
	for _, size := range []int{64, 256, transport.MaxDatagram} {
		for _, name := range []string{"Perfect", "Nasty"} {
			b.Run(name+"/"+sizeName(size), func(b *testing.B) {
				msg := make([]byte, size)
				slot := make([]byte, transport.MaxDatagram)
				buf := make([]byte, transport.MaxDatagram)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				cpu0 := cpuNanos()
				for b.Loop() {
					copy(slot, msg)
					copy(buf, slot[:size])
				}
				reportCPU(b, cpu0)
			})
		}
	}
}

func reportCPU(b *testing.B, cpu0 int64) {
	if cpu1 := cpuNanos(); cpu1 > 0 && b.N > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}

func sizeName(n int) string {
	switch n {
	case 64:
		return "64B"
	case 256:
		return "256B"
	default:
		return "1200B"
	}
}
