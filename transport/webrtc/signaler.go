package webrtc

import "context"

// Signaler is the rendezvous a Transport negotiates through: it names this
// endpoint, tells who is already there and who joins or leaves, and carries
// offers, answers and candidates to one peer. The signaling package's client
// satisfies it through NewSignalingAdapter (or Dial); tests use an
// in-memory one.
type Signaler interface {
	// ID is this endpoint's identity; the Transport's Local.
	ID() string
	// Peers are the ids already present when this endpoint joined. They
	// offer to it; it waits for their offers.
	Peers() []string
	// ICEServers is the list the rendezvous hands out, used when
	// Config.ICEServers is nil.
	ICEServers() []ICEServer
	// Events delivers joins, leaves and signals, and is closed when the
	// rendezvous connection ends.
	Events() <-chan SignalEvent
	// Send carries one signal to one peer.
	Send(ctx context.Context, to string, s Signal) error
}

// CandidateArrays is implemented by a Signaler that knows which peers take
// a candidate signal holding an array of candidates (signaling's protocol
// version 2; SignalingAdapter implements it). The Transport sends a peer
// for which it reports false one candidate per signal, the
// RTCIceCandidateInit a browser's onicecandidate gives, as version 1 of the
// protocol carries them. With a Signaler that does not implement it, every
// peer is sent arrays.
type CandidateArrays interface {
	TakesCandidateArrays(peer string) bool
}

// SignalKind is the kind of a negotiation message.
type SignalKind uint8

// The negotiation messages.
const (
	SignalOffer SignalKind = iota + 1
	SignalAnswer
	SignalCandidate
)

func (k SignalKind) String() string {
	switch k {
	case SignalOffer:
		return "offer"
	case SignalAnswer:
		return "answer"
	case SignalCandidate:
		return "candidate"
	}
	return "unknown"
}

// Signal is one negotiation message. Payload is the JSON of an
// RTCSessionDescriptionInit (offer, answer: {"type":..,"sdp":..}), or of an
// RTCIceCandidateInit or an array of them (candidate: a Transport takes either, and sends arrays to
// the peers that take them, see CandidateArrays).
type Signal struct {
	Kind    SignalKind
	Payload []byte
}

// SignalEventKind is the kind of a SignalEvent.
type SignalEventKind uint8

// The rendezvous events.
const (
	// PeerJoined: Peer joined after this endpoint; this endpoint offers.
	PeerJoined SignalEventKind = iota + 1
	// PeerLeft: Peer's rendezvous connection ended.
	PeerLeft
	// SignalReceived: Peer sent Signal.
	SignalReceived
)

// SignalEvent is one rendezvous event.
type SignalEvent struct {
	Kind   SignalEventKind
	Peer   string
	Signal Signal
}
