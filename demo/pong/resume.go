package main

import (
	"encoding/hex"
	"fmt"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/transport"
)

// -resume across processes. A host gives each client a resume token with
// its slot; a client cut off says Hello with it on a new connection and,
// within the host's grace window, gets its slot back (RESUME_ACCEPT), or
// after it a RESUME_REJECT and a fresh slot (INITIAL_SYNC).
//
// authority.Client keeps its token to itself and resumes only the world it
// holds (Reconnect): it has no way to be given a token, nor to take
// RESUME_ACCEPT without a world, which is what a restarted process is. So
// the demo does both on the wire, in the client's transport (tokenMux):
// it reads the token from the host's Welcome (the client prints it), puts
// the -resume token into the client's Hello, and hands the client a
// RESUME_ACCEPT as the INITIAL_SYNC of the same slots (the client then
// takes the host's next full state as a fresh world; the host, which
// resumed the slot, sends it once the client acknowledges nothing it
// knows). An API for this belongs in package authority (a
// ClientConfig.ResumeToken, a Client.Token).

// tokenMux is the client's transport: sumsMux, plus the resume token's
// way in and out of the wire.
type tokenMux struct {
	*sumsMux
	resume   [codec.TokenLen]byte // -resume's token; zero: none
	token    [codec.TokenLen]byte // the token the host gave, once it did
	given    bool
	resumed  bool // the host accepted -resume's token
	rejected bool // the host rejected it (a fresh slot follows)
	out      []byte
}

func newTokenMux(s *sumsMux, resume [codec.TokenLen]byte) *tokenMux {
	return &tokenMux{sumsMux: s, resume: resume, out: make([]byte, 0, codec.MaxPacket)}
}

// parseToken reads -resume's hex token.
func parseToken(s string) (t [codec.TokenLen]byte, err error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != codec.TokenLen {
		return t, fmt.Errorf("want %d hex digits", 2*codec.TokenLen)
	}
	copy(t[:], b)
	return t, nil
}

func (m *tokenMux) Send(to transport.Peer, b []byte) error {
	if m.resume != ([codec.TokenLen]byte{}) && !m.rejected && len(b) > 0 && codec.Type(b[0]&0x0f) == codec.TypeHello {
		if h, _, err := codec.ParseHello(b); err == nil && !h.Resume {
			h.Resume, h.Token = true, m.resume
			m.out = h.Append(m.out[:0])
			return m.sumsMux.Send(to, m.out)
		}
	}
	return m.sumsMux.Send(to, b)
}

func (m *tokenMux) Receive(b []byte) (int, transport.Peer, error) {
	n, from, err := m.sumsMux.Receive(b)
	if err != nil || n == 0 || codec.Type(b[0]&0x0f) != codec.TypeWelcome {
		return n, from, err
	}
	w, _, perr := codec.ParseWelcome(b[:n])
	if perr != nil {
		return n, from, nil // the client counts it
	}
	switch w.Kind {
	case codec.WelcomeReject:
		m.rejected = true // the next Hellos ask for a fresh slot, as the client's own do
	case codec.WelcomeResume:
		if m.resume != ([codec.TokenLen]byte{}) {
			// A restarted process has no world to go on with: the
			// resumed slots, as a fresh start.
			m.resumed = true
			w.Kind = codec.WelcomeSync
			n = copy(b, w.Append(m.out[:0]))
		}
		fallthrough
	case codec.WelcomeSync:
		if w.Token != ([codec.TokenLen]byte{}) {
			m.token, m.given = w.Token, true
		}
	}
	return n, from, nil
}
