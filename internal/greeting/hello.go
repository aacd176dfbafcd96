// Package greeting is netplay's own protocol beside the sessions': the
// hello every peer sends every other, the pings that measure the round
// trip, the game's messages, the roster a host sends its clients, and the
// Announcer that speaks it for a host that is not a netplay Match (the
// repository's dedicated host).
package greeting

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
	AppByte = wire.Version<<4 | byte(wire.TypeApp)

	KindHello   = 1
	KindPing    = 2
	KindPong    = 3
	KindMessage = 4

	// MaxName is the longest name, in bytes.
	MaxName = 32
	// MaxMessage is the largest application message, in bytes.
	MaxMessage = 1024

	NoSeat = 0xff

	FlagStarted = 1 << 0
	FlagHeard   = 1 << 1

	helloFixed = 2 + 5 + 2 + 8 + 1
)

// role is what a peer is in a room.
type Role uint8

const (
	RolePlayer    Role = iota + 1 // a P2P player
	RoleSpectator                 // a P2P spectator
	RoleRejoiner                  // a P2P player coming back (seat set)
	RoleHost                      // an authoritative host
	RoleClient                    // an authoritative client
)

func (r Role) String() string {
	switch r {
	case RolePlayer:
		return "a P2P player"
	case RoleSpectator:
		return "a P2P spectator"
	case RoleRejoiner:
		return "a P2P player coming back"
	case RoleHost:
		return "an authoritative host"
	case RoleClient:
		return "an authoritative client"
	}
	return fmt.Sprintf("role %d", uint8(r))
}

// hello is the message every peer sends every other while it connects, and
// now and then after.
type Hello struct {
	Role      Role
	Seat      uint8
	Flags     uint8
	Delay     uint8
	Players   uint8
	FrameRate uint16
	Settings  uint64
	Name      string
}

func (h Hello) Len() int { return helloFixed + len(h.Name) }

// Append appends h's encoding to b; it allocates nothing when b has room.
func (h Hello) Append(b []byte) []byte {
	b = append(b, AppByte, KindHello, byte(h.Role), h.Seat, h.Flags, h.Delay, h.Players)
	b = binary.LittleEndian.AppendUint16(b, h.FrameRate)
	b = binary.LittleEndian.AppendUint64(b, h.Settings)
	b = append(b, byte(len(h.Name)))
	return append(b, h.Name...)
}

// parseHello decodes a whole hello; name is a view of b unless keep makes
// a string of it (allocating only when it differs from old).
func ParseHello(b []byte, oldName string) (h Hello, n int, err error) {
	if len(b) < helloFixed {
		return h, 0, io.ErrUnexpectedEOF
	}
	if b[0] != AppByte || b[1] != KindHello {
		return h, 0, ErrMalformed
	}
	h.Role, h.Seat, h.Flags, h.Delay, h.Players = Role(b[2]), b[3], b[4], b[5], b[6]
	h.FrameRate = binary.LittleEndian.Uint16(b[7:])
	h.Settings = binary.LittleEndian.Uint64(b[9:])
	nl := int(b[17])
	if h.Role < RolePlayer || h.Role > RoleClient || h.Flags&^(FlagStarted|FlagHeard) != 0 || nl > MaxName {
		return h, 0, ErrMalformed
	}
	if len(b) < helloFixed+nl {
		return h, 0, io.ErrUnexpectedEOF
	}
	if len(b) > helloFixed+nl {
		return h, 0, ErrMalformed
	}
	name := b[helloFixed:]
	if !ValidName(name) {
		return h, 0, ErrMalformed
	}
	if string(name) == oldName { // no allocation when it did not change
		h.Name = oldName
	} else {
		h.Name = string(name)
	}
	return h, len(b), nil
}

// validName: printable UTF-8 (names are drawn on terminals).
func ValidName(b []byte) bool {
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
func CleanName(s string) string {
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

func AppendStamp(b []byte, kind byte, stamp uint64) []byte {
	b = append(b, AppByte, kind)
	return binary.LittleEndian.AppendUint64(b, stamp)
}

// parseStamp decodes a whole ping or pong.
func ParseStamp(b []byte) (kind byte, stamp uint64, err error) {
	if len(b) < 10 {
		return 0, 0, io.ErrUnexpectedEOF
	}
	if b[0] != AppByte || (b[1] != KindPing && b[1] != KindPong) || len(b) != 10 {
		return 0, 0, ErrMalformed
	}
	return b[1], binary.LittleEndian.Uint64(b[2:]), nil
}

func AppendMessage(b, payload []byte) []byte {
	return append(append(b, AppByte, KindMessage), payload...)
}

// parseMessage returns the payload of a whole message (a view of b).
func ParseMessage(b []byte) ([]byte, error) {
	if len(b) < 3 {
		return nil, io.ErrUnexpectedEOF
	}
	if b[0] != AppByte || b[1] != KindMessage || len(b)-2 > MaxMessage {
		return nil, ErrMalformed
	}
	return b[2:], nil
}
