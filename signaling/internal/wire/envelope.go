package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ProtocolVersion is the newest version of the protocol (doc.go), the one
// this package's Client speaks: the version carried in every envelope
// ("v"), and reported by the server on GET /. The server also speaks every
// version down to 1, to each connection in the version it joined with.
const ProtocolVersion = 2

// OldestProtocolVersion is the oldest version the server still speaks.
const OldestProtocolVersion = 1

// ICEServer is one STUN or TURN server handed out to clients at join. Its
// JSON form matches the browser's RTCIceServer.
type ICEServer struct {
	URLs       []string `json:"urls"`
	Username   string   `json:"username,omitempty"`
	Credential string   `json:"credential,omitempty"`
}

// SignalKind names what a Signal carries.
type SignalKind string

// The signal kinds the server relays.
const (
	SignalOffer     SignalKind = "offer"
	SignalAnswer    SignalKind = "answer"
	SignalCandidate SignalKind = "candidate"
)

// Signal is one offer, answer or ICE candidate. The payload is opaque to the
// server: any JSON value except null (an SDP object, a candidate object, a
// string).
type Signal struct {
	Kind    SignalKind      `json:"kind"`
	Payload json.RawMessage `json:"payload"`
}

// Message types of the envelope.
const (
	TypeJoin       = "join"
	TypePeerJoined = "peer-joined"
	TypePeerLeft   = "peer-left"
	TypeSignal     = "signal"
	TypeError      = "error"
)

// Error codes carried by an "error" envelope.
const (
	ErrCodeUnknownPeer = "unknown-peer"
)

// Envelope is every message of the protocol, in both directions (V is the
// version the connection joined with; the fields marked v2 are sent to,
// and accepted from, version 2 only):
//
//	client → server  {"v":V,"type":"join"}
//	client → server  {"v":V,"type":"signal","peer":TO,"kind":K,"payload":P}
//	server → client  {"v":V,"type":"join","id":ID,"room":R,"peers":[...],"protocols":[...] (v2),"ice":[...],"max":N}
//	server → client  {"v":V,"type":"peer-joined","peer":ID,"protocol":PV (v2)}
//	server → client  {"v":V,"type":"peer-left","peer":ID}
//	server → client  {"v":V,"type":"signal","peer":FROM,"kind":K,"payload":P}
//	server → client  {"v":V,"type":"error","code":C,"message":M,"peer":ID}
type Envelope struct {
	V         int             `json:"v"`
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Room      string          `json:"room,omitempty"`
	Peers     []string        `json:"peers,omitempty"`
	Protocols []int           `json:"protocols,omitempty"`
	ICE       []ICEServer     `json:"ice,omitempty"`
	Max       int             `json:"max,omitempty"`
	Peer      string          `json:"peer,omitempty"`
	Protocol  int             `json:"protocol,omitempty"`
	Kind      SignalKind      `json:"kind,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	Code      string          `json:"code,omitempty"`
	Message   string          `json:"message,omitempty"`
}

// SignalOverhead bounds the bytes of a signal envelope besides its payload.
const SignalOverhead = 96

// AppendSignal appends the signal envelope {"v":V,"type":"signal","peer":
// PEER,"kind":KIND,"payload":PAYLOAD} with the payload's bytes unchanged.
// json.Marshal would HTML-escape them ('<' becomes "\u003c", six times the
// size). v must be a version this package speaks, peer and kind valid and
// payload a JSON value.
func AppendSignal(b []byte, v int, peer string, kind SignalKind, payload []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, `,"type":"signal","peer":"`...)
	b = append(b, peer...)
	b = append(b, `","kind":"`...)
	b = append(b, kind...)
	b = append(b, `","payload":`...)
	b = append(b, payload...)
	return append(b, '}')
}

// Direction says who sent an Envelope, which decides the types and fields
// that are allowed.
type Direction int

const (
	FromClient Direction = iota
	FromServer
)

// MaxErrorMessage bounds the message of an "error" Envelope.
const MaxErrorMessage = 256

