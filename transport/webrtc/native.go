//go:build !js

package webrtc

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pion/ice/v4"
	pion "github.com/pion/webrtc/v4"

	"github.com/rollnet/rollnet/internal/recvqueue"
)

// newAPI is pion's API configured by cfg: detached data channels, the SCTP
// message size cap and RTO cap, the ICE timeouts, and the network
// (loopback only, a virtual one, or the host's). It returns the ICE
// servers to use (none on loopback).
func newAPI(cfg Config, servers []pion.ICEServer) (*pion.API, []pion.ICEServer) {
	var se pion.SettingEngine
	se.DetachDataChannels()
	se.SetSCTPMaxMessageSize(MaxMessageSize)
	se.SetSCTPRTOMax(cfg.SCTPRTOMax)
	se.SetICETimeouts(cfg.ICEDisconnectedTimeout, cfg.ICEFailedTimeout, cfg.ICEKeepAlive)
	se.SetSrflxAcceptanceMinWait(cfg.ICEReflexiveWait)
	se.SetPrflxAcceptanceMinWait(cfg.ICEReflexiveWait)
	if !cfg.RelayOnly {
		se.SetRelayAcceptanceMinWait(cfg.ICERelayWait) // relay only: pion's 0, nothing better to wait for
	}
	switch {
	case cfg.LoopbackOnly:
		se.SetIncludeLoopbackCandidate(true)
		se.SetInterfaceFilter(func(name string) bool { return strings.HasPrefix(name, "lo") })
		se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
		se.SetNetworkTypes([]pion.NetworkType{pion.NetworkTypeUDP4})
		servers = nil
	case cfg.Net != nil:
		se.SetNet(cfg.Net)
		se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	}
	if cfg.LoggerFactory != nil {
		se.LoggerFactory = cfg.LoggerFactory
	}
	return pion.NewAPI(pion.WithSettingEngine(se)), servers
}

// watchCandidates hands each local candidate of pc to f, and nil when
// gathering completes.
func watchCandidates(pc *pion.PeerConnection, f func(*pion.ICECandidateInit)) {
	pc.OnICECandidate(func(c *pion.ICECandidate) {
		if c == nil {
			f(nil)
			return
		}
		j := c.ToJSON()
		f(&j)
	})
}

// closeGracefully closes pc and waits for its goroutines.
func closeGracefully(pc *pion.PeerConnection) error { return pc.GracefulClose() }

// opened runs when p's data channel opens: it detaches the channel and
// starts its read loop.
func (t *Transport) opened(p *peer) {
	rw, err := p.dc.Detach()
	if err != nil {
		t.peerGone(p, fmt.Errorf("%w: detach: %w", ErrSignaling, err), false)
		return
	}
	t.mu.Lock()
	if t.closed || p.gone != nil {
		t.mu.Unlock()
		_ = rw.Close()
		return
	}
	p.rw = rw
	t.wg.Add(1)
	t.emitLocked(PeerEvent{Kind: PeerConnected, Peer: p.id})
	t.mu.Unlock()
	go t.readLoop(p, rw, t.q.Lane(p.id))
}

// readLoop moves p's datagrams into the receive queue. Its buffer is the
// largest message the SCTP association accepts; it allocates nothing per
// datagram.
func (t *Transport) readLoop(p *peer, rw io.ReadWriteCloser, lane *recvqueue.Lane) {
	defer t.wg.Done()
	buf := make([]byte, MaxMessageSize)
	for {
		n, err := rw.Read(buf)
		if err != nil {
			if errors.Is(err, io.ErrShortBuffer) {
				// The message stays queued in SCTP: reading on would spin.
				t.peerGone(p, ErrOversizeMessage, false)
				_ = rw.Close()
			} else {
				t.peerGone(p, ErrPeerClosed, false)
			}
			return
		}
		t.received(lane, buf[:n])
	}
}

// readStats fills info's round trip, candidate types and first hop's
// protocol from pion's statistics.
func readStats(pc *pion.PeerConnection, info *PeerInfo) {
	var local pion.ICECandidate
	if sctp := pc.SCTP(); sctp != nil {
		if pair, err := sctp.Transport().ICETransport().GetSelectedCandidatePair(); err == nil && pair != nil {
			local = *pair.Local
			info.LocalCandidate = pair.Local.Typ.String()
			info.RemoteCandidate = pair.Remote.Typ.String()
			// A relay candidate's own protocol is the relayed one (UDP), not
			// its hop to the TURN server: that is only known from the
			// statistics below, and left empty until they name it.
			if pair.Local.Typ != pion.ICECandidateTypeRelay {
				info.Protocol = pair.Local.Protocol.String()
			}
		}
	}
	for _, s := range pc.GetStats() {
		switch s := s.(type) {
		case pion.ICECandidatePairStats:
			if s.Nominated && s.CurrentRoundTripTime > 0 {
				info.RTT = time.Duration(s.CurrentRoundTripTime * float64(time.Second))
			}
		case pion.ICECandidateStats:
			// The hop to the TURN server is the relay candidate's
			// RelayProtocol.
			if local.Typ == pion.ICECandidateTypeRelay && s.CandidateType == pion.ICECandidateTypeRelay &&
				s.IP == local.Address && s.Port == int32(local.Port) && s.RelayProtocol != "" {
				info.Protocol = s.RelayProtocol
			}
		}
	}
}
