//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rollnet/rollnet/internal/transportfigures"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/udp"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// The host path over a real transport (issue 39): the host of
// BenchmarkHostPath's floor, the same datagrams (hostPathInput bytes in
// and hostPathState bytes out a client a tick), over one of
// hostPathTransports, its clients in a child process (this test binary,
// started with hostPathChildEnv) so that the host process's CPU time is
// the host's alone. The ticks run back to back like the floor's: a tick
// sends every client its state and ends when every client's input came
// back (each client answers a state with an input), or after
// hostPathTickBound. The host polls Receive, sleeping hostPathPoll
// when nothing waits: a handful of wake-ups a tick, well under a
// microsecond a client from 16 clients on.
//
// Where the QUIC host's time goes (2026-12-07, 64 clients, 28.6 us a
// client a tick, 8.2x the floor; ROLLNET_HOSTPATH=full go test -run '^$'
// -bench 'HostPath/quic/clients=64$' -benchtime 15x -cpuprofile cpu.prof
// ./bench/, then go tool pprof -top -cum):
//   - quic-go's connection loops (Conn.run) 38% of the process: of it
//     sendQueue.Run 23%, nearly all one sendmsg a packet (17%): GSO batches
//     the packets of one connection, and a tick has one packet for each,
//     so nothing is batched across connections as sendmmsg would; packet
//     handling (ACK processing, decryption) 14%.
//   - quic-go's socket reader (Transport.listen: recvmmsg 8 at a time)
//     10%.
//   - The Go scheduler between these goroutines (selectgo, schedule,
//     findRunnable, futex, wakep) 15-20%: a datagram crosses 5 goroutines
//     the floor does not have. Out: Send queues it, our sendLoop wakes
//     and hands it to quic-go's SendDatagram, the connection's run loop
//     packs it, its sendQueue goroutine writes it (3 handoffs). In:
//     quic-go's reader hands the packet to the connection's run loop, the
//     run loop's datagram queue wakes our readLoop (2 handoffs); Receive
//     polls the queue without one.
//   - AES-GCM and header protection about 8%, malloc and GC about 7%,
//     our transport (Send, Receive, sendLoop, readLoop) about 10%.
// Allocations (the same run, -memprofilerate 1): 6.1 a datagram for the
// whole host process, none of them ours (transport/quic's loops and
// queues reuse their buffers). quic-go: SendDatagram 2 a datagram sent
// (its frame and a copy of the payload), composeNextPacket 1 and the
// sent-packet history 0.5 a packet, net.ipToSockaddr 1.5 a packet sent
// (WriteMsgUDP with an address, where a connected socket or a cached
// sockaddr would have none); in, parseDatagramFrame and
// HandleDatagramFrame 2 each a datagram received, and
// golang.org/x/net's parseInetAddr one a packet read by ReadBatch. Each
// of those could move upstream (a pooled datagram frame, a receive
// callback instead of a copied queue entry, a cached sockaddr).
//
// Where transport/udp's host time went at 16 clients (2026-12-07, 20 to
// 26 us a client a tick, 5 to 6x the floor; the same profile,
// -bench 'HostPath/transport=udp/clients=16$' -benchtime 100x, the
// floor's own samples ignored): the Go scheduler's idle path
// (findRunnable, netpoll's epoll_wait) 56%, the write loop's sendmmsg
// 32% (one a tick: the writer woke once a tick already), the read loop
// 8% (4 wake-ups a tick at 16 clients, 12 at 64, of 4 to 5 datagrams
// each, and a recvmmsg that found nothing after each). Two changes cut
// it: Receive reads the socket itself while the game calls it, so the
// read loop is not woken, and the socket is kept out of Go's network
// poller, whose epoll woke a thread for every datagram that arrived even
// with no goroutine waiting. After: 8 to 12 us at 16 clients (1.9 to
// 3.0x), the scheduler's share 48% of a smaller total, most of it the
// host loop's own hostPathPoll sleeps.

