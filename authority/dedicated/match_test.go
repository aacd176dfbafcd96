package dedicated

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
)

// The match tests' game: three counters, each moved by its client's
// input, whose host announces the CRC32-C of every frame's state, so that
// each client checks every state it applied against the host's.

type line3 struct {
	Pos   [3]int32
	Frame int32
	_     [4]byte
}

func step3(l *line3, in []int8, f rollnet.Frame) {
	for p, v := range in {
		l.Pos[p] += int32(v)
	}
	l.Frame = int32(f)
}

// line3Room is the room of the match tests (the settings hash derives
// from its name).
const line3Room = "r3"

// The announce message travels beside the mode's packets with the type
// byte the codec does not use: [Version<<4] "lsum" [frame u32] [crc u32].
const (
	sumType  = wire.Version << 4
	sumMagic = "lsum"
	sumLen   = 1 + len(sumMagic) + 8
)

// line3Game is the match tests' game as a host runs it.
var line3Game = Sim[line3, int8]{
	Name: "line3", Players: 3, Simulate: step3,
	Settings: func(room string) uint64 { return uint64(len(room)) },
	Announce: func(dst []byte, f rollnet.Frame, crc uint32) []byte {
		dst = append(append(dst, sumType), sumMagic...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(f))
		return binary.LittleEndian.AppendUint32(dst, crc)
	},
}

// sumWindow is how many frames of checksums each side of the comparison
// keeps.
const sumWindow = 512

type sumSlot struct {
	f   rollnet.Frame
	crc uint32
	set bool
}

// checked is a client's comparison of the states it applied with the
// host's announced checksums, frame by frame.
type checked struct {
	host, own [sumWindow]sumSlot
	agreed    int
	err       error
}

func (c *checked) record(side *[sumWindow]sumSlot, f rollnet.Frame, crc uint32) {
	side[f%sumWindow] = sumSlot{f: f, crc: crc, set: true}
	h, o := c.host[f%sumWindow], c.own[f%sumWindow]
	if h.set && o.set && h.f == f && o.f == f {
		if h.crc != o.crc && c.err == nil {
			c.err = fmt.Errorf("frame %d: applied state %08x, the host's %08x", f, o.crc, h.crc)
		}
		c.agreed++
		c.host[f%sumWindow].set = false // compared once
	}
}

// sumsTransport takes the host's announcements out of what the client
// receives.
type sumsTransport struct {
	transport.Transport
	host transport.Peer
	c    *checked
}

func (s *sumsTransport) Receive(b []byte) (int, transport.Peer, error) {
	for {
		n, from, err := s.Transport.Receive(b)
		if err != nil || from != s.host || n != sumLen || b[0] != sumType || string(b[1:5]) != sumMagic {
			return n, from, err
		}
		s.c.record(&s.c.host, rollnet.Frame(binary.LittleEndian.Uint32(b[5:])), binary.LittleEndian.Uint32(b[9:]))
	}
}

// playChecked plays a line3 client over tr against host at 60 Hz, its
// input +1 every frame, until it has compared want applied states with
// the host's (every one must agree) or ctx ends. midway, if set, runs
// once when half of them are compared.
func playChecked(ctx context.Context, tr transport.Transport, host transport.Peer, want int, midway func() error) (int, error) {
	c := &checked{}
	st := &sumsTransport{Transport: tr, host: host, c: c}
	cl, err := authority.NewClient[line3](authority.ClientConfig{Host: host, Players: 3,
		Net: rollnet.NetConfig{DisconnectTimeout: 5 * time.Second, Settings: uint64(len(line3Room))}}, st, step3)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	last := rollnet.NoFrame
	for c.agreed < want {
		select {
		case <-ctx.Done():
			return c.agreed, fmt.Errorf("%d of %d states compared: %w (client stats %+v)", c.agreed, want, ctx.Err(), cl.Stats())
		case <-tick.C:
		}
		if cl.Synchronized() {
			if err := cl.AddLocalInput(0, 1); err != nil {
				return c.agreed, err
			}
		}
		if _, err := cl.Update(time.Second / 60); err != nil {
			return c.agreed, err
		}
		if s, f, ok := cl.Played(); ok && f != last {
			last = f
			c.record(&c.own, f, rollback.Checksum(rollback.BytesOf(s)))
		}
		if c.err != nil {
			return c.agreed, c.err
		}
		if midway != nil && c.agreed >= want/2 {
			if err := midway(); err != nil {
				return c.agreed, err
			}
			midway = nil
		}
	}
	if evs := cl.Events(nil); len(evs) > 0 {
		for _, e := range evs {
			if e.Kind == rollnet.EventDisconnected {
				return c.agreed, fmt.Errorf("the client was disconnected: %+v", e)
			}
		}
	}
	return c.agreed, nil
}
