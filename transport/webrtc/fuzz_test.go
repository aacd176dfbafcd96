//go:build !js

package webrtc

import (
	"encoding/json"
	"testing"

	pion "github.com/pion/webrtc/v4"
	"github.com/stretchr/testify/require"
)

// FuzzSignal feeds arbitrary rendezvous messages (kind, payload) to a
// Transport's negotiation, one after the other from one peer: nothing
// panics, and every message is either used, counted as invalid, or ends
// the peer's negotiation.
func FuzzSignal(f *testing.F) {
	// Seeds from real encoder output: an offer, and a candidate.
	pc, err := pion.NewPeerConnection(pion.Configuration{})
	require.NoError(f, err)
	ordered, zero, negotiated, id := false, uint16(0), true, uint16(0)
	_, err = pc.CreateDataChannel("seed", &pion.DataChannelInit{
		Ordered: &ordered, MaxRetransmits: &zero, Negotiated: &negotiated, ID: &id,
	})
	require.NoError(f, err)
	offer, err := pc.CreateOffer(nil)
	require.NoError(f, err)
	require.NoError(f, pc.Close())
	offerJSON, err := json.Marshal(offer)
	require.NoError(f, err)
	cand, err := json.Marshal(pion.ICECandidateInit{Candidate: "candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host"})
	require.NoError(f, err)

	f.Add(uint8(signalOffer), offerJSON, uint8(signalCandidate), cand)
	f.Add(uint8(signalCandidate), cand, uint8(signalOffer), offerJSON)
	f.Add(uint8(signalAnswer), offerJSON, uint8(signalCandidate), []byte(`{"candidate":""}`))
	f.Add(uint8(signalOffer), []byte(`{"type":"offer","sdp":"v=0\r\n"}`), uint8(0), []byte(nil))
	f.Fuzz(func(t *testing.T, k1 uint8, p1 []byte, k2 uint8, p2 []byte) {
		h := newHub()
		tr, err := newOn(Config{LoopbackOnly: true, MaxPeers: 1}, h.join("a"))
		require.NoError(t, err)
		defer tr.Close()
		// The signal loop waits on an empty channel; handle runs here, as
		// if it were that loop.
		for _, s := range []signalMsg{{Kind: signalKind(k1), Payload: p1}, {Kind: signalKind(k2), Payload: p2}} {
			tr.handle(signalEvent{Kind: signalReceived, Peer: "x", Signal: s})
		}
		st := tr.Stats()
		require.LessOrEqual(t, st.SignalsInvalid, uint64(2))
		tr.mu.RLock()
		require.LessOrEqual(t, len(tr.peers), 1)
		tr.mu.RUnlock()
	})
}
