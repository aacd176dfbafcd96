package signaling

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Message types of the envelope.
const (
	typeJoin       = "join"
	typePeerJoined = "peer-joined"
	typePeerLeft   = "peer-left"
	typeSignal     = "signal"
	typeError      = "error"
)

// Error codes carried by an "error" envelope.
const (
	errCodeUnknownPeer = "unknown-peer"
)

// envelope is every message of the protocol, in both directions (V is the
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
type envelope struct {
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

// signalOverhead bounds the bytes of a signal envelope besides its payload.
const signalOverhead = 96

// appendSignal appends the signal envelope {"v":V,"type":"signal","peer":
// PEER,"kind":KIND,"payload":PAYLOAD} with the payload's bytes unchanged.
// json.Marshal would HTML-escape them ('<' becomes "\u003c", six times the
// size). v must be a version this package speaks, peer and kind valid and
// payload a JSON value.
func appendSignal(b []byte, v int, peer string, kind SignalKind, payload []byte) []byte {
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

// direction says who sent an envelope, which decides the types and fields
// that are allowed.
type direction int

const (
	fromClient direction = iota
	fromServer
)

// maxErrorMessage bounds the message of an "error" envelope.
const maxErrorMessage = 256

// parseEnvelope decodes and validates one message. Anything that does not
// fit the protocol exactly is an error wrapping ErrMalformed: unknown
// fields, trailing data, a wrong version, an unknown type, a field that the
// type does not carry, a malformed id.
func parseEnvelope(b []byte, dir direction) (envelope, error) {
	var e envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return envelope{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return envelope{}, fmt.Errorf("%w: trailing data", ErrMalformed)
	}
	if err := e.validate(dir); err != nil {
		return envelope{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return e, nil
}

// errProtocolVersion: an envelope of a version this package does not speak.
var errProtocolVersion = errors.New("unsupported protocol version")

// speaks reports whether v is a protocol version this package speaks.
func speaks(v int) bool { return oldestProtocolVersion <= v && v <= ProtocolVersion }

// spokenVersions lists the versions the server speaks, oldest first.
func spokenVersions() []int {
	vs := make([]int, 0, ProtocolVersion-oldestProtocolVersion+1)
	for v := oldestProtocolVersion; v <= ProtocolVersion; v++ {
		vs = append(vs, v)
	}
	return vs
}

func (e *envelope) validate(dir direction) error {
	if e.V == 0 {
		return errors.New("no protocol version")
	}
	if !speaks(e.V) {
		return fmt.Errorf("%w %d (this one speaks %d to %d)", errProtocolVersion, e.V, oldestProtocolVersion, ProtocolVersion)
	}
	v2 := e.V >= 2
	// Which fields each type carries.
	var id, room, peers, protocols, ice, max, peer, protocol, signal, errFields bool
	switch {
	case e.Type == typeJoin && dir == fromClient:
	case e.Type == typeJoin && dir == fromServer:
		id, room, peers, protocols, ice, max = true, true, true, v2, true, true
	case e.Type == typeSignal:
		peer, signal = true, true
	case e.Type == typePeerJoined && dir == fromServer:
		peer, protocol = true, v2
	case e.Type == typePeerLeft && dir == fromServer:
		peer = true
	case e.Type == typeError && dir == fromServer:
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
		if !speaks(pv) {
			return fmt.Errorf("peer protocol version %d", pv)
		}
	}
	if protocol && !speaks(e.Protocol) {
		return fmt.Errorf("peer protocol version %d", e.Protocol)
	}
	switch e.Type {
	case typeJoin:
		if dir == fromClient {
			return nil
		}
		if !validID(e.ID) {
			return fmt.Errorf("malformed id %q", e.ID)
		}
		if !validRoom(e.Room) {
			return fmt.Errorf("malformed room %q", e.Room)
		}
		for _, p := range e.Peers {
			if !validID(p) || p == e.ID {
				return fmt.Errorf("malformed peer id %q", p)
			}
		}
		for _, s := range e.ICE {
			if err := s.validate(); err != nil {
				return err
			}
		}
		if e.Max <= 0 {
			return fmt.Errorf("message size limit %d", e.Max)
		}
	case typeSignal:
		if !validID(e.Peer) {
			return fmt.Errorf("malformed peer id %q", e.Peer)
		}
		if !e.Kind.valid() {
			return fmt.Errorf("unknown signal kind %q", e.Kind)
		}
		if len(e.Payload) == 0 || string(e.Payload) == "null" {
			return fmt.Errorf("signal without payload")
		}
	case typePeerJoined, typePeerLeft:
		if !validID(e.Peer) {
			return fmt.Errorf("malformed peer id %q", e.Peer)
		}
	case typeError:
		if e.Code == "" || len(e.Code) > 64 || len(e.Message) > maxErrorMessage {
			return fmt.Errorf("malformed error message")
		}
		if e.Peer != "" && !validID(e.Peer) {
			return fmt.Errorf("malformed peer id %q", e.Peer)
		}
	}
	return nil
}

func (k SignalKind) valid() bool {
	return k == SignalOffer || k == SignalAnswer || k == SignalCandidate
}

// idLen is the length of a server-assigned id: 16 lowercase hex digits
// (64 random bits).
const idLen = 16

func validID(s string) bool {
	if len(s) != idLen {
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

// validRoom reports whether s is a valid room name: 1 to 64 characters from
// A-Z, a-z, 0-9, '.', '_' and '-'.
func validRoom(s string) bool {
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

func (s ICEServer) validate() error {
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

func (s ICEServer) isTURN() bool {
	for _, u := range s.URLs {
		if hasPrefix(u, "turn:") || hasPrefix(u, "turns:") {
			return true
		}
	}
	return false
}

func hasPrefix(s, p string) bool { return len(s) > len(p) && s[:len(p)] == p }
