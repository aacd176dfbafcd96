package entity

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// world is a test game: entities on a plane, a client per viewer.
type world struct {
	slots   []Slot
	x, y    []int16
	viewers [][2]int16 // by client: where it looks from
	radius  int16
}

func newWorld(n int) *world {
	w := &world{slots: make([]Slot, n), x: make([]int16, n), y: make([]int16, n), radius: 20}
	for i := range n {
		Spawn(w.slots)
		w.x[i], w.y[i] = int16(i%32*4), int16(i/32*4)
	}
	return w
}

func (w *world) encode(dst []byte, i int) {
	binary.LittleEndian.PutUint16(dst, uint16(w.x[i]))
	binary.LittleEndian.PutUint16(dst[2:], uint16(w.y[i]))
}

func (w *world) interest(client int, dst []int32) []int32 {
	v := w.viewers[client]
	for i := range w.slots {
		dx, dy := int(w.x[i]-v[0]), int(w.y[i]-v[1])
		if w.slots[i].Live && dx*dx+dy*dy <= int(w.radius)*int(w.radius) {
			dst = append(dst, int32(i))
		}
	}
	return dst
}

// pair is a host and its clients over a lossy, reordering, in-memory
// link, one tick at a time.
type pair struct {
	t       *testing.T
	w       *world
	host    *Host
	clients []*Client
	ids     []int
	rng     uint64
	loss    int // percent, each way
	down    [][]delivery
	up      [][]delivery
	now     int
	buf     []byte
	skip    func(client int) bool // if set, the clients it names get no Append this tick
}

type delivery struct {
	at int
	b  []byte
}

func newPair(t *testing.T, w *world, clients int, cfg HostConfig) *pair {
	cfg.Capacity, cfg.Size = len(w.slots), 4
	cfg.Encode, cfg.Interest = w.encode, w.interest
	h, err := NewHost(cfg)
	require.NoError(t, err)
	p := &pair{t: t, w: w, host: h, rng: 1, down: make([][]delivery, clients), up: make([][]delivery, clients)}
	for range clients {
		c, err := NewClient(ClientConfig{Capacity: len(w.slots), Size: 4})
		require.NoError(t, err)
		p.clients = append(p.clients, c)
		p.ids = append(p.ids, h.AddClient())
		w.viewers = append(w.viewers, [2]int16{})
	}
	return p
}

func (p *pair) rand() uint64 {
	p.rng ^= p.rng << 13
	p.rng ^= p.rng >> 7
	p.rng ^= p.rng << 17
	return p.rng
}

// send queues b with a delay of 3 to 5 ticks (so some reorder), unless lost.
func (p *pair) send(q *[]delivery, b []byte) {
	if int(p.rand()%100) < p.loss {
		return
	}
	*q = append(*q, delivery{at: p.now + 3 + int(p.rand()%3), b: append([]byte(nil), b...)})
}

func (p *pair) due(q *[]delivery, f func([]byte)) {
	keep := (*q)[:0]
	for _, d := range *q {
		if d.at <= p.now {
			f(d.b)
		} else {
			keep = append(keep, d)
		}
	}
	*q = keep
}

// tick runs one tick: the host encodes and sends, clients receive and ack.
func (p *pair) tick() {
	p.now++
	p.host.Tick(p.w.slots)
	for i, c := range p.clients {
		p.due(&p.up[i], func(b []byte) { require.NoError(p.t, p.host.Receive(p.ids[i], b)) })
		if p.skip != nil && p.skip(i) {
			// no Append this tick
		} else if b := p.host.Append(p.buf[:0], p.ids[i]); len(b) > 0 {
			p.send(&p.down[i], b)
		}
		p.due(&p.down[i], func(b []byte) { require.NoError(p.t, c.Receive(b)) })
		if b := c.AppendAck(p.buf[:0]); len(b) > 0 {
			p.send(&p.up[i], b)
		}
	}
}

// settle runs quiet ticks without loss until every packet in flight landed
// and the host had time to repeat what was lost.
func (p *pair) settle() {
	loss := p.loss
	p.loss = 0
	for range 120 {
		p.tick()
	}
	p.loss = loss
}

// requireAgree checks every client's mirror against the host: the same
// set (what interest names, with the hysteresis spent) with the same
// encodings, and digests that agree.
func (p *pair) requireAgree() {
	p.t.Helper()
	enc := make([]byte, 4)
	for ci, c := range p.clients {
		want := p.w.interest(ci, nil)
		in := make(map[int32]bool)
		for _, i := range want {
			in[i] = true
		}
		for i := range p.w.slots {
			s, ok := c.Entity(i)
			require.Equal(p.t, in[int32(i)], ok, "client %d entity %d held", ci, i)
			if ok {
				p.w.encode(enc, i)
				require.Equal(p.t, enc, s.Data, "client %d entity %d", ci, i)
				require.Equal(p.t, p.w.slots[i].Gen, s.Key.Gen)
			}
		}
		hs, cs := p.host.Stats(p.ids[ci]), c.Stats()
		require.Equal(p.t, hs.Entities, cs.Entities, "client %d set size", ci)
		require.Equal(p.t, len(want), cs.Entities, "client %d set size", ci)
	}
}
