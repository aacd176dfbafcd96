//go:build !js

package webrtc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	pion "github.com/pion/webrtc/v4"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// A peer that ignores the advertised maximum message size (here a raw pion
// peer that was shown a doctored offer) is disconnected at its first
// oversize message, instead of jamming the read loop.
func TestOversizeMessageDisconnectsPeer(t *testing.T) {
	h := newHub()
	a, err := newOn(Config{LoopbackOnly: true}, h.join("a"))
	require.NoError(t, err)
	defer a.Close()
	pb := h.join("b") // the hostile peer, driven by hand below

	var se pion.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetInterfaceFilter(func(name string) bool { return strings.HasPrefix(name, "lo") })
	se.SetNetworkTypes([]pion.NetworkType{pion.NetworkTypeUDP4})
	pc, err := pion.NewAPI(pion.WithSettingEngine(se)).NewPeerConnection(pion.Configuration{})
	require.NoError(t, err)
	defer func() { require.NoError(t, pc.GracefulClose()) }()
	ordered, zero, negotiated, id := false, uint16(0), true, uint16(0)
	dc, err := pc.CreateDataChannel("evil", &pion.DataChannelInit{
		Ordered: &ordered, MaxRetransmits: &zero, Negotiated: &negotiated, ID: &id,
	})
	require.NoError(t, err)
	open := make(chan struct{})
	dc.OnOpen(func() { close(open) })
	pc.OnICECandidate(func(c *pion.ICECandidate) {
		if c != nil {
			payload, _ := json.Marshal(c.ToJSON())
			_ = pb.send(context.Background(), "a", signalMsg{Kind: signalCandidate, Payload: payload})
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	var early []pion.ICECandidateInit
	for remoteSet := false; ; {
		var e signalEvent
		select {
		case e = <-pb.ch:
		case <-open:
		case <-ctx.Done():
			t.Fatal("no connection")
		}
		if e.Kind == 0 {
			break // open
		}
		if e.Kind != signalReceived {
			continue
		}
		switch e.Signal.Kind {
		case signalOffer:
			var offer pion.SessionDescription
			require.NoError(t, json.Unmarshal(e.Signal.Payload, &offer))
			require.Contains(t, offer.SDP, "a=max-message-size:1200")
			offer.SDP = strings.ReplaceAll(offer.SDP, "a=max-message-size:1200", "a=max-message-size:65536")
			require.NoError(t, pc.SetRemoteDescription(offer))
			remoteSet = true
			for _, c := range early {
				require.NoError(t, pc.AddICECandidate(c))
			}
			answer, err := pc.CreateAnswer(nil)
			require.NoError(t, err)
			require.NoError(t, pc.SetLocalDescription(answer))
			payload, _ := json.Marshal(answer)
			require.NoError(t, pb.send(ctx, "a", signalMsg{Kind: signalAnswer, Payload: payload}))
		case signalCandidate:
			cs, ok := parseCandidates(e.Signal.Payload, defaultMaxPendingCandidates)
			require.True(t, ok)
			if !remoteSet {
				for _, c := range cs {
					early = append(early, pion.ICECandidateInit(c))
				}
				continue
			}
			for _, c := range cs {
				require.NoError(t, pc.AddICECandidate(pion.ICECandidateInit(c)))
			}
		}
	}
	_, err = a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	a.Events(nil)

	require.NoError(t, dc.Send([]byte("fine")))
	buf := make([]byte, transport.MaxDatagram)
	n, _ := recv(t, a, buf)
	require.Equal(t, "fine", string(buf[:n]))

	require.NoError(t, dc.Send(make([]byte, 4000)))
	ev := waitEvent(ctx, t, a, transport.PeerGone)
	require.Equal(t, transport.Peer("b"), ev.Peer)
	require.ErrorIs(t, ev.Err, ErrOversizeMessage)
	require.ErrorIs(t, a.Send("b", []byte("x")), transport.ErrPeerGone)
}
