package netplay

import (
	"errors"
	"slices"

	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/transport"
)

// mux is the transport a session gets: the real one with netplay's own
// messages (wire.TypeApp) taken off on the way in and handed to on. It
// filters the session's datagrams for Expect itself, so that a peer the
// session does not expect (a spectator arriving, a player coming back
// from a new address) still reaches netplay's hellos.
type mux struct {
	inner     transport.Transport
	on        func(from transport.Peer, b []byte)
	expecting bool
	expected  []transport.Peer
	dropped   uint64 // session datagrams from peers not expected
}

func (x *mux) Local() transport.Peer                  { return x.inner.Local() }
func (x *mux) Send(to transport.Peer, b []byte) error { return x.inner.Send(to, b) }
func (x *mux) Close() error                           { return nil } // the Match closes inner

// Receive returns the next session datagram, handling netplay's on the way.
func (x *mux) Receive(buf []byte) (int, transport.Peer, error) {
	for {
		n, from, err := x.inner.Receive(buf)
		if err != nil {
			// Not errors.Is first: the common "nothing waits" needs no
			// type assertions (a new one allocates the runtime's itab).
			if err != transport.ErrNoPacket && errors.Is(err, transport.ErrShortBuffer) {
				continue
			}
			return n, from, err
		}
		if n > 0 && buf[0] == greeting.AppByte {
			x.on(from, buf[:n])
			continue
		}
		if x.expecting && !slices.Contains(x.expected, from) {
			x.dropped++
			continue
		}
		return n, from, nil
	}
}

// Expect keeps the session's set (transport.Expecter).
func (x *mux) Expect(peers ...transport.Peer) {
	x.expecting = true
	x.expected = append(x.expected[:0], peers...)
}

// ExpectAnyone opens the gate again.
func (x *mux) ExpectAnyone() { x.expecting = false }

// SendBulk goes through the real transport's bulk path when it has one.
func (x *mux) SendBulk(to transport.Peer, b []byte) (bool, error) {
	if bs, ok := x.inner.(transport.BulkSender); ok {
		return bs.SendBulk(to, b)
	}
	err := x.inner.Send(to, b)
	return err == nil, err
}

var (
	_ transport.Transport = (*mux)(nil)
	_ transport.Expecter  = (*mux)(nil)
)
