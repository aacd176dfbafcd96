package webrtc

import (
	"context"
	"fmt"
	"sync"

	"github.com/rollnet/rollnet/signaling/client"
)

// signalingAdapter lets a Transport negotiate through a signaling client
// (package signaling/client).
// It pumps the client's events into its own channel until close.
type signalingAdapter struct {
	c    *client.Client
	owns bool // close closes c
	evs  chan signalEvent
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

var (
	_ signaler        = (*signalingAdapter)(nil)
	_ candidateArrays = (*signalingAdapter)(nil)
)

// signalQueue is the capacity of the adapter's events: the signaling
// client's own event queue's (client.Config.EventQueue's default).
const signalQueue = 64

// newSignalingAdapter wraps c; the adapter's Close closes c if owns.
func newSignalingAdapter(c *client.Client, owns bool) *signalingAdapter {
	a := &signalingAdapter{
		c:    c,
		owns: owns,
		evs:  make(chan signalEvent, signalQueue),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go a.pump()
	return a
}

func (a *signalingAdapter) pump() {
	defer close(a.done)
	defer close(a.evs)
	for {
		var ev client.Event
		var ok bool
		select {
		case <-a.stop:
			return
		case ev, ok = <-a.c.Events():
			if !ok {
				return
			}
		}
		out := signalEvent{Peer: ev.Peer}
		switch ev.Kind {
		case client.PeerJoined:
			out.Kind = peerJoined
		case client.PeerLeft:
			out.Kind = peerLeft
		case client.SignalReceived:
			out.Kind = signalReceived
			out.Signal.Payload = ev.Signal.Payload
			switch ev.Signal.Kind {
			case client.SignalOffer:
				out.Signal.Kind = signalOffer
			case client.SignalAnswer:
				out.Signal.Kind = signalAnswer
			case client.SignalCandidate:
				out.Signal.Kind = signalCandidate
			default:
				continue
			}
		default:
			continue // a server error about a signal: nothing to do
		}
		select {
		case a.evs <- out:
		case <-a.stop:
			return
		}
	}
}

// localID is the client's server-assigned id.
func (a *signalingAdapter) localID() string { return a.c.ID() }

func (a *signalingAdapter) present() []string { return a.c.Peers() }

// events delivers the client's joins, leaves and signals.
func (a *signalingAdapter) events() <-chan signalEvent { return a.evs }

// endErr is why the client's connection ended (nil while it is up).
func (a *signalingAdapter) endErr() error { return a.c.Err() }

// takesCandidateArrays reports whether peer speaks signaling's protocol
// version 2, whose candidate signal may hold an array of candidates; a
// peer of version 1 (or one that left) is sent one a signal.
func (a *signalingAdapter) takesCandidateArrays(peer string) bool {
	return a.c.PeerProtocol(peer) >= 2
}

// iceServers converts the list the server handed out at join.
func (a *signalingAdapter) iceServers() []ICEServer {
	in := a.c.ICEServers()
	out := make([]ICEServer, 0, len(in))
	for _, s := range in {
		ps := ICEServer{URLs: s.URLs, Username: s.Username}
		if s.Credential != "" {
			ps.Credential = s.Credential
		}
		out = append(out, ps)
	}
	return out
}

// send relays s to peer to through the server.
func (a *signalingAdapter) send(ctx context.Context, to string, s signalMsg) error {
	var kind client.SignalKind
	switch s.Kind {
	case signalOffer:
		kind = client.SignalOffer
	case signalAnswer:
		kind = client.SignalAnswer
	case signalCandidate:
		kind = client.SignalCandidate
	default:
		return fmt.Errorf("webrtc: unknown signal kind %d", s.Kind)
	}
	return a.c.Send(ctx, to, client.Signal{Kind: kind, Payload: s.Payload})
}

// Close stops the pump and closes the client if the adapter owns it. It is
// idempotent.
func (a *signalingAdapter) Close() error {
	var err error
	a.once.Do(func() {
		close(a.stop)
		if a.owns {
			err = a.c.Close()
		}
		<-a.done
	})
	return err
}

// Dial joins a signaling server (see client.Dial for the URL forms) and
// starts a Transport that negotiates through it. The Transport owns the
// connection: its Close closes it.
func Dial(ctx context.Context, url string, cfg Config) (Transport, error) {
	t, err := dial(ctx, url, cfg)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// dial is Dial.
func dial(ctx context.Context, url string, cfg Config) (*rtcTransport, error) {
	if _, err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	c, err := client.Dial(ctx, url, client.Config{})
	if err != nil {
		return nil, err
	}
	a := newSignalingAdapter(c, true)
	t, err := newTransport(cfg, a, a)
	if err != nil {
		_ = a.Close()
		return nil, err
	}
	return t, nil
}
