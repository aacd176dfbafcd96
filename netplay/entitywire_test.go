package netplay

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
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

	s := entityState{tick: 900, input: 42, own: 3, ownGen: 2, ownState: []byte{1, 2, 3, 4}}
	b := append(appendEntityStateHead(nil, s), 0xE5, 9)
	gs, err := parseEntityState(b, 10, 4)
	require.NoError(t, err)
	require.Equal(t, s.ownState, gs.ownState)
	require.Equal(t, []byte{0xE5, 9}, gs.update)
	gs.ownState, gs.update = s.ownState, nil
	require.Equal(t, s, gs)

	in := append(appendEntityInputHead(nil, 5, 2), 1, 0, 2, 0, 0xE6)
	gi, err := parseEntityInput(in, 2)
	require.NoError(t, err)
	require.Equal(t, entityInput{seq: 5, n: 2, inputs: []byte{1, 0, 2, 0}, ack: []byte{0xE6}}, gi)
}

// TestEntityMessagesRefused: a message of another version, cut short,
// non-canonical or out of range is refused.
func TestEntityMessagesRefused(t *testing.T) {
	j := entityJoin{capacity: 10, size: 4, inputSize: 1}.append(nil)
	j[1] = entityVersion + 1
	_, err := parseEntityJoin(j)
	require.ErrorIs(t, err, errVersionMismatch)
	for _, b := range [][]byte{
		{tagEntityJoin, entityVersion, 0x80, 0x00, 1, 1},           // non-canonical
		{tagEntityWelcome, entityVersion, 3},                       // no such verdict
		{tagEntityState, entityVersion, 1, 1, 11},                  // own out of a capacity of 10
		{tagEntityInput, entityVersion, 1, 2, 0, 0},                // 2 inputs before the first
		{tagEntityInput, entityVersion, 9, maxInputs + 1},          // too many inputs
		append(appendEntityInputHead(nil, 5, 3), 1, 2),             // cut short
		append(entityWelcome{verdict: verdictFull}.append(nil), 0), // trailing bytes
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
	f.Add(append(appendEntityInputHead(nil, 5, 2), 1, 2, 0xE6))
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
			got := append(append(appendEntityInputHead(nil, in.seq, in.n), in.inputs...), in.ack...)
			if !bytes.Equal(got, b) {
				t.Fatalf("input %x re-encoded as %x", b, got)
			}
		}
	})
}
