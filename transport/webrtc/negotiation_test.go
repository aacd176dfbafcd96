package webrtc

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/pion/logging"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport"
)

// Candidates that reach the answerer before the offer are kept until the
// remote description is set, then added: none is refused.
func TestCandidatesBeforeOfferAreBuffered(t *testing.T) {
	h := newHub()
	h.hold = func(from, _ string, s signalMsg) bool { return from == "a" && s.Kind != signalAnswer }
	cfg := Config{LoopbackOnly: true}
	a, err := newOn(cfg, h.join("a"))
	require.NoError(t, err)
	defer a.Close()
	b, err := newOn(cfg, h.join("b"))
	require.NoError(t, err)
	defer b.Close()

	// Wait for a's offer and at least one candidate, then deliver the
	// candidates first.
	require.Eventually(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		var offer, cand bool
		for _, hs := range h.held {
			offer = offer || hs.s.Kind == signalOffer
			cand = cand || hs.s.Kind == signalCandidate
		}
		return offer && cand
	}, waitBound, time.Millisecond)
	h.mu.Lock()
	h.hold = nil
	var reordered []heldSignal
	for _, hs := range h.held {
		if hs.s.Kind == signalCandidate {
			reordered = append(reordered, hs)
		}
	}
	for _, hs := range h.held {
		if hs.s.Kind != signalCandidate {
			reordered = append(reordered, hs)
		}
	}
	h.held = reordered
	h.mu.Unlock()
	h.release()

	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err = b.WaitPeers(ctx, 1)
	require.NoError(t, err)
	_, err = a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	require.Zero(t, b.Stats().SignalsInvalid, "early candidates were buffered, not refused")
	require.Zero(t, a.Stats().SignalsInvalid)
}

// When both sides offer (a rendezvous that told each about the other), the
// lower id's offer wins and the two still connect.
func TestBothOfferLowerIDWins(t *testing.T) {
	h := newHub()
	quiet := logging.NewDefaultLoggerFactory()
	quiet.DefaultLogLevel = logging.LogLevelDisabled // b's first candidates are for its replaced offer
	cfg := Config{LoopbackOnly: true, LoggerFactory: quiet}
	pa, pb := h.join("a"), h.join("b")
	pb.deliver(signalEvent{Kind: peerJoined, Peer: "a"}) // b is told a joined after it
	// a's signals wait until b's offer reached a, so that b offers before
	// it hears a's offer.
	h.hold = func(from, _ string, _ signalMsg) bool { return from == "a" }
	a, err := newOn(cfg, pa)
	require.NoError(t, err)
	defer a.Close()
	b, err := newOn(cfg, pb)
	require.NoError(t, err)
	defer b.Close()
	require.Eventually(t, func() bool { return a.Stats().SignalsInvalid == 1 }, waitBound, time.Millisecond,
		"a ignores b's offer")
	h.mu.Lock()
	h.hold = nil
	h.mu.Unlock()
	h.release()

	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err = a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	_, err = b.WaitPeers(ctx, 1)
	require.NoError(t, err)
	buf := make([]byte, transport.MaxDatagram)
	require.NoError(t, b.Send("a", []byte("hi")))
	n, from := recv(t, a, buf)
	require.Equal(t, "hi", string(buf[:n]))
	require.Equal(t, transport.Peer("b"), from)
	require.Equal(t, uint64(1), a.Stats().SignalsInvalid, "a ignores b's offer")
	for _, e := range b.Events(nil) {
		require.Equal(t, transport.PeerConnected, e.Kind, "b's replaced offer is not reported")
	}
}

