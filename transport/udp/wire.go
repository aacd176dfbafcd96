package udp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"math"
	"net/netip"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// wireVersion is the version of this package's wire format. It is the second
// byte of a connection request and is mixed into every key; a change to
// any packet's layout bumps it.
// Version 2 added the ping and the pong (a round trip of its own).
const wireVersion = 2

// The packet kinds, each packet's first byte.
const (
	kindRequest    = 1  // client: connection request, padded to requestSize
	kindChallenge  = 2  // host: a cookie for the request's address
	kindResponse   = 3  // client: the cookie back, sealed with its key
	kindVersion    = 4  // host: the request's version is not ours
	kindPayload    = 5  // sealed: a datagram of the session's
	kindKeepAlive  = 6  // sealed: nothing to say
	kindDisconnect = 7  // sealed: the sender closed
	kindDenied     = 8  // sealed (host): full, or the address holds its share
	kindPing       = 9  // sealed: a stamp for the peer to echo (version 2)
	kindPong       = 10 // sealed: a ping's stamp back, and how long it waited (version 2)
)

// Sizes of the wire format.
const (
	// requestSize is a connection request's exact size: a token and its
	// fields, padded, so that the challenge that answers it is smaller.
	requestSize = 256
	saltSize    = 8
	tagSize     = 16
	headerSize  = 1 + 8 // kind, sequence number
	// overhead is what a sealed datagram adds to the session's bytes.
	overhead      = headerSize + tagSize
	cookieSize    = 8 + 8 + tagSize // counter (the host's salt), sealed expiry
	challengeSize = 1 + cookieSize + tagSize
	requestFixed  = 1 + 1 + saltSize + 1
	maxPacket     = transport.MaxDatagram + overhead
)

// request is a client's connection request.
type request struct {
	salt  [saltSize]byte
	token []byte // into the packet
}

func (r request) Append(b []byte) []byte {
	start := len(b)
	b = append(b, kindRequest, wireVersion)
	b = append(b, r.salt[:]...)
	b = append(b, byte(len(r.token)))
	b = append(b, r.token...)
	for len(b)-start < requestSize {
		b = append(b, 0)
	}
	return b
}

// parseRequest reads a request. A request must be exactly requestSize
// bytes, so that no smaller one gets a challenge.
func parseRequest(b []byte) (r request, err error) {
	if len(b) != requestSize || b[0] != kindRequest {
		return r, io.ErrUnexpectedEOF
	}
	if b[1] != wireVersion {
		return r, ErrVersion
	}
	copy(r.salt[:], b[2:])
	n := int(b[requestFixed-1])
	if n > connecttoken.MaxSize || requestFixed+n > len(b) {
		return r, io.ErrUnexpectedEOF
	}
	r.token = b[requestFixed : requestFixed+n]
	return r, nil
}

// response is a client's answer to a challenge: the request's fields, the
// host's cookie, and a tag under the client's key over all of it.
type response struct {
	salt   [saltSize]byte
	token  []byte
	cookie []byte // cookieSize bytes
}

// Append appends the response without its tag.
func (r response) Append(b []byte) []byte {
	b = append(b, kindResponse, wireVersion)
	b = append(b, r.salt[:]...)
	b = append(b, byte(len(r.token)))
	b = append(b, r.token...)
	return append(b, r.cookie...)
}

// parseResponse reads a response; body is what its tag covers.
func parseResponse(b []byte) (r response, body, tag []byte, err error) {
	if len(b) < requestFixed+cookieSize+tagSize || b[0] != kindResponse {
		return r, nil, nil, io.ErrUnexpectedEOF
	}
	if b[1] != wireVersion {
		return r, nil, nil, ErrVersion
	}
	copy(r.salt[:], b[2:])
	n := int(b[requestFixed-1])
	if n > connecttoken.MaxSize || len(b) != requestFixed+n+cookieSize+tagSize {
		return r, nil, nil, io.ErrUnexpectedEOF
	}
	r.token = b[requestFixed : requestFixed+n]
	r.cookie = b[requestFixed+n : requestFixed+n+cookieSize]
	return r, b[:len(b)-tagSize], b[len(b)-tagSize:], nil
}

// nonce is the AEAD nonce of sequence number seq.
func nonce(dst *[12]byte, seq uint64) []byte {
	*dst = [12]byte{}
	binary.LittleEndian.PutUint64(dst[4:], seq)
	return dst[:]
}

// sealPacket appends a sealed packet of kind with sequence number seq and
// payload p to b. Sequence number 0 is the handshake's. n is scratch for
// the nonce, which escapes through the AEAD interface: a connection's own,
// so that sealing allocates nothing.
func sealPacket(b []byte, a cipher.AEAD, n *[12]byte, kind byte, seq uint64, p []byte) []byte {
	start := len(b)
	b = append(b, kind)
	b = binary.LittleEndian.AppendUint64(b, seq)
	return a.Seal(b, nonce(n, seq), p, b[start:])
}