// ParseEnvelope decodes and validates one message. Anything that does not
// fit the protocol exactly is an error wrapping ErrMalformed: unknown
// fields, trailing data, a wrong version, an unknown type, a field that the
// type does not carry, a malformed id.
func ParseEnvelope(b []byte, dir Direction) (Envelope, error) {
	var e Envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Envelope{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Envelope{}, fmt.Errorf("%w: trailing data", ErrMalformed)
	}
	if err := e.validate(dir); err != nil {
		return Envelope{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return e, nil
}

// ErrUnsupportedVersion: an Envelope of a version this package does not speak.
var ErrUnsupportedVersion = errors.New("unsupported protocol version")

// Speaks reports whether v is a protocol version this package speaks.
func Speaks(v int) bool { return OldestProtocolVersion <= v && v <= ProtocolVersion }

// SpokenVersions lists the versions the server speaks, oldest first.
func SpokenVersions() []int {
	vs := make([]int, 0, ProtocolVersion-OldestProtocolVersion+1)
	for v := OldestProtocolVersion; v <= ProtocolVersion; v++ {
		vs = append(vs, v)
	}
	return vs
}

func (e *Envelope) validate(dir Direction) error {
	if e.V == 0 {
		return errors.New("no protocol version")
	}
	if !Speaks(e.V) {
		return fmt.Errorf("%w %d (this one speaks %d to %d)", ErrUnsupportedVersion, e.V, OldestProtocolVersion, ProtocolVersion)
	}
	v2 := e.V >= 2
	// Which fields each type carries.
	var id, room, peers, protocols, ice, max, peer, protocol, signal, errFields bool
	switch {
	case e.Type == TypeJoin && dir == FromClient:
	case e.Type == TypeJoin && dir == FromServer:
		id, room, peers, protocols, ice, max = true, true, true, v2, true, true
	case e.Type == TypeSignal:
		peer, signal = true, true
	case e.Type == TypePeerJoined && dir == FromServer:
		peer, protocol = true, v2
	case e.Type == TypePeerLeft && dir == FromServer:
		peer = true
	case e.Type == TypeError && dir == FromServer:
		errFields = true
		peer = true
	default:
		return fmt.Errorf("unexpected message type %q", e.Type)
	}
	if !id && e.ID != "" || !room && e.Room != "" || !peers && e.Peers != nil ||
		!protocols && e.Protocols != nil || !protocol && e.Protocol != 0 ||
		!ice && e.ICE != nil || !max && e.Max != 0 || !peer && e.Peer != "" ||
		!signal && (e.Kind != "" || e.Payload != nil) ||
		!errFields && (e.Code != "" || e.Message != "") {
		return fmt.Errorf("field not allowed in a %q message of version %d", e.Type, e.V)
	}
	if protocols && len(e.Protocols) != len(e.Peers) {
		return fmt.Errorf("%d protocols for %d peers", len(e.Protocols), len(e.Peers))
	}
	for _, pv := range e.Protocols {
		if !Speaks(pv) {
			return fmt.Errorf("peer protocol version %d", pv)
		}
	}
	if protocol && !Speaks(e.Protocol) {
		return fmt.Errorf("peer protocol version %d", e.Protocol)
	}
	switch e.Type {
	case TypeJoin:
		if dir == FromClient {
			return nil
		}
		if !ValidID(e.ID) {
			return fmt.Errorf("malformed id %q", e.ID)
		}
		if !ValidRoom(e.Room) {
			return fmt.Errorf("malformed room %q", e.Room)
		}
		for _, p := range e.Peers {
			if !ValidID(p) || p == e.ID {
				return fmt.Errorf("malformed peer id %q", p)
			}
		}
		for _, s := range e.ICE {
			if err := s.Validate(); err != nil {
				return err
			}
		}
		if e.Max <= 0 {
			return fmt.Errorf("message size limit %d", e.Max)
		}
	case TypeSignal:
		if !ValidID(e.Peer) {
			return fmt.Errorf("malformed peer id %q", e.Peer)
		}
		if !e.Kind.Valid() {
			return fmt.Errorf("unknown signal kind %q", e.Kind)
		}
		if len(e.Payload) == 0 || string(e.Payload) == "null" {
			return fmt.Errorf("signal without payload")
		}
	case TypePeerJoined, TypePeerLeft:
		if !ValidID(e.Peer) {
			return fmt.Errorf("malformed peer id %q", e.Peer)
		}
	case TypeError:
		if e.Code == "" || len(e.Code) > 64 || len(e.Message) > MaxErrorMessage {
			return fmt.Errorf("malformed error message")
		}
		if e.Peer != "" && !ValidID(e.Peer) {
			return fmt.Errorf("malformed peer id %q", e.Peer)
		}
	}
	return nil
}

func (k SignalKind) Valid() bool {
	return k == SignalOffer || k == SignalAnswer || k == SignalCandidate
}

// IDLen is the length of a server-assigned id: 16 lowercase hex digits
// (64 random bits).
const IDLen = 16

func ValidID(s string) bool {
	if len(s) != IDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// maxRoomName bounds a room name's length.
const maxRoomName = 64

// ValidRoom reports whether s is a valid room name: 1 to 64 characters from
// A-Z, a-z, 0-9, '.', '_' and '-'.
func ValidRoom(s string) bool {
	if len(s) == 0 || len(s) > maxRoomName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' ||
			c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (s ICEServer) Validate() error {
	if len(s.URLs) == 0 {
		return fmt.Errorf("ICE server without URLs")
	}
	turn := false
	for _, u := range s.URLs {
		switch {
		case hasPrefix(u, "stun:"), hasPrefix(u, "stuns:"):
		case hasPrefix(u, "turn:"), hasPrefix(u, "turns:"):
			turn = true
		default:
			return fmt.Errorf("ICE server URL %q: want a stun, stuns, turn or turns URL", u)
		}
	}
	if turn && (s.Username == "" || s.Credential == "") {
		return fmt.Errorf("TURN server %q without username and credential", s.URLs[0])
	}
	return nil
}

func (s ICEServer) IsTURN() bool {
	for _, u := range s.URLs {
		if hasPrefix(u, "turn:") || hasPrefix(u, "turns:") {
			return true
		}
	}
	return false
}

func hasPrefix(s, p string) bool { return len(s) > len(p) && s[:len(p)] == p }
