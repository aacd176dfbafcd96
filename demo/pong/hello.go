package main

import (
	"context"
	"encoding/binary"
	"io"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/transport"
)

// hello is the demo's own message, sent over the transport before the
// session uses it: the players' names, so that each screen shows a name
// rather than a hex id, and, from the left player to a spectator, the
// frame the match is at, so that the spectator can show how far it has
// to catch up. The session never needs it: a hello that reaches a session
// is dropped there as malformed (its first byte is the session's wire
// version with type 0, which no message uses, so it is never taken for a
// peer of another version).
//
//	[codec.Version<<4 | 0] "pong" [flags u8] [frame u32 LE]
//	[len u8][left's name] [len u8][right's name]
//
// flags bit 0 (heard): the sender has the receiver's hello. A name is at
// most maxName bytes of printable UTF-8 (it is drawn on a terminal:
// control characters and escape sequences are refused).
type hello struct {
	Heard bool
	Frame int32     // the sender's frame (to a spectator); 0 between players
	Names [2]string // the players' names by side; "" where the sender does not know it
}

const (
	helloType  = codec.Version << 4 // type 0: no message uses it
	helloMagic = "pong"
	maxName    = 32
	helloMax   = 1 + len(helloMagic) + 1 + 4 + 2*(1+maxName)
)

// Len is the encoded length of h.
func (h hello) Len() int { return 1 + len(helloMagic) + 1 + 4 + 2 + len(h.Names[0]) + len(h.Names[1]) }

// Append appends h's encoding to b; it allocates nothing when b has room
// for Len more bytes. Names longer than maxName are cut (at a rune).
func (h hello) Append(b []byte) []byte {
	b = append(b, helloType)
	b = append(b, helloMagic...)
	var flags byte
	if h.Heard {
		flags = 1
	}
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Frame))
	for _, n := range h.Names {
		n = cutName(n)
		b = append(b, byte(len(n)))
		b = append(b, n...)
	}
	return b
}

// parseHello decodes a hello from the start of b. It returns errNotHello
// for anything else (a session's packet), io.ErrUnexpectedEOF for a short
// one, errHelloInvalid for one that breaks the rules above.
func parseHello(b []byte) (h hello, n int, err error) {
	if len(b) < 1+len(helloMagic) {
		if len(b) > 0 && b[0] != helloType {
			return h, 0, errNotHello
		}
		return h, 0, io.ErrUnexpectedEOF
	}
	if b[0] != helloType || string(b[1:1+len(helloMagic)]) != helloMagic {
		return h, 0, errNotHello
	}
	n = 1 + len(helloMagic)
	if len(b) < n+5 {
		return h, 0, io.ErrUnexpectedEOF
	}
	flags := b[n]
	if flags&^1 != 0 {
		return h, 0, errHelloInvalid
	}
	h.Heard = flags == 1
	h.Frame = int32(binary.LittleEndian.Uint32(b[n+1:]))
	if h.Frame < 0 {
		return h, 0, errHelloInvalid
	}
	n += 5
	for i := range h.Names {
		if len(b) < n+1 {
			return hello{}, 0, io.ErrUnexpectedEOF
		}
		l := int(b[n])
		n++
		if l > maxName {
			return hello{}, 0, errHelloInvalid
		}
		if len(b) < n+l {
			return hello{}, 0, io.ErrUnexpectedEOF
		}
		name := string(b[n : n+l])
		if !validName(name) {
			return hello{}, 0, errHelloInvalid
		}
		h.Names[i] = name
		n += l
	}
	return h, n, nil
}

// validName reports whether s can be shown as a name: at most maxName
// bytes of printable UTF-8, no control characters.
func validName(s string) bool {
	if len(s) > maxName || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// cutName cuts s to at most maxName bytes, at a rune boundary.
func cutName(s string) string {
	if len(s) <= maxName {
		return s
	}
	s = s[:maxName]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// helloEvery is how often greet sends its hello.
const helloEvery = 20 * time.Millisecond

// greet exchanges hellos with peer over t before a session uses t: it
// sends mine every helloEvery until it has the peer's and the peer says it
// has ours, for at most within, and returns the peer's hello (ok false if
// none came). Anything else that arrives (the peer's session, started
// first; a spectator's) is dropped: a session's handshake retries.
func greet(ctx context.Context, t transport.Transport, peer transport.Peer, mine hello, within time.Duration) (theirs hello, ok bool) {
	buf := make([]byte, transport.MaxDatagram)
	out := make([]byte, 0, helloMax)
	tick := time.NewTicker(helloEvery)
	defer tick.Stop()
	deadline := time.Now().Add(within)
	for heard := false; ; {
		mine.Heard = ok
		_ = t.Send(peer, mine.Append(out[:0]))
		for {
			n, from, err := t.Receive(buf)
			if err != nil {
				break
			}
			if h, _, err := parseHello(buf[:n]); err == nil && from == peer {
				theirs, ok, heard = h, true, heard || h.Heard
			}
		}
		if ok && heard {
			// Both have both. Two more, in case ours saying so was lost:
			// a peer that never hears it waits out its own within.
			mine.Heard = true
			for range 2 {
				_ = t.Send(peer, mine.Append(out[:0]))
			}
			return theirs, true
		}
		if !time.Now().Before(deadline) {
			return theirs, ok
		}
		select {
		case <-ctx.Done():
			return theirs, ok
		case <-tick.C:
		}
	}
}

// awaitHello waits, at most within, for a hello from peer over t, and
// drops anything else that arrives first (the peer's session's handshake
// retries).
func awaitHello(ctx context.Context, t transport.Transport, peer transport.Peer, within time.Duration) (hello, bool) {
	buf := make([]byte, transport.MaxDatagram)
	tick := time.NewTicker(helloEvery)
	defer tick.Stop()
	deadline := time.Now().Add(within)
	for {
		for {
			n, from, err := t.Receive(buf)
			if err != nil {
				break
			}
			if h, _, err := parseHello(buf[:n]); err == nil && from == peer {
				return h, true
			}
		}
		if !time.Now().Before(deadline) {
			return hello{}, false
		}
		select {
		case <-ctx.Done():
			return hello{}, false
		case <-tick.C:
		}
	}
}
