package webrtc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/rollnet/rollnet/transport"
)

var errReplaced = errors.New("webrtc: connection replaced after both sides offered")

// run is the signal loop: the only goroutine that creates peers and drives
// their offer/answer exchange. It offers to the peers that joined only once
// no event is waiting, so that a peer whose leave is already queued behind
// its join is never offered to (a join/leave churn costs nothing).
func (t *rtcTransport) run() {
	defer close(t.loopDone)
	events := t.sig.events()
	for {
		var e signalEvent
		var ok bool
		if len(t.joined) == 0 {
			select {
			case <-t.ctx.Done():
				return
			case e, ok = <-events:
			}
		} else {
			select {
			case <-t.ctx.Done():
				return
			case e, ok = <-events:
			default:
				t.offerJoined()
				continue
			}
		}
		if !ok {
			err := io.EOF
			if e, ok := t.sig.(interface{ endErr() error }); ok && e.endErr() != nil {
				err = e.endErr()
			}
			t.mu.Lock()
			t.sigErr = err
			t.mu.Unlock()
			return
		}
		t.handle(e)
	}
}

func (t *rtcTransport) handle(e signalEvent) {
	id := transport.Peer(e.Peer)
	if id == "" || id == t.local {
		t.c.signalsInvalid.Add(1)
		return
	}
	t.noteArrival(id, e.Kind)
	if e.Kind != peerLeft && !t.admit(id) {
		return
	}
	switch e.Kind {
	case peerJoined:
		if !slices.Contains(t.joined, id) {
			t.joined = append(t.joined, id)
		}
		if len(t.joined) >= t.cfg.MaxPeers { // bounded even if events never pause
			t.offerJoined()
		}
	case peerLeft:
		if i := slices.Index(t.joined, id); i >= 0 {
			t.joined = slices.Delete(t.joined, i, i+1)
			t.c.offersSkipped.Add(1)
		}
		t.mu.RLock()
		p := t.peers[id]
		t.mu.RUnlock()
		if p != nil {
			t.peerGone(p, ErrPeerLeft, true)
		}
	case signalReceived:
		switch e.Signal.Kind {
		case signalOffer:
			t.answer(id, e.Signal.Payload)
		case signalAnswer:
			t.receiveAnswer(id, e.Signal.Payload)
		case signalCandidate:
			t.receiveCandidate(id, e.Signal.Payload)
		default:
			t.c.signalsInvalid.Add(1)
		}
	default:
		t.c.signalsInvalid.Add(1)
	}
}

// offerJoined offers to every peer that joined since the last call.
func (t *rtcTransport) offerJoined() {
	for _, id := range t.joined {
		t.offer(id)
	}
	t.joined = t.joined[:0]
}

// admit reports whether this endpoint connects to id: a peer it knows
// already, or one Config.Accept accepts. A refusal is counted.
func (t *rtcTransport) admit(id transport.Peer) bool {
	if t.cfg.Accept == nil {
		return true
	}
	t.mu.RLock()
	_, known := t.peers[id]
	t.mu.RUnlock()
	if known || t.cfg.Accept(id) {
		return true
	}
	t.c.peersRefused.Add(1)
	return false
}

// lookup returns the peer for id, creating a placeholder without a
// connection when create is set. It returns nil over MaxPeers.
func (t *rtcTransport) lookup(id transport.Peer, create bool) *peer {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, ok := t.peers[id]; ok || !create {
		return p
	}
	if len(t.peers) >= t.cfg.MaxPeers && !t.evictGoneLocked() {
		return nil
	}
	p := newPeer(id)
	t.peers[id] = p
	return p
}

// evictGoneLocked forgets one gone peer to make room for a new one (Send to
// it then returns transport.ErrUnknownPeer instead of ErrPeerGone). t.mu
// must be held for writing.
func (t *rtcTransport) evictGoneLocked() bool {
	for id, p := range t.peers {
		if p.gone != nil {
			delete(t.peers, id)
			t.q.Forget(id)
			return true
		}
	}
	return false
}

func (t *rtcTransport) isGone(p *peer) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return p.gone != nil
}

// connect gives p its PeerConnection and negotiated data channel
// (conn_native.go, browser_js.go) and follows its state.
func (t *rtcTransport) connect(p *peer, offerer bool) error {
	c, err := t.eng.newConn()
	if err != nil {
		return err
	}
	t.mu.Lock()
	p.c, p.offerer = c, offerer
	t.mu.Unlock()
	t.watch(p, c)
	return nil
}

