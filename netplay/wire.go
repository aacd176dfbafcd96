package netplay

import (
	"encoding/binary"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/rollnet/rollnet/internal/wire"
)

// netplay's messages travel on the transport beside the session's, under
// wire.TypeApp (type 0, which no session message uses): a session never
// sees them (the mux takes them off the transport first). Each is
//
//	[wire.Version<<4 | wire.TypeApp] [kind u8] body
//
// kind 1 hello: [role u8] [seat u8] [flags u8] [delay u8] [players u8]
//
//	[frame rate u16 LE] [settings u64 LE] [name len u8] [name]
//
// kind 2 ping, kind 3 pong: [stamp u64 LE] (the pinger's clock, echoed)
// kind 4 message: [payload], 1 to MaxMessage bytes
//
// seat is 0xff before the sender has one. flags bit 0: the sender's match
// has started (delay is then the match's input delay; before, the
// sender's proposal, 0 while it has none); bit 1: the sender has heard the
// receiver's hello. A name is at most MaxName bytes of printable UTF-8.
// Trailing bytes are refused.
const (
	appByte = wire.Version<<4 | byte(wire.TypeApp)

	kindHello   = 1
	kindPing    = 2
	kindPong    = 3
	kindMessage = 4

	// MaxName is the longest name, in bytes.
	MaxName = 32
	// MaxMessage is the largest application message, in bytes.
	MaxMessage = 1024

	noSeat = 0xff

	flagStarted = 1 << 0
	flagHeard   = 1 << 1

	helloFixed = 2 + 5 + 2 + 8 + 1
)

// role is what a peer is in a room.
type role uint8

const (
	rolePlayer    role = iota + 1 // a P2P player
	roleSpectator                 // a P2P spectator
	roleRejoiner                  // a P2P player coming back (seat set)
	roleHost                      // an authoritative host
	roleClient                    // an authoritative client
)

func (r role) String() string {
	switch r {
	case rolePlayer:
		return "a P2P player"
	case roleSpectator:
		return "a P2P spectator"
	case roleRejoiner:
		return "a P2P player coming back"
	case roleHost:
		return "an authoritative host"
	case roleClient:
		return "an authoritative client"
	}
	return fmt.Sprintf("role %d", uint8(r))
}

// hello is the message every peer sends every other while it connects, and
// now and then after.
type hello struct {
	Role      role
	Seat      uint8
	Flags     uint8
	Delay     uint8
	Players   uint8
	FrameRate uint16
	Settings  uint64
	Name      string
}

func (h hello) Len() int { return helloFixed + len(h.Name) }

// Append appends h's encoding to b; it allocates nothing when b has room.
func (h hello) Append(b []byte) []byte {
	b = append(b, appByte, kindHello, byte(h.Role), h.Seat, h.Flags, h.Delay, h.Players)
	b = binary.LittleEndian.AppendUint16(b, h.FrameRate)
	b = binary.LittleEndian.AppendUint64(b, h.Settings)
	b = append(b, byte(len(h.Name)))
	return append(b, h.Name...)
}

// parseHello decodes a whole hello; name is a view of b unless keep makes
// a string of it (allocating only when it differs from old).
func parseHello(b []byte, oldName string) (h hello, n int, err error) {
	if len(b) < helloFixed {
		return h, 0, io.ErrUnexpectedEOF
	}
	if b[0] != appByte || b[1] != kindHello {
		return h, 0, errMalformed
	}
	h.Role, h.Seat, h.Flags, h.Delay, h.Players = role(b[2]), b[3], b[4], b[5], b[6]
	h.FrameRate = binary.LittleEndian.Uint16(b[7:])
	h.Settings = binary.LittleEndian.Uint64(b[9:])
	nl := int(b[17])
	if h.Role < rolePlayer || h.Role > roleClient || h.Flags&^(flagStarted|flagHeard) != 0 || nl > MaxName {
		return h, 0, errMalformed
	}
	if len(b) < helloFixed+nl {
		return h, 0, io.ErrUnexpectedEOF
	}
	if len(b) > helloFixed+nl {
		return h, 0, errMalformed
	}
	name := b[helloFixed:]
	if !validName(name) {
		return h, 0, errMalformed
	}
	if string(name) == oldName { // no allocation when it did not change
		h.Name = oldName
	} else {
		h.Name = string(name)
	}
	return h, len(b), nil
}

// validName: printable UTF-8 (names are drawn on terminals).
func validName(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
		b = b[size:]
	}
	return true
}

// cleanName cuts s to MaxName bytes at a rune and drops what is not
// printable.
func cleanName(s string) string {
	out := make([]byte, 0, MaxName)
	for _, r := range s {
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			continue
		}
		if len(out)+utf8.RuneLen(r) > MaxName {
			break
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}

func appendStamp(b []byte, kind byte, stamp uint64) []byte {
	b = append(b, appByte, kind)
	return binary.LittleEndian.AppendUint64(b, stamp)
}

// parseStamp decodes a whole ping or pong.
func parseStamp(b []byte) (kind byte, stamp uint64, err error) {
	if len(b) < 10 {
		return 0, 0, io.ErrUnexpectedEOF
	}
	if b[0] != appByte || (b[1] != kindPing && b[1] != kindPong) || len(b) != 10 {
		return 0, 0, errMalformed
	}
	return b[1], binary.LittleEndian.Uint64(b[2:]), nil
}

func appendMessage(b, payload []byte) []byte {
	return append(append(b, appByte, kindMessage), payload...)
}

// parseMessage returns the payload of a whole message (a view of b).
func parseMessage(b []byte) ([]byte, error) {
	if len(b) < 3 {
		return nil, io.ErrUnexpectedEOF
	}
	if b[0] != appByte || b[1] != kindMessage || len(b)-2 > MaxMessage {
		return nil, errMalformed
	}
	return b[2:], nil
}
