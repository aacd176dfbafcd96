package webrtc

import "context"

// signaler is the rendezvous a Transport negotiates through: it names this
// endpoint, tells who is already there and who joins or leaves, and carries
// offers, answers and candidates to one peer. The signaling package's client
// satisfies it through signalingAdapter (New, Dial, RoomDialer); tests use an
// in-memory one.
type signaler interface {
	// localID is this endpoint's identity; the Transport's Local.
	localID() string
	// present is the ids already present when this endpoint joined. They
	// offer to it; it waits for their offers.
	present() []string
	// iceServers is the list the rendezvous hands out, used when
	// Config.ICEServers is nil.
	iceServers() []ICEServer
	// events delivers joins, leaves and signals, and is closed when the
	// rendezvous connection ends.
	events() <-chan signalEvent
	// send carries one signal to one peer.
	send(ctx context.Context, to string, s signalMsg) error
}

// candidateArrays is implemented by a signaler that knows which peers take
// a candidate signal holding an array of candidates (signaling's protocol
// version 2; signalingAdapter implements it). The Transport sends a peer
// for which it reports false one candidate per signal, the
// RTCIceCandidateInit a browser's onicecandidate gives, as version 1 of the
// protocol carries them. With a signaler that does not implement it, every
// peer is sent arrays.
type candidateArrays interface {
	takesCandidateArrays(peer string) bool
}

// signalKind is the kind of a negotiation message.
type signalKind uint8

// The negotiation messages.
const (
	signalOffer signalKind = iota + 1
	signalAnswer
	signalCandidate
)

func (k signalKind) String() string {
	switch k {
	case signalOffer:
		return "offer"
	case signalAnswer:
		return "answer"
	case signalCandidate:
		return "candidate"
	}
	return "unknown"
}

// signalMsg is one negotiation message. Payload is the JSON of an
// RTCSessionDescriptionInit (offer, answer: {"type":..,"sdp":..}), or of an
// RTCIceCandidateInit or an array of them (candidate: a Transport takes either, and sends arrays to
// the peers that take them, see candidateArrays).
type signalMsg struct {
	Kind    signalKind
	Payload []byte
}

// signalEventKind is the kind of a signalEvent.
type signalEventKind uint8

// The rendezvous events.
const (
	// peerJoined: Peer joined after this endpoint; this endpoint offers.
	peerJoined signalEventKind = iota + 1
	// peerLeft: Peer's rendezvous connection ended.
	peerLeft
	// signalReceived: Peer sent Signal.
	signalReceived
)

// signalEvent is one rendezvous event.
type signalEvent struct {
	Kind   signalEventKind
	Peer   string
	Signal signalMsg
}