// stateChanged follows p's connection state, named as
// RTCPeerConnection.connectionState names it.
func (t *rtcTransport) stateChanged(p *peer, state string) {
	switch state {
	case "failed":
		t.peerGone(p, ErrICEFailed, false)
	case "closed":
		t.peerGone(p, transport.ErrPeerClosed, false)
	case "disconnected":
		t.interrupted(p, true)
	case "connected":
		t.interrupted(p, false)
	}
}

func (t *rtcTransport) signal(to transport.Peer, s signalMsg) {
	ctx, cancel := context.WithTimeout(t.ctx, t.cfg.Tuning.SignalTimeout)
	defer cancel()
	if err := t.sig.send(ctx, string(to), s); err != nil {
		t.c.signalErrors.Add(1)
	}
}

func (t *rtcTransport) fail(p *peer, step string, err error) {
	t.peerGone(p, fmt.Errorf("%w: %s: %w", ErrSignaling, step, err), true)
}

// offer starts the connection to a peer that joined after this endpoint.
func (t *rtcTransport) offer(id transport.Peer) {
	p := t.lookup(id, true)
	if p == nil || p.c != nil || t.isGone(p) {
		t.c.signalsInvalid.Add(1)
		return
	}
	if err := t.connect(p, true); err != nil {
		t.fail(p, "connect", err)
		return
	}
	offer, step, err := p.c.describe(true)
	if err != nil {
		t.fail(p, step, err)
		return
	}
	payload, err := json.Marshal(offer)
	if err != nil {
		t.fail(p, "encode offer", err)
		return
	}
	t.signal(id, signalMsg{Kind: signalOffer, Payload: payload})
	t.described(p)
}

// answer accepts an offer from a peer that was here first.
func (t *rtcTransport) answer(id transport.Peer, payload []byte) {
	offer, err := parseDescription(payload, "offer")
	if err != nil {
		t.c.signalsInvalid.Add(1)
		return
	}
	p := t.lookup(id, true)
	if p == nil || p.remoteSet || t.isGone(p) {
		t.c.signalsInvalid.Add(1) // over MaxPeers, renegotiation, or gone
		return
	}
	if p.c != nil {
		// Both sides offered. The lower id's offer wins.
		if t.local < id {
			t.c.signalsInvalid.Add(1)
			return
		}
		// Replace our offering peer; its callbacks act on the old one.
		t.mu.Lock()
		if p.gone != nil {
			t.mu.Unlock()
			t.c.signalsInvalid.Add(1)
			return
		}
		old := p
		old.gone, old.rw = errReplaced, nil
		p = newPeer(id)
		p.pending = old.pending
		old.pending = nil
		t.peers[id] = p
		t.wg.Add(1)
		t.mu.Unlock()
		go func() {
			defer t.wg.Done()
			_ = old.c.close()
		}()
	}
	if err := t.connect(p, false); err != nil {
		t.fail(p, "connect", err)
		return
	}
	if err := p.c.setRemote(offer); err != nil {
		t.fail(p, "set remote offer", err)
		return
	}
	t.remoteSet(p)
	answer, step, err := p.c.describe(false)
	if err != nil {
		t.fail(p, step, err)
		return
	}
	payload, err = json.Marshal(answer)
	if err != nil {
		t.fail(p, "encode answer", err)
		return
	}
	t.signal(id, signalMsg{Kind: signalAnswer, Payload: payload})
	t.described(p)
}

// described records that p's offer or answer has been sent, and sends the
// candidates gathered meanwhile.
func (t *rtcTransport) described(p *peer) {
	t.mu.Lock()
	p.described = true
	waits := p.flushWaits
	p.flushWaits = false
	t.mu.Unlock()
	if waits {
		t.flushCandidates(p)
	}
}

func (t *rtcTransport) receiveAnswer(id transport.Peer, payload []byte) {
	answer, err := parseDescription(payload, "answer")
	if err != nil {
		t.c.signalsInvalid.Add(1)
		return
	}
	p := t.lookup(id, false)
	if p == nil || p.c == nil || !p.offerer || p.remoteSet {
		t.c.signalsInvalid.Add(1)
		return
	}
	if err := p.c.setRemote(answer); err != nil {
		t.fail(p, "set remote answer", err)
		return
	}
	t.remoteSet(p)
}

// remoteSet marks p's remote description set and adds the candidates that
// arrived before it.
func (t *rtcTransport) remoteSet(p *peer) {
	p.remoteSet = true
	for _, c := range p.pending {
		if err := p.c.addCandidate(c); err != nil {
			t.c.signalsInvalid.Add(1)
		}
	}
	p.pending = nil
}