// hostPathTransport is one transport BenchmarkHostPath runs the host over:
// to add one, write its listen and dial and add it to hostPathTransports.
type hostPathTransport struct {
	name string
	// listen starts a host for n clients on loopback; it returns the
	// host, what a client needs to reach it (handed to dial in the
	// clients' process) and a wait for the n clients. Its cleanups are
	// b's.
	listen func(b *testing.B, n int) (host transport.Transport, reach string, wait func(context.Context) ([]transport.Peer, error))
	// dial connects one client, in the clients' process, and returns it
	// and the host's peer.
	dial func(ctx context.Context, reach string) (transport.Transport, transport.Peer, error)
	// wire is what it adds to the datagrams on the wire.
	wire transportfigures.Overhead
	// dialers is how many clients dial at once (0: one at a time).
	dialers int
	// heavy are the client counts run only with ROLLNET_HOSTPATH=full
	// (go run ./bench sets it), to keep CI's one run of every benchmark
	// cheap; skip are those never run, with the reason.
	heavy []int
	skip  map[int]string
}

// hostPathTransports are the transports beside the UDP floor.
var hostPathTransports = []hostPathTransport{
	{name: "quic", listen: quicHostPath, dial: quicClientPath, wire: transportfigures.QUIC, heavy: []int{64, 256}},
	{name: "udp", listen: udpHostPath, dial: udpClientPath, wire: transportfigures.SealedUDP, dialers: 8, heavy: []int{64, 256}},
	{name: "webrtc", listen: webrtcHostPath, dial: webrtcClientPath, wire: transportfigures.WebRTC, dialers: 8, heavy: []int{64},
		skip: map[int]string{256: "256 WebRTC clients and their host are more than 2 shared cores connect in the bench's bound"}},
}

const (
	hostPathChildEnv  = "ROLLNET_HOSTPATH_CLIENTS"
	hostPathTickBound = 250 * time.Millisecond
	hostPathPoll      = 500 * time.Microsecond
	hostPathConnect   = 90 * time.Second // every client connected
)

