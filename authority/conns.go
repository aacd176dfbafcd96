package authority

import (
	"errors"
	"strconv"
	"strings"

	"github.com/rollnet/rollnet/transport"
)

// conns is the host's transport as its link endpoint sees it. The endpoint
// holds one link per client record, added at construction under a fixed
// name ("client 3"); conns maps each record to the connection it is on now
// and back. So the endpoint never grows as clients come, go and resume on
// new connections, and a datagram from a peer on no record (a Hello, or
// anything else) reaches the host's join logic instead of the endpoint.
type conns struct {
	tr      transport.Transport
	names   []transport.Peer       // per record: the endpoint's name for it
	real    []transport.Peer       // per record: its connection now ("" none)
	byName  map[transport.Peer]int // name → record
	byReal  map[transport.Peer]int // connection → record
	unknown func(from transport.Peer, b []byte)
}

func newConns(tr transport.Transport, records int, unknown func(transport.Peer, []byte)) *conns {
	c := &conns{tr: tr, byName: make(map[transport.Peer]int, records), byReal: make(map[transport.Peer]int, records), unknown: unknown}
	for i := range records {
		name := transport.Peer("\x00client " + strconv.Itoa(i))
		c.names = append(c.names, name)
		c.real = append(c.real, "")
		c.byName[name] = i
	}
	return c
}

// bind puts record i on connection peer (dropping its old one).
func (c *conns) bind(i int, peer transport.Peer) {
	c.unbind(i)
	c.real[i] = peer
	c.byReal[peer] = i
}

// unbind takes record i off its connection.
func (c *conns) unbind(i int) {
	if old := c.real[i]; old != "" {
		delete(c.byReal, old)
	}
	c.real[i] = ""
}

func (c *conns) Local() transport.Peer { return c.tr.Local() }

func (c *conns) Send(to transport.Peer, b []byte) error {
	i, ok := c.byName[to]
	if !ok || c.real[i] == "" {
		return transport.ErrUnknownPeer
	}
	return c.tr.Send(c.real[i], b)
}

// Receive returns the next datagram from a connection on a record, under
// the record's name; the others go to unknown.
func (c *conns) Receive(buf []byte) (int, transport.Peer, error) {
	for {
		n, from, err := c.tr.Receive(buf)
		if err != nil {
			// Nothing waiting, the common case, compared first: errors.Is
			// type-asserts, and the runtime's per-site cache of those
			// grows now and then, an allocation in a steady tick.
			if err != transport.ErrNoPacket && errors.Is(err, transport.ErrShortBuffer) {
				continue
			}
			return 0, "", err
		}
		if i, ok := c.byReal[from]; ok {
			return n, c.names[i], nil
		}
		c.unknown(from, buf[:n])
	}
}

func (c *conns) Close() error { return nil } // the host does not own the transport

// addressOf is where a connection comes from, for the per-address caps:
// the host of a name of the form host:port (a socket's address), else the
// whole name (a transport whose names are not sockets).
func addressOf(p transport.Peer) string {
	s := string(p)
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return s
	}
	for _, r := range s[i+1:] {
		if r < '0' || r > '9' {
			return s
		}
	}
	return strings.TrimSuffix(strings.TrimPrefix(s[:i], "["), "]")
}
