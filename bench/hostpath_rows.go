package main

import "fmt"

// hostPathRows are BenchmarkHostPath's (issue 39): the host's CPU a client
// a tick for moving a tick's datagrams through plain UDP sockets, one
// system call a datagram beside the batched floor.
func hostPathRows() []row {
	var out []row
	for _, n := range []int{16, 64, 256} {
		floor := fmt.Sprintf("HostPath/transport=udp-batched/clients=%d", n)
		out = append(out,
			row{Name: fmt.Sprintf("host path: UDP batched, %d cl", n), Bench: floor, Unit: "ns/client-tick",
				NoBase: "the floor: a tick's 32-B inputs in and 200-B states out by recvmmsg/sendmmsg on loopback, " +
					"the host thread's CPU"},
			row{Name: fmt.Sprintf("host path: UDP a datagram, %d cl", n),
				Bench: fmt.Sprintf("HostPath/transport=udp/clients=%d", n), Unit: "ns/client-tick",
				Base: floor, BaseName: "batched UDP floor"})
	}
	return out
}