func quicHostPath(b *testing.B, n int) (transport.Transport, string, func(context.Context) ([]transport.Peer, error)) {
	h, err := quic.Listen("127.0.0.1:0", quic.Config{MaxPeers: n + 2, Tuning: quic.Tuning{MaxConnsPerAddr: n + 2, QueueLen: 2 * n}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	return h, h.Addr().String() + " " + quic.FormatHash(h.CertHash()),
		func(ctx context.Context) ([]transport.Peer, error) { return h.WaitPeers(ctx, n) }
}

func quicClientPath(ctx context.Context, reach string) (transport.Transport, transport.Peer, error) {
	addr, hash, _ := strings.Cut(reach, " ")
	pin, err := quic.ParseHash(hash)
	if err != nil {
		return nil, "", err
	}
	c, err := quic.Dial(ctx, addr, quic.Config{PinSHA256: pin})
	if err != nil {
		return nil, "", err
	}
	return c, c.Host(), nil
}

func webrtcHostPath(b *testing.B, n int) (transport.Transport, string, func(context.Context) ([]transport.Peer, error)) {
	srv, err := signaling.NewServer(signaling.ServerConfig{
		MaxRoomSize: n + 1,
		Tuning:      signaling.ServerTuning{RoomJoinRate: n + 1, RoomJoinBurst: 2 * (n + 1), MaxConnsPerAddr: n + 8, MessageRate: 1000, MessageBurst: 1000},
	})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); _ = hs.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close(); _ = hs.Close(); <-served })
	url := "ws://" + ln.Addr().String() + "/room/hostpath"
	ctx, cancel := context.WithTimeout(context.Background(), hostPathConnect)
	defer cancel()
	h, err := webrtc.Dial(ctx, url, webrtc.Config{LoopbackOnly: true, MaxPeers: n + 2, Tuning: webrtc.Tuning{QueueLen: 2 * n}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	return h, url + " " + string(h.Local()),
		func(ctx context.Context) ([]transport.Peer, error) { return h.WaitPeers(ctx, n) }
}

func webrtcClientPath(ctx context.Context, reach string) (transport.Transport, transport.Peer, error) {
	url, host, _ := strings.Cut(reach, " ")
	c, err := webrtc.Dial(ctx, url, webrtc.Config{LoopbackOnly: true,
		Accept: func(p transport.Peer) bool { return p == transport.Peer(host) }})
	if err != nil {
		return nil, "", err
	}
	if _, err := c.WaitPeers(ctx, 1); err != nil {
		_ = c.Close()
		return nil, "", err
	}
	return c, transport.Peer(host), nil
}

// hostPathFull says whether the heavy client counts run.
func hostPathFull() bool { return os.Getenv(hostPathFullEnv) == "full" }

// benchHostOver is the sub-benchmark of one transport at n clients: the
// host process's CPU time a client a tick (ns/client-tick), beside it
// the batched floor measured in this process (floor-ns/client-tick) and
// the ratio (x-floor), the allocations of the whole host process a
// datagram moved (allocs/datagram, in and out counted), the inputs
// that did not arrive within the tick's bound (lost/tick), and the
// traffic on the wire (reportWire).
func benchHostOver(b *testing.B, tr hostPathTransport, n int) {
	if why, ok := tr.skip[n]; ok {
		b.Skip(why)
	}
	for _, h := range tr.heavy {
		if h == n && !hostPathFull() {
			b.Skipf("%d clients over %s run with %s=full (go run ./bench sets it)", n, tr.name, hostPathFullEnv)
		}
	}
	floor := hostPathFloor(b, n)
	host, reach, wait := tr.listen(b, n)
	peers := startHostPathClients(b, tr, n, reach, wait)
	p := &hostOver{tr: host, peers: peers, out: make([]byte, hostPathState), buf: make([]byte, transport.MaxDatagram)}
	if err := p.ticks(hostPathWarm); err != nil {
		b.Fatal(err)
	}
	p.lost = 0
	var cpu time.Duration
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	ticks := 0
	for b.Loop() {
		start := processCPU()
		if err := p.ticks(hostPathTicks); err != nil {
			b.Fatal(err)
		}
		cpu += processCPU() - start
		ticks += hostPathTicks
	}
	runtime.ReadMemStats(&ms1)
	per := float64(cpu) / float64(ticks*n)
	b.ReportMetric(per, "ns/client-tick")
	b.ReportMetric(floor, "floor-ns/client-tick")
	b.ReportMetric(per/floor, "x-floor")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(2*ticks*n), "allocs/datagram")
	b.ReportMetric(float64(p.lost)/float64(ticks), "lost/tick")
	reportWire(b, tr.wire, ticks*n, ticks*n-p.lost, n)
	if p.lost > 0 {
		switch h := host.(type) {
		case quic.Transport:
			b.Logf("%+v", h.Stats())
		case webrtc.Transport:
			b.Logf("%+v", h.Stats())
		case udp.Transport:
			b.Logf("%+v", h.Stats())
		}
	}
}

// hostPathRate is the tick rate the wire figures are given at.
const hostPathRate = 60

// reportWire reports the host's traffic on the wire a client a second at
// hostPathRate, both ways, computed from the datagrams of the run (sent
// states, received inputs) and o's overhead: B/s/client and pkts/s/client
// on the wire, payload-B/s/client, and their ratio wire/payload.
func reportWire(b *testing.B, o transportfigures.Overhead, sent, got, n int) {
	scale := float64(hostPathRate) / (float64(sent) / float64(n)) // a client's datagrams a tick, to a second
	out := o.Out(float64(sent)*scale/float64(n), float64(sent*hostPathState)*scale/float64(n), float64(got)*scale/float64(n))
	in := o.Out(float64(got)*scale/float64(n), float64(got*hostPathInput)*scale/float64(n), float64(sent)*scale/float64(n))
	payload := float64(sent*hostPathState+got*hostPathInput) * scale / float64(n)
	b.ReportMetric(out.Bytes+in.Bytes, "B/s/client")
	b.ReportMetric(out.Packets+in.Packets, "pkts/s/client")
	b.ReportMetric(payload, "payload-B/s/client")
	b.ReportMetric((out.Bytes+in.Bytes)/payload, "wire/payload")
}

// hostOver is the host's side of a transport's run.
type hostOver struct {
	tr       transport.Transport
	peers    []transport.Peer
	out, buf []byte
	lost     int // inputs that did not come back within a tick's bound
}