// Malformed and out-of-order signals are counted and ignored; none creates
// more than MaxPeers peers or panics.
func TestHostileSignalsAreIgnored(t *testing.T) {
	h := newHub()
	pa := h.join("a")
	a, err := newOn(Config{LoopbackOnly: true, MaxPeers: 2, Tuning: Tuning{MaxPendingCandidates: 1}}, pa)
	require.NoError(t, err)
	defer a.Close()

	cand, err := json.Marshal(candidate{Candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host"})
	require.NoError(t, err)
	hostile := []signalEvent{
		{Kind: signalReceived, Peer: "x", Signal: signalMsg{Kind: signalOffer, Payload: []byte("{")}},
		{Kind: signalReceived, Peer: "x", Signal: signalMsg{Kind: signalOffer, Payload: []byte(`{"type":"answer","sdp":""}`)}},
		{Kind: signalReceived, Peer: "x", Signal: signalMsg{Kind: signalAnswer, Payload: []byte(`{"type":"answer","sdp":"v=0"}`)}},
		{Kind: signalReceived, Peer: "x", Signal: signalMsg{Kind: signalCandidate, Payload: []byte(`{}`)}},
		{Kind: signalReceived, Peer: "x", Signal: signalMsg{Kind: 99}},
		{Kind: 42, Peer: "x"},
		{Kind: signalReceived, Peer: "", Signal: signalMsg{Kind: signalCandidate, Payload: cand}},
		{Kind: signalReceived, Peer: "a", Signal: signalMsg{Kind: signalCandidate, Payload: cand}},
		{Kind: signalReceived, Peer: "y", Signal: signalMsg{Kind: signalCandidate, Payload: cand}}, // y: buffered
		{Kind: signalReceived, Peer: "y", Signal: signalMsg{Kind: signalCandidate, Payload: cand}}, // over the bound
		{Kind: signalReceived, Peer: "z", Signal: signalMsg{Kind: signalCandidate, Payload: cand}}, // z: second peer
		{Kind: signalReceived, Peer: "w", Signal: signalMsg{Kind: signalCandidate, Payload: cand}}, // over MaxPeers
		{Kind: signalReceived, Peer: "y", Signal: signalMsg{Kind: signalOffer, Payload: []byte(`{"type":"offer","sdp":"garbage"}`)}},
	}
	for _, e := range hostile {
		pa.deliver(e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	ev := waitEvent(ctx, t, a, transport.PeerGone) // y's garbage offer ends y
	require.Equal(t, transport.Peer("y"), ev.Peer)
	require.ErrorIs(t, ev.Err, ErrSignaling)
	require.Eventually(t, func() bool { return a.Stats().SignalsInvalid == 10 }, waitBound, time.Millisecond,
		"got %d", a.Stats().SignalsInvalid)
	require.ErrorIs(t, a.Send("y", []byte("x")), transport.ErrPeerGone)
	require.NoError(t, a.Send("z", []byte("x")), "z is known, not connected: the datagram is dropped")
	require.Equal(t, uint64(1), a.Stats().SendsNotOpen)
	require.ErrorIs(t, a.Send("w", []byte("x")), transport.ErrUnknownPeer)

	// Now that y is gone, a new peer takes its place.
	pa.deliver(signalEvent{Kind: signalReceived, Peer: "v", Signal: signalMsg{Kind: signalCandidate, Payload: cand}})
	require.Eventually(t, func() bool { return errors.Is(a.Send("y", []byte("x")), transport.ErrUnknownPeer) },
		waitBound, time.Millisecond, "y forgotten")
	require.NoError(t, a.Send("v", []byte("x")))
	require.Equal(t, uint64(10), a.Stats().SignalsInvalid)
}

func TestConfigValidation(t *testing.T) {
	h := newHub()
	for _, cfg := range []Config{
		{Tuning: Tuning{SendThreshold: -1}},
		{Tuning: Tuning{QueueLen: -1}},
		{Tuning: Tuning{QueueLen: 1<<16 + 1}},
		{MaxPeers: -1},
		{Tuning: Tuning{MaxPendingCandidates: -1}},
		{Tuning: Tuning{ICEDisconnectedTimeout: -1}},
		{Tuning: Tuning{ICEFailedTimeout: -1}},
		{Tuning: Tuning{ICEKeepAlive: -1}},
		{Tuning: Tuning{SignalTimeout: -1}},
		{Tuning: Tuning{SCTPRTOMax: -1}},
		{Tuning: Tuning{ICEReflexiveWait: -1}},
		{Tuning: Tuning{ICERelayWait: -1}},
	} {
		_, err := newOn(cfg, h.join("a"))
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", cfg)
	}
	_, err := newOn(Config{}, nil)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}
