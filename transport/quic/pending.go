//go:build !js

package quic

import (
	"slices"

	quicgo "github.com/quic-go/quic-go"
)

// pendingConn is a connection past its handshake, waiting for its hello
// (a native connection) or for its session's hello (WebTransport): one of
// at most Config.Tuning.MaxPending.
type pendingConn struct {
	slot *connSlot
	conn *quicgo.Conn
}

// pendingShare is how many of the MaxPending one IP address may hold:
// an eighth (2 of the default 16), at least one.
func (h *hostState) pendingShare() int { return max(1, h.t.cfg.Tuning.MaxPending/8) }

// enter makes conn pending. When its address already holds its share,
// the address's oldest pending connection is closed ("busy") to make room;
// otherwise, when MaxPending wait, the oldest of all is. The newest is
// never refused: an honest client says hello within a round trip of its
// handshake, so it is the oldest that idle (a squatter that completed a
// handshake and says nothing), and squatters on many addresses must
// complete MaxPending handshakes within that round trip to push an honest
// client out. A connection quic-go gave no slot (it skipped ConnContext)
// is closed at once. enter reports whether conn was taken.
func (h *hostState) enter(slot *connSlot, conn *quicgo.Conn) bool {
	if slot == nil {
		h.t.c.connsRefusedFull.Add(1)
		_ = conn.CloseWithError(0, "busy")
		return false
	}
	p := &pendingConn{slot: slot, conn: conn}
	var victim *pendingConn
	h.mu.Lock()
	if slot.released {
		h.mu.Unlock()
		return false
	}
	n, first := 0, -1
	for i, q := range h.pending {
		if q.slot.ip == slot.ip {
			if n++; first < 0 {
				first = i
			}
		}
	}
	switch {
	case n >= h.pendingShare():
		victim = h.pending[first]
	case len(h.pending) >= h.t.cfg.Tuning.MaxPending:
		victim = h.pending[0]
	}
	if victim != nil {
		h.leaveLocked(victim)
	}
	slot.pending = p
	h.pending = append(h.pending, p)
	h.mu.Unlock()
	if victim != nil {
		h.t.c.connsEvicted.Add(1)
		_ = victim.conn.CloseWithError(0, "busy")
	}
	return true
}

// leave takes slot's connection out of the pending, if there.
func (h *hostState) leave(slot *connSlot) {
	h.mu.Lock()
	h.leaveLocked(slot.pending)
	h.mu.Unlock()
}

// leaveLocked takes p out of the pending, if there; h.mu is held.
func (h *hostState) leaveLocked(p *pendingConn) {
	if p == nil {
		return
	}
	if i := slices.Index(h.pending, p); i >= 0 {
		h.pending = slices.Delete(h.pending, i, i+1)
	}
	p.slot.pending = nil
}

// pendingLen is how many connections are pending now.
func (h *hostState) pendingLen() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pending)
}
