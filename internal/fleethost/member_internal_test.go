//go:build !js

package fleethost

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/fleet"
)

// newTestMember is a Member without NATS, for update alone, on a clock
// that moves only when the test moves it (*now).
func newTestMember(t *testing.T) (*Member, *time.Time) {
	t.Helper()
	cfg, err := fleet.Config{}.Check()
	require.NoError(t, err)
	now := time.Unix(1_000_000, 0)
	return &Member{cfg: cfg, info: HostInfo{ID: "h1", Version: "1", Games: []fleet.Game{{Name: "court", Clients: 2}}, Capacity: fleet.Capacity{Matches: 1, Clients: 2}},
		running: map[string]bool{}, ended: map[string]*endMark{}, firstSeen: map[string]time.Time{}, placed: map[string]int{}, restarted: map[string]uint64{},
		now: func() time.Time { return now }, kick: make(chan struct{}, 1)}, &now
}

// written is an attempt of a beat whose record is written: update, then
// written.
func written(m *Member, rec *fleet.Host) (ended map[string]string, restore []fleet.Match) {
	w := m.update(rec)
	m.written(w)
	return w.ended, w.restore
}

// TestMemberEndedRoomRunsAgain: a room's match ends, and the room's next
// match starts on the host before the next beat: a client placed in the
// record's entry came (Ended, then SetLoad lists the room), or the host
// started it at once (Restarted). The beat keeps the entry, as the new
// match's (the clients placed since the last beat), and does not delete
// the room key. Taken out, the record missed a running match for a beat,
// a placer filled the host past its capacity, and the host refused that
// placement's client in silence (the fleet process test's rare "refused
// full", and a bot that heard nothing from a host that was there).
func TestMemberEndedRoomRunsAgain(t *testing.T) {
	m, _ := newTestMember(t)
	rec := fleet.Host{ID: "h1", Matches: []fleet.Match{{Room: "a", Game: "court", Clients: 2, Placed: 1}}}
	m.SetLoad([]string{"a"}, 2)
	ended, restore := written(m, &rec)
	require.Empty(t, ended)
	require.Empty(t, restore)
	require.Equal(t, []fleet.Match{{Room: "a", Game: "court", Clients: 2, Placed: 1, Running: true}}, rec.Matches)

	m.Ended("court", "a", 2)
	rec.Matches[0].Clients++ // a placer joins a client to the entry before the beat
	m.SetLoad([]string{"a"}, 1)
	ended, _ = written(m, &rec)
	require.Empty(t, ended, "the room runs again: its key stays")
	require.Equal(t, []fleet.Match{{Room: "a", Game: "court", Clients: 1, Placed: 1, Running: true}}, rec.Matches)

	rec.Matches[0].Clients += 2 // two clients joined, and the host ends the match and starts the next at once
	m.Restarted("a")
	ended, _ = written(m, &rec)
	require.Empty(t, ended)
	require.Equal(t, []fleet.Match{{Room: "a", Game: "court", Clients: 2, Placed: 1, Running: true}}, rec.Matches)

	// Ended, and nothing runs it: out of the record (placers delete its key).
	m.Ended("court", "a", 2)
	m.SetLoad(nil, 0)
	ended, _ = written(m, &rec)
	require.Equal(t, map[string]string{"a": "court"}, ended)
	require.Empty(t, rec.Matches)

	// A beat that took the room out before the host's load said its next
	// match runs: the next beat puts it back (a placer, not the host, writes
	// room keys).
	m.SetLoad([]string{"a"}, 1)
	ended, restore = written(m, &rec)
	require.Empty(t, ended)
	want := []fleet.Match{{Room: "a", Game: "court", Clients: 1, Running: true}}
	require.Equal(t, want, rec.Matches)
	require.Equal(t, want, restore)
}
