//go:build !js

package transportfigures

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pion/logging"
	"github.com/pion/transport/v5/vnet"
	pion "github.com/pion/webrtc/v4"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// webrtcWire counts the packets of a data channel on pion's virtual
// network: every UDP packet the two sides exchange crosses its router.
func webrtcWire(cfg Config) (Wire, error) {
	sig, err := startSignaling()
	if err != nil {
		return Wire{}, err
	}
	defer sig.close()
	lf := logging.NewDefaultLoggerFactory()
	lf.DefaultLogLevel = logging.LogLevelError
	router, err := vnet.NewRouter(&vnet.RouterConfig{CIDR: "10.0.0.0/24", LoggerFactory: lf})
	if err != nil {
		return Wire{}, err
	}
	var counting atomic.Bool
	var upBytes, upPkts, downBytes, downPkts atomic.Int64
	router.AddChunkFilter(func(c vnet.Chunk) bool {
		if !counting.Load() || c.Network() != "udp" {
			return true
		}
		if strings.HasPrefix(c.SourceAddr().String(), "10.0.0.2:") { // the client
			upBytes.Add(int64(len(c.UserData())))
			upPkts.Add(1)
		} else {
			downBytes.Add(int64(len(c.UserData())))
			downPkts.Add(1)
		}
		return true
	})
	netH, err := vnet.NewNet(&vnet.NetConfig{StaticIPs: []string{"10.0.0.1"}})
	if err != nil {
		return Wire{}, err
	}
	netC, err := vnet.NewNet(&vnet.NetConfig{StaticIPs: []string{"10.0.0.2"}})
	if err != nil {
		return Wire{}, err
	}
	if err := router.AddNet(netH); err != nil {
		return Wire{}, err
	}
	if err := router.AddNet(netC); err != nil {
		return Wire{}, err
	}
	if err := router.Start(); err != nil {
		return Wire{}, err
	}
	defer func() { _ = router.Stop() }()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	url := sig.room()
	h, err := webrtc.Dial(ctx, url, webrtc.Config{Net: netH, ICEServers: []pion.ICEServer{}})
	if err != nil {
		return Wire{}, err
	}
	defer h.Close()
	c, err := webrtc.Dial(ctx, url, webrtc.Config{Net: netC, ICEServers: []pion.ICEServer{}})
	if err != nil {
		return Wire{}, err
	}
	defer c.Close()
	peers, err := c.WaitPeers(ctx, 1)
	if err != nil {
		return Wire{}, err
	}
	if _, err := h.WaitPeers(ctx, 1); err != nil {
		return Wire{}, err
	}
	d := drain(h)
	defer d.close()
	time.Sleep(settle)
	counting.Store(true)
	in := make([]byte, cfg.Payload)
	if err := paced(cfg.Datagrams, cfg.Rate, func(int) error { return c.Send(peers[0], in) }); err != nil {
		return Wire{}, err
	}
	time.Sleep(300 * time.Millisecond) // SCTP's delayed acknowledgement is 200 ms
	counting.Store(false)
	if got := d.got.Load(); got < int64(cfg.Datagrams)*9/10 {
		return Wire{}, fmt.Errorf("only %d of %d datagrams arrived", got, cfg.Datagrams)
	}
	n := float64(cfg.Datagrams)
	return Wire{
		UpBytes: float64(upBytes.Load()) / n, UpPackets: float64(upPkts.Load()) / n,
		DownBytes: float64(downBytes.Load()) / n, DownPackets: float64(downPkts.Load()) / n,
	}, nil
}

// webrtcConnect times a client joining a room the host is already in,
// through a signaling server on loopback, to the host's first datagram.
func webrtcConnect(cfg Config) (time.Duration, error) {
	sig, err := startSignaling()
	if err != nil {
		return 0, err
	}
	defer sig.close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	url := sig.room()
	h, err := webrtc.Dial(ctx, url, webrtc.Config{LoopbackOnly: true})
	if err != nil {
		return 0, err
	}
	defer h.Close()
	hostErr := make(chan error, 1)
	go func() {
		peers, err := h.WaitPeers(ctx, 1)
		if err == nil {
			err = h.Send(peers[0], make([]byte, cfg.State))
		}
		hostErr <- err
	}()
	start := time.Now()
	c, err := webrtc.Dial(ctx, url, webrtc.Config{LoopbackOnly: true})
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

func webrtcHostCPU(cfg Config) (time.Duration, error) {
	sig, err := startSignaling()
	if err != nil {
		return 0, err
	}
	defer sig.close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	url := sig.room()
	h, err := webrtc.Dial(ctx, url, webrtc.Config{LoopbackOnly: true, MaxPeers: cfg.Clients + 2})
	if err != nil {
		return 0, err
	}
	defer h.Close()
	spec := strings.Join([]string{"webrtc", url, string(h.Local()),
		strconv.Itoa(cfg.Clients), strconv.Itoa(cfg.Rate), strconv.Itoa(cfg.Payload), cfg.Limit.String()}, "|")
	return measureHost(cfg, h, spec, func(ctx context.Context) ([]transport.Peer, error) { return h.WaitPeers(ctx, cfg.Clients) })
}

// webrtcClient joins url and connects to host only.
func webrtcClient(ctx context.Context, url string, host transport.Peer) (webrtc.Transport, transport.Peer, error) {
	c, err := webrtc.Dial(ctx, url, webrtc.Config{LoopbackOnly: true, Accept: func(p transport.Peer) bool { return p == host }})
	if err != nil {
		return nil, "", err
	}
	if _, err := c.WaitPeers(ctx, 1); err != nil {
		_ = c.Close()
		return nil, "", err
	}
	return c, host, nil
}
