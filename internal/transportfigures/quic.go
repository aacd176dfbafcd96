//go:build !js

package transportfigures

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
)

// relay forwards UDP between one client and a server, counting what
// crosses each way.
type relay struct {
	front, back                          *net.UDPConn
	server                               *net.UDPAddr
	client                               atomic.Pointer[net.UDPAddr]
	upBytes, upPkts, downBytes, downPkts atomic.Int64
	done                                 chan struct{}
}

func newRelay(server *net.UDPAddr) (*relay, error) {
	front, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	back, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		_ = front.Close()
		return nil, err
	}
	r := &relay{front: front, back: back, server: server, done: make(chan struct{})}
	go r.up()
	go r.down()
	return r, nil
}

func (r *relay) up() {
	buf := make([]byte, 65536)
	for {
		n, from, err := r.front.ReadFromUDP(buf)
		if err != nil {
			r.done <- struct{}{}
			return
		}
		r.client.Store(from)
		r.upBytes.Add(int64(n))
		r.upPkts.Add(1)
		_, _ = r.back.WriteToUDP(buf[:n], r.server)
	}
}

func (r *relay) down() {
	buf := make([]byte, 65536)
	for {
		n, _, err := r.back.ReadFromUDP(buf)
		if err != nil {
			r.done <- struct{}{}
			return
		}
		r.downBytes.Add(int64(n))
		r.downPkts.Add(1)
		if c := r.client.Load(); c != nil {
			_, _ = r.front.WriteToUDP(buf[:n], c)
		}
	}
}

func (r *relay) reset() {
	r.upBytes.Store(0)
	r.upPkts.Store(0)
	r.downBytes.Store(0)
	r.downPkts.Store(0)
}

func (r *relay) close() {
	_ = r.front.Close()
	_ = r.back.Close()
	<-r.done
	<-r.done
}

// settle lets a fresh connection finish what follows its handshake (path
// MTU probes, the first acknowledgements) before bytes are counted.
const settle = 500 * time.Millisecond

func quicWire(cfg Config) (Wire, error) {
	h, err := quic.Listen("127.0.0.1:0", quic.Config{})
	if err != nil {
		return Wire{}, err
	}
	defer h.Close()
	r, err := newRelay(h.Addr().(*net.UDPAddr))
	if err != nil {
		return Wire{}, err
	}
	defer r.close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	c, err := quic.Dial(ctx, r.front.LocalAddr().String(), quic.Config{PinSHA256: h.CertHash()})
	if err != nil {
		return Wire{}, err
	}
	defer c.Close()
	d := drain(h)
	defer d.close()
	time.Sleep(settle)
	r.reset()
	in := make([]byte, cfg.Payload)
	if err := paced(cfg.Datagrams, cfg.Rate, func(int) error { return c.Send(c.Host(), in) }); err != nil {
		return Wire{}, err
	}
	time.Sleep(100 * time.Millisecond) // the last acknowledgements
	if got := d.got.Load(); got < int64(cfg.Datagrams)*9/10 {
		return Wire{}, fmt.Errorf("only %d of %d datagrams arrived", got, cfg.Datagrams)
	}
	n := float64(cfg.Datagrams)
	return Wire{
		UpBytes: float64(r.upBytes.Load()) / n, UpPackets: float64(r.upPkts.Load()) / n,
		DownBytes: float64(r.downBytes.Load()) / n, DownPackets: float64(r.downPkts.Load()) / n,
	}, nil
}

func quicConnect(cfg Config) (time.Duration, error) {
	h, err := quic.Listen("127.0.0.1:0", quic.Config{})
	if err != nil {
		return 0, err
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	hostErr := make(chan error, 1)
	go func() {
		peers, err := h.WaitPeers(ctx, 1)
		if err == nil {
			err = h.Send(peers[0], make([]byte, cfg.State))
		}
		hostErr <- err
	}()
	start := time.Now()
	c, err := quic.Dial(ctx, h.Addr().String(), quic.Config{PinSHA256: h.CertHash()})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := firstDatagram(ctx, c); err != nil {
		return 0, err
	}
	took := time.Since(start)
	return took, <-hostErr
}

func quicHostCPU(cfg Config) (time.Duration, error) {
	h, err := quic.Listen("127.0.0.1:0", quic.Config{MaxPeers: cfg.Clients + 2, Tuning: quic.Tuning{MaxConnsPerAddr: cfg.Clients + 2}})
	if err != nil {
		return 0, err
	}
	defer h.Close()
	spec := strings.Join([]string{"quic", h.Addr().String(), quic.FormatHash(h.CertHash()),
		strconv.Itoa(cfg.Clients), strconv.Itoa(cfg.Rate), strconv.Itoa(cfg.Payload), cfg.Limit.String()}, "|")
	return measureHost(cfg, h, spec, func(ctx context.Context) ([]transport.Peer, error) { return h.WaitPeers(ctx, cfg.Clients) })
}

// measureHost starts the clients' process, waits for them, and measures
// the host's ticks.
func measureHost(cfg Config, tr transport.Transport, spec string, wait func(context.Context) ([]transport.Peer, error)) (time.Duration, error) {
	ch, err := StartChild(childEnv, spec)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	peers, err := ch.Connected(ctx, wait)
	if err != nil {
		_ = ch.Stop()
		return 0, err
	}
	cpu := hostTicks(tr, peers, cfg.Rate, cfg.State, cfg.Rate/2, cfg.Ticks)
	if err := ch.Stop(); err != nil {
		return 0, fmt.Errorf("clients: %w", err)
	}
	return cpu / time.Duration(cfg.Clients*cfg.Ticks), nil
}

// runClients is the child's side: spec is kind|address|...
func runClients(spec string) error {
	f := strings.Split(spec, "|")
	if len(f) != 7 {
		return fmt.Errorf("bad spec %q", spec)
	}
	k, _ := strconv.Atoi(f[3])
	rate, _ := strconv.Atoi(f[4])
	payload, _ := strconv.Atoi(f[5])
	limit, _ := time.ParseDuration(f[6])
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var trs []transport.Transport
	var hosts []transport.Peer
	defer func() {
		for _, tr := range trs {
			_ = tr.Close()
		}
	}()
	switch f[0] {
	case "quic":
		pin, err := quic.ParseHash(f[2])
		if err != nil {
			return err
		}
		for range k {
			c, err := quic.Dial(ctx, f[1], quic.Config{PinSHA256: pin})
			if err != nil {
				return err
			}
			trs, hosts = append(trs, c), append(hosts, c.Host())
		}
	case "webrtc":
		for range k {
			c, host, err := webrtcClient(ctx, f[1], transport.Peer(f[2]))
			if err != nil {
				return err
			}
			trs, hosts = append(trs, c), append(hosts, host)
		}
	default:
		return fmt.Errorf("bad spec %q", spec)
	}
	clientLoop(trs, hosts, rate, payload, limit)
	return nil
}