// receiveCandidate takes one candidate (a JSON object, as a browser sends
// it) or a bundle of them (a JSON array, as a Transport sends them).
func (t *rtcTransport) receiveCandidate(id transport.Peer, payload []byte) {
	cs, ok := parseCandidates(payload, t.cfg.Tuning.MaxPendingCandidates)
	if !ok {
		t.c.signalsInvalid.Add(1)
		return
	}
	p := t.lookup(id, true)
	if p == nil {
		t.c.signalsInvalid.Add(1)
		return
	}
	for _, c := range cs {
		if !p.remoteSet {
			if len(p.pending) >= t.cfg.Tuning.MaxPendingCandidates {
				t.c.signalsInvalid.Add(1)
				return
			}
			p.pending = append(p.pending, c)
			continue
		}
		if err := p.c.addCandidate(c); err != nil {
			t.c.signalsInvalid.Add(1)
			return
		}
	}
}

// candidateBundleDelay is how long a gathered candidate waits for others
// before its bundle is sent, unless gathering completes first (with host
// candidates only, it always does: one message per connection).
const candidateBundleDelay = 50 * time.Millisecond

// bundleCandidate collects p's local candidates and sends them as one
// signal when gathering completes (c == nil) or candidateBundleDelay after
// the first unsent one: a join costs the offerer an offer and about one
// candidate message, not one message per candidate (to a peer that takes
// arrays: see candidateArrays).
func (t *rtcTransport) bundleCandidate(p *peer, c *candidate) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || p.gone != nil {
		return
	}
	if c != nil {
		p.bundle = append(p.bundle, *c)
		if p.bundleTimer == nil {
			t.wg.Add(1)
			p.bundleTimer = time.AfterFunc(candidateBundleDelay, func() {
				defer t.wg.Done()
				t.flushCandidates(p)
			})
		}
		return
	}
	if p.bundleTimer != nil && p.bundleTimer.Stop() {
		t.wg.Done()
	}
	p.bundleTimer = nil
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.flushCandidates(p)
	}()
}

// flushCandidates sends p's bundled candidates, unless p or the Transport
// is gone.
func (t *rtcTransport) flushCandidates(p *peer) {
	t.mu.Lock()
	if !p.described {
		p.bundleTimer, p.flushWaits = nil, true // sent after the description
		t.mu.Unlock()
		return
	}
	bundle := p.bundle
	p.bundle, p.bundleTimer = nil, nil
	gone := t.closed || p.gone != nil
	t.mu.Unlock()
	if gone || len(bundle) == 0 {
		return
	}
	if ca, ok := t.sig.(candidateArrays); ok && !ca.takesCandidateArrays(string(p.id)) {
		// A peer of signaling's version 1 (a page that hands each signal
		// to addIceCandidate as it comes) takes one candidate a signal.
		for _, c := range bundle {
			payload, err := json.Marshal(c)
			if err != nil {
				t.c.signalErrors.Add(1)
				return
			}
			t.signal(p.id, signalMsg{Kind: signalCandidate, Payload: payload})
		}
		return
	}
	payload, err := json.Marshal(bundle)
	if err != nil {
		t.c.signalErrors.Add(1)
		return
	}
	t.signal(p.id, signalMsg{Kind: signalCandidate, Payload: payload})
}

// interrupted records an open peer's ICE disconnection or recovery.
func (t *rtcTransport) interrupted(p *peer, now bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || p.gone != nil || p.rw == nil || p.interrupted == now {
		return
	}
	p.interrupted = now
	kind := transport.PeerResumed
	if now {
		kind = transport.PeerInterrupted
	}
	t.emitLocked(transport.PeerEvent{Kind: kind, Peer: p.id})
}

// peerGone removes p for good: Send returns transport.ErrPeerGone, a
// transport.PeerGone event is recorded, and its connection is closed. A peer that
// left through signaling while its channel is open stays (onlyUnopened):
// the data channel outlives the rendezvous, and ICE reports a real
// departure.
func (t *rtcTransport) peerGone(p *peer, reason error, onlyUnopened bool) {
	t.mu.Lock()
	if t.closed || p.gone != nil || (onlyUnopened && p.rw != nil) {
		t.mu.Unlock()
		return
	}
	p.gone = reason
	p.rw = nil
	t.emitLocked(transport.PeerEvent{Kind: transport.PeerGone, Peer: p.id, Err: reason})
	c := p.c
	if c != nil {
		t.wg.Add(1)
	}
	t.mu.Unlock()
	if c != nil {
		go func() { // connection callbacks must not close their own connection inline
			defer t.wg.Done()
			_ = c.close()
		}()
	}
}
