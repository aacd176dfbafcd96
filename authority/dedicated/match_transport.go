package dedicated

import (
	"github.com/rollnet/rollnet/transport"
)

// matchTransport is one match's view of a fleet host's transport: what it
// sends goes out on the shared transport, what it receives is what the
// host routed to its room (push), from a queue of fixed slots allocated
// once (a full queue drops the datagram, as a lossy link would).
type matchTransport struct {
	tr    transport.Transport
	slots [][]byte
	from  []transport.Peer
	head  int
	n     int
}

func newMatchTransport(tr transport.Transport, slots int) *matchTransport {
	m := &matchTransport{tr: tr, slots: make([][]byte, slots), from: make([]transport.Peer, slots)}
	for i := range m.slots {
		m.slots[i] = make([]byte, 0, transport.MaxDatagram)
	}
	return m
}

// push queues b from p for the match; false when the queue is full.
func (m *matchTransport) push(p transport.Peer, b []byte) bool {
	if m.n == len(m.slots) || len(b) > transport.MaxDatagram {
		return false
	}
	i := (m.head + m.n) % len(m.slots)
	m.slots[i] = append(m.slots[i][:0], b...)
	m.from[i] = p
	m.n++
	return true
}

func (m *matchTransport) Local() transport.Peer                  { return m.tr.Local() }
func (m *matchTransport) Send(to transport.Peer, b []byte) error { return m.tr.Send(to, b) }
func (m *matchTransport) Close() error                           { return nil } // the host closes the shared one

// SendBulk hands a bulk datagram to the shared transport's SendBulk when
// it has one.
func (m *matchTransport) SendBulk(to transport.Peer, b []byte) (bool, error) {
	if bs, ok := m.tr.(transport.BulkSender); ok {
		return bs.SendBulk(to, b)
	}
	return true, m.tr.Send(to, b)
}

func (m *matchTransport) Receive(buf []byte) (int, transport.Peer, error) {
	if m.n == 0 {
		return 0, "", transport.ErrNoPacket
	}
	s, from := m.slots[m.head], m.from[m.head]
	if len(buf) < len(s) {
		m.head, m.n = (m.head+1)%len(m.slots), m.n-1
		return 0, from, transport.ErrShortBuffer
	}
	n := copy(buf, s)
	m.head, m.n = (m.head+1)%len(m.slots), m.n-1
	return n, from, nil
}
