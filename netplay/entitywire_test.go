package netplay

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

func TestEntityMessagesRoundTrip(t *testing.T) {
	j := entityJoin{capacity: 10000, size: 16, inputSize: 2}
	got, err := parseEntityJoin(j.append(nil))
	require.NoError(t, err)
	require.Equal(t, j, got)

	w := entityWelcome{verdict: verdictAdmitted, slot: 7}
	gw, err := parseEntityWelcome(w.append(nil))
	require.NoError(t, err)
	require.Equal(t, w, gw)

	s := entityState{tick: 900, input: 42, echo: 45, held: 167, lead: 31, rate: -57, own: 3, ownGen: 2, ownState: []byte{1, 2, 3, 4}}
	b := append(appendEntityStateHead(nil, s), 0xE5, 9)
	gs, err := parseEntityState(b, 10, 4)
	require.NoError(t, err)
	require.Equal(t, s.ownState, gs.ownState)
	require.Equal(t, []byte{0xE5, 9}, gs.update)
	gs.ownState, gs.update = s.ownState, nil
	require.Equal(t, s, gs)

	in := append(appendEntityInputHead(nil, 5, 2), 1, 0, 2, 0, 0, 0xE6)
	gi, err := parseEntityInput(in, 2)
	require.NoError(t, err)
	want := entityInput{seq: 5, n: 2, inputs: []byte{1, 0, 2, 0}, ack: []byte{0xE6}}
	for i := range want.sights {
		want.sights[i] = noSight
	}
	require.Equal(t, want, gi)

	// Sights: a steady render clock costs a byte an older input; one
	// without a sight, a jump back or forth, and one after a gap decode
	// as sent.
	for _, sights := range [][]int64{
		{90 * 256, 89 * 256, 88*256 + 3, 87*256 + 40, 86 * 256},
		{1 << 39, noSight, (1<<39 - 2*256), 5, maxSight},
		{0},
		{noSight, 7},
	} {
		n := len(sights)
		b := appendEntityInputHead(nil, 100, n)
		for range n {
			b = append(b, 9, 0)
		}
		b = appendSights(b, sights)
		head := len(b)
		b = append(b, 0xE6)
		gi, err := parseEntityInput(b, 2)
		require.NoError(t, err, "%v", sights)
		want := sights
		if sights[0] < 0 {
			want = []int64{noSight, noSight} // a newest without one sends none
		}
		require.Equal(t, want, gi.sights[:n], "%v", sights)
		require.Equal(t, []byte{0xE6}, gi.ack)
		if sights[0] == 90*256 {
			require.Equal(t, 2+1+1+2*n+3+(n-1), head, "3 bytes for the newest, 1 for each older one")
		}
	}
}

// TestEntityVersionRefused: a client of an entity protocol before this
// one (version 1, before sights; version 2, before the timing advice;
// version 3, before the echo a client times its round trip by) is
// refused at its join in its own version's words, so it says why; a
// client of this version refused by an older host says which version
// that host plays.
func TestEntityVersionRefused(t *testing.T) {
	for _, v := range []byte{1, 2, 3} {
		clock := local.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		n, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now})
		require.NoError(t, err)
		he, err := n.Endpoint("host")
		require.NoError(t, err)
		h, err := Host(Config{Transport: he, Now: clock.Now, Players: 2}, func(*versionWorld, []int8, rollnet.Frame) {}, Entities(versionEntities()))
		require.NoError(t, err)
		old, err := n.Endpoint("old")
		require.NoError(t, err)
		buf := make([]byte, transport.MaxDatagram)
		var got []byte
		for range 30 {
			_ = old.Send("host", []byte{tagEntityJoin, v, 4, 4, 1}) // capacity 4, size 4, input size 1
			_, err := h.AdvanceFrame(0)
			require.NoError(t, err)
			clock.Advance(time.Second / 60)
			if k, _, err := old.Receive(buf); err == nil {
				got = append([]byte(nil), buf[:k]...)
				break
			}
		}
		require.Equal(t, []byte{tagEntityWelcome, v, verdictSettings}, got, "refused in version %d's words", v)
		require.Zero(t, h.Stats().Malformed)
		old.Close()
		h.Close()

		// This version refused by a host of version v, which answers every
		// join of another version so: the client ends, naming the versions.
		d := newEntityClient(&Match[versionWorld, int8]{}, versionEntities()).(*entityClient[versionWorld, int8])
		d.host = "oldhost"
		err = d.receive([]byte{tagEntityWelcome, v, verdictSettings}, clock.Now())
		require.ErrorIs(t, err, ErrSettings)
		require.ErrorContains(t, err, fmt.Sprintf("host oldhost plays entity protocol version %d, this client %d", v, entityVersion))
	}
}

// versionWorld is a table of four entities of 4 bytes.
type versionWorld struct {
	Slots [4]entity.Slot
	X     [4]int32
}

