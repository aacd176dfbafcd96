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
	"github.com/rollnet/rollnet/transport"
)

// ICEServer is a STUN or TURN server for ICE: pion's own type natively (in
// a browser, a struct of the same fields but CredentialType, which only
// ever meant a password there).
type ICEServer = pion.ICEServer

// engine is pion's API configured by a Config, and the ICE servers every
// PeerConnection uses.
type engine struct {
	api *pion.API
	cfg pion.Configuration
}

// newEngine configures pion by cfg: detached data channels, the SCTP
// message size cap and RTO cap, the ICE timeouts, and the network
// (loopback only, a virtual one, or the host's) with the ICE servers to
// use (none on loopback).
func newEngine(cfg Config, servers []ICEServer) engine {
	var se pion.SettingEngine
	se.DetachDataChannels()
	se.SetSCTPMaxMessageSize(maxMessageSize)
	se.SetSCTPRTOMax(cfg.Tuning.SCTPRTOMax)
	se.SetICETimeouts(cfg.Tuning.ICEDisconnectedTimeout, cfg.Tuning.ICEFailedTimeout, cfg.Tuning.ICEKeepAlive)
	se.SetSrflxAcceptanceMinWait(cfg.Tuning.ICEReflexiveWait)
	se.SetPrflxAcceptanceMinWait(cfg.Tuning.ICEReflexiveWait)
	if !cfg.RelayOnly {
		se.SetRelayAcceptanceMinWait(cfg.Tuning.ICERelayWait) // relay only: pion's 0, nothing better to wait for
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
	pc := pion.Configuration{ICEServers: servers}
	if cfg.RelayOnly {
		pc.ICETransportPolicy = pion.ICETransportPolicyRelay
	}
	return engine{api: pion.NewAPI(pion.WithSettingEngine(se)), cfg: pc}
}

// conn is one peer's PeerConnection and its data channel.
type conn struct {
	pc *pion.PeerConnection
	dc *pion.DataChannel
}

// newConn makes a PeerConnection with the game's channel: negotiated (ID
// 0), unordered, MaxRetransmits 0.
func (e engine) newConn() (*conn, error) {
	pc, err := e.api.NewPeerConnection(e.cfg)
	if err != nil {
		return nil, err
	}
	ordered, retransmits, negotiated, id := false, uint16(0), true, uint16(0)
	dc, err := pc.CreateDataChannel("rollnet", &pion.DataChannelInit{
		Ordered:        &ordered,
		MaxRetransmits: &retransmits,
		Negotiated:     &negotiated,
		ID:             &id,
	})
	if err != nil {
		_ = pc.Close()
		return nil, err
	}
	return &conn{pc: pc, dc: dc}, nil
}

// watch hands c's local candidates, state changes and channel opening to
// t, for p.
func (t *rtcTransport) watch(p *peer, c *conn) {
	c.pc.OnICECandidate(func(ic *pion.ICECandidate) {
		if ic == nil {
			t.bundleCandidate(p, nil) // gathering complete
			return
		}
		j := candidate(ic.ToJSON())
		t.bundleCandidate(p, &j)
	})
	c.pc.OnConnectionStateChange(func(s pion.PeerConnectionState) { t.stateChanged(p, s.String()) })
	c.dc.OnOpen(func() { t.opened(p) })
	// SCTP counts a datagram buffered until the peer acknowledges it: the
	// datagrams Send kept waiting go as soon as an acknowledgement brings
	// the amount down to SendThreshold, not at the next Send.
	c.dc.SetBufferedAmountLowThreshold(uint64(t.cfg.Tuning.SendThreshold))
	c.dc.OnBufferedAmountLow(func() { t.flushWaiting(p) })
}

// describe creates the local offer (or answer) and sets it; step names
// what failed.
func (c *conn) describe(offer bool) (d description, step string, err error) {
	kind := "answer"
	var sd pion.SessionDescription
	if offer {
		kind = "offer"
		sd, err = c.pc.CreateOffer(nil)
	} else {
		sd, err = c.pc.CreateAnswer(nil)
	}
	if err != nil {
		return d, "create " + kind, err
	}
	if err := c.pc.SetLocalDescription(sd); err != nil {
		return d, "set local " + kind, err
	}
	return description{Type: sd.Type.String(), SDP: sd.SDP}, "", nil
}

func (c *conn) setRemote(d description) error {
	return c.pc.SetRemoteDescription(pion.SessionDescription{Type: pion.NewSDPType(d.Type), SDP: d.SDP})
}

func (c *conn) addCandidate(ic candidate) error {
	return c.pc.AddICECandidate(pion.ICECandidateInit(ic))
}

func (c *conn) bufferedAmount() uint64 { return c.dc.BufferedAmount() }

func (c *conn) close() error { return c.pc.Close() }

// closeGracefully closes the connection and waits for its goroutines.
func (c *conn) closeGracefully() error { return c.pc.GracefulClose() }

// opened runs when p's data channel opens: it detaches the channel and
// starts its read loop.
func (t *rtcTransport) opened(p *peer) {
	rw, err := p.c.dc.Detach()
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
	t.emitLocked(transport.PeerEvent{Kind: transport.PeerConnected, Peer: p.id})
	t.mu.Unlock()
	go t.readLoop(p, rw, t.q.Lane(p.id))
}

// readLoop moves p's datagrams into the receive queue. Its buffer is the
// largest message the SCTP association accepts; it allocates nothing per
// datagram.
func (t *rtcTransport) readLoop(p *peer, rw io.ReadWriteCloser, lane *recvqueue.Lane) {
	defer t.wg.Done()
	buf := make([]byte, maxMessageSize)
	for {
		n, err := rw.Read(buf)
		if err != nil {
			if errors.Is(err, io.ErrShortBuffer) {
				// The message stays queued in SCTP: reading on would spin.
				t.peerGone(p, ErrOversizeMessage, false)
				_ = rw.Close()
			} else {
				t.peerGone(p, transport.ErrPeerClosed, false)
			}
			return
		}
		t.rc.Received(t.q, lane, buf[:n])
	}
}

// readStats fills info's round trip, candidate types and first hop's
// protocol from pion's statistics.
func (c *conn) readStats(info *peerInfo) {
	pc := c.pc
	var local pion.ICECandidate
	if sctp := pc.SCTP(); sctp != nil {
		if pair, err := sctp.Transport().ICETransport().GetSelectedCandidatePair(); err == nil && pair != nil {
			local = *pair.Local
			info.LocalCandidate = candidateType(pair.Local)
			info.RemoteCandidate = candidateType(pair.Remote)
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

// candidateType is c's type for peerInfo, except that a server-reflexive
// candidate whose address is its own base (STUN saw the host's address:
// no NAT between them) is the host candidate it equals. ICE may select
// such a pair in place of host to host, and it costs what host to host
// costs: "direct", not "stun".
func candidateType(c *pion.ICECandidate) string {
	if c.Typ == pion.ICECandidateTypeSrflx && c.RelatedAddress == c.Address && c.RelatedPort == c.Port {
		return pion.ICECandidateTypeHost.String()
	}
	return c.Typ.String()
}