// parseSealed reads a sealed packet's header; it does not open it.
func parseSealed(b []byte) (kind byte, seq uint64, err error) {
	if len(b) < overhead || len(b) > maxPacket {
		return 0, 0, io.ErrUnexpectedEOF
	}
	kind = b[0]
	if kind < kindPayload || kind > kindPong {
		return 0, 0, io.ErrUnexpectedEOF
	}
	seq = binary.LittleEndian.Uint64(b[1:])
	if seq == 0 {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return kind, seq, nil
}

// openPacket opens a sealed packet in place and returns its payload; n is
// scratch for the nonce, as for sealPacket.
func openPacket(b []byte, a cipher.AEAD, n *[12]byte, seq uint64) ([]byte, error) {
	return a.Open(b[headerSize:headerSize], nonce(n, seq), b[headerSize:], b[:headerSize])
}

// Sizes of a ping's and a pong's payloads.
const (
	pingSize = 8 + 4 // the pinger's stamp, opaque to the peer, and 4 zero bytes: a pong is no larger
	pongSize = 8 + 4 // the stamp, and the ping's wait before it was read (µs)
)

// appendPing appends a ping's payload: stamp, which the peer echoes, and
// zeros to a pong's size, so that no answer is larger than its ping.
func appendPing(b []byte, stamp uint64) []byte {
	b = binary.LittleEndian.AppendUint64(b, stamp)
	return append(b, 0, 0, 0, 0)
}

// parsePing reads a ping's payload.
func parsePing(p []byte) (stamp uint64, err error) {
	if len(p) != pingSize || binary.LittleEndian.Uint32(p[8:]) != 0 {
		return 0, io.ErrUnexpectedEOF
	}
	return binary.LittleEndian.Uint64(p), nil
}

// appendPong appends a pong's payload: the ping's stamp, and how long
// the ping waited at the answering end between its arrival (the kernel's
// receive time) and its answer, in microseconds (at most 2^32-1).
func appendPong(b []byte, stamp uint64, held time.Duration) []byte {
	us := min(max(held.Microseconds(), 0), math.MaxUint32)
	b = binary.LittleEndian.AppendUint64(b, stamp)
	return binary.LittleEndian.AppendUint32(b, uint32(us))
}

// parsePong reads a pong's payload.
func parsePong(p []byte) (stamp uint64, held time.Duration, err error) {
	if len(p) != pongSize {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return binary.LittleEndian.Uint64(p), time.Duration(binary.LittleEndian.Uint32(p[8:])) * time.Microsecond, nil
}

// keys are one connection's two AEADs.
type keys struct {
	c2s, s2c cipher.AEAD
}

// Labels of the key derivation; the version is part of each.
const (
	labelC2S = "rollnet-udp/2 client to host\n"
	labelS2C = "rollnet-udp/2 host to client\n"
)

// deriveKeys makes a connection's keys from the connect token's client key,
// the client's salt and the host's: each connection attempt has its own.
func deriveKeys(key [connecttoken.KeySize]byte, client [saltSize]byte, host uint64) keys {
	mk := func(label string) cipher.AEAD {
		m := hmac.New(sha256.New, key[:])
		m.Write([]byte(label))
		m.Write(client[:])
		var h [8]byte
		binary.LittleEndian.PutUint64(h[:], host)
		m.Write(h[:])
		return newAEAD(m.Sum(nil))
	}
	return keys{c2s: mk(labelC2S), s2c: mk(labelS2C)}
}

// newAEAD is AES-256-GCM under a 32-byte key.
func newAEAD(key []byte) cipher.AEAD {
	blk, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // a 32-byte key never fails
	}
	a, err := cipher.NewGCM(blk)
	if err != nil {
		panic(err)
	}
	return a
}

// addrAD appends an address's bytes, the additional data binding a cookie
// to it.
func addrAD(b []byte, a netip.AddrPort) []byte {
	ip := a.Addr().Unmap().As16()
	b = append(b, ip[:]...)
	return binary.LittleEndian.AppendUint16(b, a.Port())
}

// window is a connection's replay window: the newest sequence number
// opened and which of the windowBits before it were.
type window struct {
	newest uint64
	bits   [windowBits / 64]uint64
}

const windowBits = 256

// fresh reports whether seq may be opened: not 0, and newer than the
// newest or within the window and not seen.
func (w *window) fresh(seq uint64) bool {
	if seq == 0 {
		return false // the handshake's
	}
	if seq > w.newest {
		return true
	}
	if w.newest-seq >= windowBits {
		return false
	}
	i := seq % windowBits
	return w.bits[i/64]&(1<<(i%64)) == 0
}

// mark records seq as opened; it must be fresh.
func (w *window) mark(seq uint64) {
	if seq > w.newest {
		if seq-w.newest >= windowBits {
			w.bits = [windowBits / 64]uint64{}
		} else {
			for s := w.newest + 1; s < seq; s++ {
				i := s % windowBits
				w.bits[i/64] &^= 1 << (i % 64)
			}
		}
		w.newest = seq
	}
	i := seq % windowBits
	w.bits[i/64] |= 1 << (i % 64)
}
