package main

import (
	"sync"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/transport"
)

// audit wraps the transport a session uses and reads the checksum reports
// going each way, to compare them itself: an independent witness that the
// two peers' confirmed states agree, counted frame by frame for the
// report. It changes nothing it carries.
type audit struct {
	transport.Transport

	mu       sync.Mutex
	local    [auditRing]sumAt // our checksums, by frame
	remote   [auditRing]sumAt // the peer's
	compared int              // frames whose two checksums were compared
	mismatch int              // of those, how many differed
	first    int32            // first frame that differed, -1 if none
	newest   int32            // newest frame compared, -1 if none
}

// auditRing is how many recent checksum reports each side keeps.
const auditRing = 64

type sumAt struct {
	frame int32 // -1: empty
	sum   uint32
	done  bool // compared already
}

func newAudit(t transport.Transport) *audit {
	a := &audit{Transport: t, first: -1, newest: -1}
	for i := range a.local {
		a.local[i].frame, a.remote[i].frame = -1, -1
	}
	return a
}

func (a *audit) Send(to transport.Peer, b []byte) error {
	a.see(b, &a.local, &a.remote)
	return a.Transport.Send(to, b)
}

func (a *audit) Receive(buf []byte) (int, transport.Peer, error) {
	n, from, err := a.Transport.Receive(buf)
	if err == nil {
		a.see(buf[:n], &a.remote, &a.local)
	}
	return n, from, err
}

// see records a checksum report found in b into mine and compares it with
// the other side's report for the same frame, once per frame.
func (a *audit) see(b []byte, mine, theirs *[auditRing]sumAt) {
	if t, _, _, err := codec.ParseHeader(b); err != nil || t != codec.TypeChecksum {
		return
	}
	m, _, err := codec.ParseChecksum(b)
	if err != nil || m.Frame < 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	i := int(uint32(m.Frame) % auditRing)
	if mine[i].frame != m.Frame {
		mine[i] = sumAt{frame: m.Frame, sum: m.Checksum}
	}
	o := &theirs[i]
	if o.frame != m.Frame || o.done || mine[i].done {
		return
	}
	mine[i].done, o.done = true, true
	a.compared++
	a.newest = max(a.newest, m.Frame)
	if o.sum != m.Checksum {
		a.mismatch++
		if a.first < 0 || m.Frame < a.first {
			a.first = m.Frame
		}
	}
}

// result is the audit so far.
func (a *audit) result() (compared, mismatch int, first, newest int32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.compared, a.mismatch, a.first, a.newest
}
