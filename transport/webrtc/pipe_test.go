package webrtc

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// hub is an in-memory rendezvous: every member hears the others join and
// leave, and signals go straight into the addressee's event channel.
type hub struct {
	mu      sync.Mutex
	members map[string]*pipe
	// hold, when set, decides to hold back a signal; held signals are
	// delivered by release.
	hold func(from, to string, s signalMsg) bool
	held []heldSignal
}

type heldSignal struct {
	from, to string
	s        signalMsg
}

type pipe struct {
	h     *hub
	id    string
	peers []string
	ch    chan signalEvent
}

func newHub() *hub { return &hub{members: map[string]*pipe{}} }

func (h *hub) join(id string) *pipe {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := &pipe{h: h, id: id, ch: make(chan signalEvent, 1024)}
	for other, m := range h.members {
		p.peers = append(p.peers, other)
		m.deliver(signalEvent{Kind: peerJoined, Peer: id})
	}
	slices.Sort(p.peers)
	h.members[id] = p
	return p
}

func (h *hub) leave(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.members[id]
	if !ok {
		return
	}
	delete(h.members, id)
	close(p.ch)
	for _, m := range h.members {
		m.deliver(signalEvent{Kind: peerLeft, Peer: id})
	}
}

// release delivers every held signal, in order.
func (h *hub) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, hs := range h.held {
		if m, ok := h.members[hs.to]; ok {
			m.deliver(signalEvent{Kind: signalReceived, Peer: hs.from, Signal: hs.s})
		}
	}
	h.held = nil
}

func (p *pipe) deliver(e signalEvent) {
	select {
	case p.ch <- e:
	default:
		panic("hub: event channel full")
	}
}

// newOn is New for any signaler: the tests' in-memory one, or a
// signalingAdapter.
func newOn(cfg Config, sig signaler) (*rtcTransport, error) { return newTransport(cfg, sig, nil) }

func (p *pipe) localID() string            { return p.id }
func (p *pipe) present() []string          { return p.peers }
func (p *pipe) iceServers() []ICEServer    { return nil }
func (p *pipe) events() <-chan signalEvent { return p.ch }
func (p *pipe) Close() error               { p.h.leave(p.id); return nil }

func (p *pipe) send(ctx context.Context, to string, s signalMsg) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h := p.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.members[p.id]; !ok {
		return errors.New("hub: sender left")
	}
	m, ok := h.members[to]
	if !ok {
		return errors.New("hub: no such peer")
	}
	s.Payload = slices.Clone(s.Payload)
	if h.hold != nil && h.hold(p.id, to, s) {
		h.held = append(h.held, heldSignal{from: p.id, to: to, s: s})
		return nil
	}
	m.deliver(signalEvent{Kind: signalReceived, Peer: p.id, Signal: s})
	return nil
}
