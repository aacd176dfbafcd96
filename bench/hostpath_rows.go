package main

import "fmt"

// hostPathFullEnv set to "full" runs BenchmarkHostPath's heavy sizes (64
// and 256 clients over the transports): go run ./bench sets it for the
// benchmarks it runs; CI's one run of every benchmark leaves it unset.
const hostPathFullEnv = "ROLLNET_HOSTPATH"

// hostPathRows are BenchmarkHostPath's (issue 39): the host's CPU a client
// a tick for moving a tick's datagrams through plain UDP sockets, one
// system call a datagram beside the batched floor, and over each
// transport beside the batched floor measured in the same process.
func hostPathRows() []row {
	var out []row
	for _, n := range []int{16, 64, 256} {
		floor := fmt.Sprintf("HostPath/transport=udp-batched/clients=%d", n)
		out = append(out,
			row{Name: fmt.Sprintf("host path: UDP batched, %d cl", n), Bench: floor, Unit: "ns/client-tick",
				NoBase: "the floor: a tick's 32-B inputs in and 200-B states out by recvmmsg/sendmmsg on loopback, " +
					"the host thread's CPU"},
			row{Name: fmt.Sprintf("host path: UDP a datagram, %d cl", n),
				Bench: fmt.Sprintf("HostPath/transport=udp-unbatched/clients=%d", n), Unit: "ns/client-tick",
				Base: floor, BaseName: "batched UDP floor"})
		for _, tr := range []struct{ name, bench string }{{"QUIC", "quic"}, {"WebRTC", "webrtc"}, {"transport/udp", "udp"}} {
			if tr.bench == "webrtc" && n == 256 {
				continue // not run: see hostPathTransports
			}
			b := fmt.Sprintf("HostPath/transport=%s/clients=%d", tr.bench, n)
			out = append(out, row{Name: fmt.Sprintf("host path: %s, %d cl", tr.name, n), Bench: b, Unit: "ns/client-tick",
				Base: b, BaseUnit: "floor-ns/client-tick", BaseName: "batched UDP floor"})
		}
	}
	// The traffic on the wire a client a second at 60 Hz, headers and
	// acknowledgements included, beside its payload (computed from the
	// datagram counts: transportfigures.Overhead).
	for _, tr := range []struct{ name, bench string }{{"UDP", "udp-batched"}, {"QUIC", "quic"}, {"WebRTC", "webrtc"}, {"transport/udp", "udp"}} {
		b := fmt.Sprintf("HostPath/transport=%s/clients=16", tr.bench)
		out = append(out, row{Name: fmt.Sprintf("wire a client: %s", tr.name), Bench: b, Unit: "B/s/client",
			Base: b, BaseUnit: "payload-B/s/client", BaseName: "payload"})
	}
	return out
}