func versionEntities() EntityConfig[versionWorld, int8] {
	return EntityConfig[versionWorld, int8]{
		Capacity: 4, Size: 4,
		Slots:    func(w *versionWorld) []entity.Slot { return w.Slots[:] },
		Encode:   func(w *versionWorld, dst []byte, i int) { binary.LittleEndian.PutUint32(dst, uint32(w.X[i])) },
		Decode:   func(w *versionWorld, i int, a, _ []byte, _ float32) { w.X[i] = int32(binary.LittleEndian.Uint32(a)) },
		Interest: func(_ *versionWorld, _ int, dst []int32) []int32 { return dst },
		Own:      func(*versionWorld, int) int { return -1 },
		Predict:  func(*versionWorld, int, int, int8) {},
	}
}

// TestEntityMessagesRefused: a message of another version, cut short,
// non-canonical or out of range is refused.
func TestEntityMessagesRefused(t *testing.T) {
	j := entityJoin{capacity: 10, size: 4, inputSize: 1}.append(nil)
	j[1] = entityVersion + 1
	_, err := parseEntityJoin(j)
	require.ErrorIs(t, err, errVersionMismatch)
	for _, b := range [][]byte{
		{tagEntityJoin, entityVersion, 0x80, 0x00, 1, 1},                                // non-canonical
		{tagEntityWelcome, entityVersion, 3},                                            // no such verdict
		{tagEntityState, entityVersion, 1, 1, 0, 0, 0, 0, 11},                           // own out of a capacity of 10
		{tagEntityState, entityVersion, 1, 1, 0, 0, 0, 0xD1, 0x0F, 0},                   // a rate past ±1000 thousandths (2001 zigzag)
		{tagEntityState, entityVersion, 1, 1, 0, 0, 0x80, 0x00, 0, 0},                   // a non-canonical lead
		{tagEntityState, entityVersion, 1, 2, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0}, // an echo past 2^32-1
		{tagEntityState, entityVersion, 1, 1, 0, 0x80, 0x80, 0x80, 0x08, 0, 0, 0},       // held past maxHeld
		{tagEntityState, entityVersion, 1, 1, 0x80, 0x00, 0, 0, 0, 0},                   // a non-canonical echo
		{tagEntityInput, entityVersion, 1, 2, 0, 0},                                     // 2 inputs before the first
		{tagEntityInput, entityVersion, 9, maxInputs + 1},                               // too many inputs
		append(appendEntityInputHead(nil, 5, 3), 1, 2),                                  // cut short
		append(appendEntityInputHead(nil, 5, 2), 1, 2, 3, 0x80, 0),                      // a non-canonical sight
		append(appendEntityInputHead(nil, 5, 2), 1, 2, 3, 5),                            // an older sight before 0
		append(entityWelcome{verdict: verdictFull}.append(nil), 0),                      // trailing bytes
	} {
		var err error
		switch b[0] {
		case tagEntityJoin:
			_, err = parseEntityJoin(b)
		case tagEntityWelcome:
			_, err = parseEntityWelcome(b)
		case tagEntityState:
			_, err = parseEntityState(b, 10, 4)
		case tagEntityInput:
			_, err = parseEntityInput(b, 1)
		}
		require.Error(t, err, "%x", b)
	}
}

// FuzzEntityMessages: the entity mode's decoders never panic, and what
// they accept encodes back to the bytes they read.
func FuzzEntityMessages(f *testing.F) {
	f.Add(entityJoin{capacity: 10, size: 4, inputSize: 1}.append(nil))
	f.Add(entityWelcome{verdict: verdictAdmitted, slot: 3}.append(nil))
	f.Add(appendEntityStateHead(nil, entityState{tick: 9, input: 3, own: 2, ownState: []byte{1, 2, 3, 4}}))
	f.Add(appendEntityStateHead(nil, entityState{tick: 9, input: 3, lead: 25, rate: -100, own: -1}))
	f.Add(appendEntityStateHead(nil, entityState{tick: 9, input: 3, echo: 1<<32 - 1, held: maxHeld, own: -1}))
	f.Add(append(appendEntityInputHead(nil, 5, 2), 1, 2, 0, 0xE6))
	f.Add(append(appendSights(append(appendEntityInputHead(nil, 5, 3), 1, 2, 3), []int64{900, 640, noSight}), 0xE6))
	f.Fuzz(func(t *testing.T, b []byte) {
		if j, err := parseEntityJoin(b); err == nil && !bytes.Equal(j.append(nil), b) {
			t.Fatalf("join %x re-encoded as %x", b, j.append(nil))
		}
		if w, err := parseEntityWelcome(b); err == nil && !bytes.Equal(w.append(nil), b) {
			t.Fatalf("welcome %x re-encoded as %x", b, w.append(nil))
		}
		if s, err := parseEntityState(b, 10, 4); err == nil {
			if got := append(appendEntityStateHead(nil, s), s.update...); !bytes.Equal(got, b) {
				t.Fatalf("state %x re-encoded as %x", b, got)
			}
		}
		if in, err := parseEntityInput(b, 1); err == nil {
			got := appendSights(append(appendEntityInputHead(nil, in.seq, in.n), in.inputs...), in.sights[:in.n])
			got = append(got, in.ack...)
			if !bytes.Equal(got, b) {
				t.Fatalf("input %x re-encoded as %x", b, got)
			}
		}
	})
}