// ticks plays k ticks: every client's state out, every client's input
// back.
func (p *hostOver) ticks(k int) error {
	for range k {
		for _, to := range p.peers {
			if err := p.tr.Send(to, p.out); err != nil {
				return fmt.Errorf("send to %s: %w", to, err)
			}
		}
		bound := time.Now().Add(hostPathTickBound)
		for got := 0; got < len(p.peers); {
			_, _, err := p.tr.Receive(p.buf)
			switch {
			case err == nil:
				got++
			case !errors.Is(err, transport.ErrNoPacket):
				return err
			case time.Now().After(bound):
				p.lost += len(p.peers) - got
				got = len(p.peers)
			default:
				time.Sleep(hostPathPoll)
			}
		}
	}
	return nil
}

// processCPU is the CPU time this process has used (not its children's).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// floors caches the batched floor by client count, measured once a
// process.
var floors = map[int]float64{}

// hostPathFloor is the batched UDP floor at n clients, in ns a client a
// tick: the floor sub-benchmark's figure when it ran in this process,
// else the least of three runs of hostPathTicks ticks.
func hostPathFloor(b *testing.B, n int) float64 {
	if f, ok := floors[n]; ok {
		return f
	}
	p := newHostPath(b, n, true)
	best := int64(-1)
	for range 3 {
		if c := p.run(b, hostPathTicks); best < 0 || c < best {
			best = c
		}
	}
	floors[n] = float64(best) / float64(hostPathTicks*n)
	return floors[n]
}

// startHostPathClients starts the clients' process and returns the host's
// peers once all n are connected; the process ends at b's cleanup.
func startHostPathClients(b *testing.B, tr hostPathTransport, n int, reach string,
	wait func(context.Context) ([]transport.Peer, error)) []transport.Peer {
	ch, err := transportfigures.StartChild(hostPathChildEnv, tr.name+"|"+strconv.Itoa(n)+"|"+reach)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := ch.Stop(); err != nil {
			b.Errorf("the clients' process: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), hostPathConnect)
	defer cancel()
	peers, err := ch.Connected(ctx, wait)
	if err != nil {
		b.Fatalf("%d clients over %s: %v", n, tr.name, err)
	}
	return peers
}

// hostPathClientsMain runs BenchmarkHostPath's clients and exits, when
// this test binary was started as their process; otherwise it returns.
func hostPathClientsMain() {
	transportfigures.ChildMain(hostPathChildEnv, "host path clients", runHostPathClients)
}

// runHostPathClients dials the clients of spec (transport|n|reach), says
// ready, and answers every state with an input until stdin closes.
func runHostPathClients(spec string) error {
	f := strings.SplitN(spec, "|", 3)
	if len(f) != 3 {
		return fmt.Errorf("bad spec %q", spec)
	}
	var tr *hostPathTransport
	for i := range hostPathTransports {
		if hostPathTransports[i].name == f[0] {
			tr = &hostPathTransports[i]
		}
	}
	n, err := strconv.Atoi(f[1])
	if tr == nil || err != nil {
		return fmt.Errorf("bad spec %q", spec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostPathConnect)
	defer cancel()
	clients := make([]transport.Transport, n)
	hosts := make([]transport.Peer, n)
	defer func() {
		for _, c := range clients {
			if c != nil {
				_ = c.Close()
			}
		}
	}()
	errs := make(chan error, n)
	slots := make(chan struct{}, max(1, tr.dialers))
	for i := range n {
		slots <- struct{}{}
		go func() {
			defer func() { <-slots }()
			c, h, err := tr.dial(ctx, f[2])
			clients[i], hosts[i] = c, h
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			return err
		}
	}
	stdinClosed := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(stdinClosed) }()
	fmt.Println("ready")
	in := make([]byte, hostPathInput)
	buf := make([]byte, transport.MaxDatagram)
	for {
		select {
		case <-stdinClosed:
			return nil
		default:
		}
		answered := false
		for i, c := range clients {
			for {
				if _, _, err := c.Receive(buf); err != nil {
					break
				}
				_ = c.Send(hosts[i], in)
				answered = true
			}
		}
		if !answered {
			time.Sleep(hostPathPoll)
		}
	}
}
