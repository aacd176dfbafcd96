package netplay

import (
	"io"
	"time"

	"github.com/rollnet/rollnet/internal/greeting"
)

// backSeconds is how long the player away may still come back, in whole
// seconds for the roster.
func (m *Match[S, I]) backSeconds() uint8 {
	return uint8(min(max(m.until.away.Sub(m.cfg.Now()), 0)/time.Second, 255))
}

// sendRoster sends es (a host's slots, a P2P seat 0's seats) to every
// peer of role to.
func (m *Match[S, I]) sendRoster(to greeting.Role, es []greeting.RosterEntry) {
	b := greeting.AppendRoster(m.buf[:0], es)
	m.buf = b
	for _, pe := range m.peers.order {
		if pe.heard && pe.h.Role == to {
			_ = m.link.tr.Send(pe.id, b)
		}
	}
}

// parseRoster takes the roster of the host (of an authoritative client,
// or a spectator's seat 0) into the names.
func (m *Match[S, I]) parseRoster(b []byte) error {
	if len(b) < 3 {
		return io.ErrUnexpectedEOF
	}
	n, b := int(b[2]), b[3:]
	if n > len(m.names) {
		return greeting.ErrMalformed
	}
	away, back := "", time.Duration(0)
	for i := range n {
		if len(b) < 3 || len(b) < 3+int(b[2]) {
			return io.ErrUnexpectedEOF
		}
		state, bk, name := b[0], b[1], b[3:3+int(b[2])]
		if state > 2 || len(name) > MaxName || !greeting.ValidName(name) {
			return greeting.ErrMalformed
		}
		if string(name) != m.names[i] {
			m.names[i] = string(name)
		}
		if state == 2 && away == "" && i != m.seat {
			away, back = m.names[i], time.Duration(bk)*time.Second
		}
		b = b[3+len(name):]
	}
	if len(b) != 0 {
		return greeting.ErrMalformed
	}
	switch {
	case away != "" && away != m.st.Away:
		m.tell("%s dropped at frame %d", away, m.Frame())
	case away == "" && m.st.Away != "":
		m.tell("%s is back at frame %d", m.st.Away, m.Frame())
	}
	m.st.Away = away
	m.until.away = m.cfg.Now().Add(back)
	return nil
}
