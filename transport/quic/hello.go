package quic

import (
	"fmt"
	"io"

	"github.com/rollnet/rollnet/transport"
)

// The hello exchange runs once per connection, right after the handshake,
// on the first bidirectional stream, which the client opens:
//
//	client → host: hello    kind 'H', key length (0 or 32), key
//	host → client: welcome  kind 'W', your id (length, bytes), host id (length, bytes)
//	            or refusal  kind 'R', reason (length, bytes)
//
// Each side writes its message and closes its half of the stream. The key
// is the connect token's client key (token.Grant.Key), sent inside TLS: it
// proves that the client is the one the token was minted for, not someone
// who copied the token from a ClientHello. Datagrams flow only after the
// welcome.

const (
	helloKind   = 'H'
	welcomeKind = 'W'
	refusalKind = 'R'
	keyLen      = 32

	// maxHelloLen bounds what either side reads of the other's message.
	maxHelloLen = 3 + 2*255
)

// hello is the client's first message.
type hello struct {
	key    [keyLen]byte
	hasKey bool
}

func (h hello) Len() int {
	if h.hasKey {
		return 2 + keyLen
	}
	return 2
}

func (h hello) Append(b []byte) []byte {
	if !h.hasKey {
		return append(b, helloKind, 0)
	}
	b = append(b, helloKind, keyLen)
	return append(b, h.key[:]...)
}

func parseHello(b []byte) (h hello, n int, err error) {
	if len(b) < 2 {
		return h, 0, io.ErrUnexpectedEOF
	}
	if b[0] != helloKind {
		return h, 0, fmt.Errorf("%w: kind %#x is not a hello", ErrHello, b[0])
	}
	switch b[1] {
	case 0:
		return h, 2, nil
	case keyLen:
		if len(b) < 2+keyLen {
			return h, 0, io.ErrUnexpectedEOF
		}
		copy(h.key[:], b[2:])
		h.hasKey = true
		return h, 2 + keyLen, nil
	}
	return h, 0, fmt.Errorf("%w: key of %d bytes", ErrHello, b[1])
}

// welcome is the host's answer: admitted with the ids both sides use, or
// refused with a reason.
type welcome struct {
	admitted  bool
	you, host transport.Peer
	reason    string
}

func (w welcome) Len() int {
	if !w.admitted {
		return 2 + len(w.reason)
	}
	return 3 + len(w.you) + len(w.host)
}

// Append writes w; ids and reason are cut to 255 bytes.
func (w welcome) Append(b []byte) []byte {
	field := func(b []byte, s string) []byte {
		s = s[:min(len(s), 255)]
		return append(append(b, byte(len(s))), s...)
	}
	if !w.admitted {
		return field(append(b, refusalKind), w.reason)
	}
	return field(field(append(b, welcomeKind), string(w.you)), string(w.host))
}

func parseWelcome(b []byte) (w welcome, n int, err error) {
	field := func(off int) (string, int, error) {
		if len(b) < off+1 || len(b) < off+1+int(b[off]) {
			return "", 0, io.ErrUnexpectedEOF
		}
		return string(b[off+1 : off+1+int(b[off])]), off + 1 + int(b[off]), nil
	}
	if len(b) < 1 {
		return w, 0, io.ErrUnexpectedEOF
	}
	switch b[0] {
	case refusalKind:
		w.reason, n, err = field(1)
		return w, n, err
	case welcomeKind:
		var you, host string
		if you, n, err = field(1); err != nil {
			return w, 0, err
		}
		if host, n, err = field(n); err != nil {
			return w, 0, err
		}
		if you == "" || host == "" || you == host {
			return w, 0, fmt.Errorf("%w: welcome ids %q and %q", ErrHello, you, host)
		}
		return welcome{admitted: true, you: transport.Peer(you), host: transport.Peer(host)}, n, nil
	}
	return w, 0, fmt.Errorf("%w: kind %#x is not a welcome", ErrHello, b[0])
}
