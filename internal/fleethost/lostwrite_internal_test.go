//go:build !js

package fleethost

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/fleetkv"
	"github.com/rollnet/rollnet/internal/natstest"
)

// racingKV is the fleet's bucket with a placer's write between a beat's
// read and its write: between, run once before the member's next
// Update, makes that compare-and-set lose, as a placer's placement or
// join does.
type racingKV struct {
	jetstream.KeyValue
	between func()
}

func (kv *racingKV) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	if f := kv.between; f != nil {
		kv.between = nil
		f()
	}
	return kv.KeyValue.Update(ctx, key, value, rev)
}

// lostWriteFleet is a member on an embedded NATS whose beats the test
// runs itself (no heartbeat loop), and a placer's view of the same
// bucket over another connection.
type lostWriteFleet struct {
	t      *testing.T
	m      *Member
	now    *time.Time
	kv     *racingKV
	placer jetstream.KeyValue
}

func newLostWriteFleet(t *testing.T) *lostWriteFleet {
	t.Helper()
	e := natstest.Start(t)
	ctx := context.Background()
	hostKV, err := fleetkv.Open(ctx, e.Connect(t), "test")
	require.NoError(t, err)
	placer, err := fleetkv.Open(ctx, e.Connect(t), "test")
	require.NoError(t, err)
	m, now := newTestMember(t)
	m.info.Capacity = fleet.Capacity{Matches: 4, Clients: 8}
	f := &lostWriteFleet{t: t, m: m, now: now, kv: &racingKV{KeyValue: hostKV}, placer: placer}
	m.kv, m.ctx = f.kv, ctx
	f.beat() // registers the record
	return f
}

// beat runs one heartbeat, which must be written.
func (f *lostWriteFleet) beat() {
	f.t.Helper()
	require.NoError(f.t, f.m.beat())
}

// record reads the host's record.
func (f *lostWriteFleet) record() (fleet.Host, uint64) {
	f.t.Helper()
	e, err := f.placer.Get(context.Background(), fleetkv.HostKey("h1"))
	require.NoError(f.t, err)
	var h fleet.Host
	require.NoError(f.t, json.Unmarshal(e.Value(), &h))
	return h, e.Revision()
}

// place writes the record as a placer does, by compare-and-set: change
// places a match or joins a client to one.
func (f *lostWriteFleet) place(change func(h *fleet.Host)) {
	f.t.Helper()
	h, rev := f.record()
	change(&h)
	b, err := json.Marshal(h)
	require.NoError(f.t, err)
	_, err = f.placer.Update(context.Background(), fleetkv.HostKey("h1"), b, rev)
	require.NoError(f.t, err)
}

// placeRoom places room's match with its first client.
func (f *lostWriteFleet) placeRoom(room string) {
	f.place(func(h *fleet.Host) {
		h.Matches = append(h.Matches, fleet.Match{Room: room, Game: "court", Clients: 1, Placed: f.now.UnixMilli()})
	})
}

// joinRoom adds a client to room's match.
func (f *lostWriteFleet) joinRoom(room string) {
	f.place(func(h *fleet.Host) {
		for i := range h.Matches {
			if h.Matches[i].Room == room {
				h.Matches[i].Clients++
			}
		}
	})
}

// matches is the record's matches, as room → clients (a running one's
// room with a "*").
func (f *lostWriteFleet) matches() map[string]int {
	f.t.Helper()
	h, _ := f.record()
	out := map[string]int{}
	for _, x := range h.Matches {
		k := x.Room
		if x.Running {
			k += "*"
		}
		out[k] = x.Clients
	}
	return out
}

// lose makes the next beat's first write lose its compare-and-set to
// the placer's write place, and checks it did.
func (f *lostWriteFleet) lose(place func()) {
	f.t.Helper()
	_, before := f.record()
	f.kv.between = func() {
		_, rev := f.record()
		require.Equal(f.t, before, rev, "the beat wrote before its write")
		place()
	}
	f.beat()
	require.Nil(f.t, f.kv.between, "the beat wrote nothing")
}

// TestMemberEndedSurvivesLostWrite: a beat whose write loses the
// compare-and-set to a placer's write (another room placed on the host)
// reads the record again, and still takes out the match that ended.
// Before, the lost write forgot the end: the match stayed in the record
// as placed and never joined, its room key kept and the host's capacity
// held until PlaceExpiry (15 s).
func TestMemberEndedSurvivesLostWrite(t *testing.T) {
	f := newLostWriteFleet(t)
	f.placeRoom("a")
	f.joinRoom("a")
	f.m.SetLoad([]string{"a"}, 2)
	f.beat()
	require.Equal(t, map[string]int{"a*": 2}, f.matches())

	f.m.Ended("court", "a", 2)
	f.m.SetLoad(nil, 0)
	f.lose(func() { f.placeRoom("b") })
	require.Equal(t, map[string]int{"b": 1}, f.matches(), "the ended match is out, the placement written meanwhile kept")
	f.beat()
	require.Equal(t, map[string]int{"b": 1}, f.matches())
	require.Empty(t, f.m.ended)
}

// TestMemberEndedWithClientsToCome: a match ends with fewer clients come
// than its entry placed (Ended's came): the two clients of a room connect
// apart, and the first can play its match to the end and leave before
// the second, placed in the entry before the end or after it, comes. The
// beat keeps the entry, as the placement of the room's next match, with
// the clients yet to come, whether the placer's write came before the
// beat read the record or between its read and its write; it expires if
// nobody comes. Taken out, the late client's match would start on the
// host with no entry in the record until the next beat, and a placer
// could fill the host past its capacity meanwhile (the host refuses a
// client "full"). Before, the lost end kept such entries by chance
// whenever the beat lost its compare-and-set: fixing that alone made
// TestFleetProcesses's hosts refuse clients as full.
func TestMemberEndedWithClientsToCome(t *testing.T) {
	f := newLostWriteFleet(t)
	f.placeRoom("a")
	f.m.SetLoad([]string{"a"}, 1)
	f.beat()
	require.Equal(t, map[string]int{"a*": 1}, f.matches())

	// Placed after the end, before the beat read the record.
	f.m.Ended("court", "a", 1)
	f.m.SetLoad(nil, 0)
	f.joinRoom("a")
	f.beat()
	require.Equal(t, map[string]int{"a": 1}, f.matches(), "the client placed after the end comes")
	f.m.SetLoad([]string{"a"}, 1) // it came
	f.beat()
	require.Equal(t, map[string]int{"a*": 1}, f.matches())

	// Placed after the end, between the beat's read and its write.
	f.m.Ended("court", "a", 1)
	f.m.SetLoad(nil, 0)
	f.lose(func() { f.joinRoom("a") })
	require.Equal(t, map[string]int{"a": 1}, f.matches(), "the client placed after the end comes, across a lost write")
	f.m.SetLoad([]string{"a"}, 1)
	f.beat()
	require.Equal(t, map[string]int{"a*": 1}, f.matches())

	// Placed before the end, not come at the end (and one more after).
	f.joinRoom("a")
	f.beat()
	require.Equal(t, map[string]int{"a*": 2}, f.matches())
	f.m.Ended("court", "a", 1)
	f.m.SetLoad(nil, 0)
	f.joinRoom("a")
	f.beat()
	require.Equal(t, map[string]int{"a": 2}, f.matches(), "the clients placed before and after the end, not come yet, come")

	// Nobody comes: it expires.
	*f.now = f.now.Add(f.m.cfg.Tuning.PlaceExpiry + time.Second)
	f.beat()
	require.Empty(t, f.matches())

	// Every client placed came: out at once.
	f.placeRoom("b")
	f.joinRoom("b")
	f.m.Ended("court", "b", 2)
	f.beat()
	require.Empty(t, f.matches())
}

// TestMemberExpirySurvivesLostWrite: a match placed and never joined
// expires after PlaceExpiry even when the beat that takes it out loses
// its compare-and-set (before, the lost write forgot when the entry was
// first seen, and it stayed PlaceExpiry more); one a placer joined a
// client to in between is kept, its client comes.
func TestMemberExpirySurvivesLostWrite(t *testing.T) {
	f := newLostWriteFleet(t)
	f.placeRoom("p")
	f.placeRoom("q")
	f.beat()
	require.Equal(t, map[string]int{"p": 1, "q": 1}, f.matches())

	*f.now = f.now.Add(f.m.cfg.Tuning.PlaceExpiry + time.Second)
	f.lose(func() { f.joinRoom("q") })
	require.Equal(t, map[string]int{"q": 2}, f.matches(), "p expired, q joined since the read kept")
	*f.now = f.now.Add(f.m.cfg.Tuning.PlaceExpiry - time.Second)
	f.beat()
	require.Equal(t, map[string]int{"q": 2}, f.matches(), "q's expiry starts again at its join")
	*f.now = f.now.Add(2 * time.Second)
	f.beat()
	require.Empty(t, f.matches())
}

// TestMemberRestartedSurvivesLostWrite: a room whose match ended and
// whose next one started at once keeps its entry with the clients placed
// since the last beat, even when the beat loses its compare-and-set
// (before, the retry counted the old match's clients too: the room's
// next clients were refused as full, and the host's clients held).
func TestMemberRestartedSurvivesLostWrite(t *testing.T) {
	f := newLostWriteFleet(t)
	f.placeRoom("a")
	f.joinRoom("a")
	f.m.SetLoad([]string{"a"}, 2)
	f.beat()
	require.Equal(t, map[string]int{"a*": 2}, f.matches())

	f.joinRoom("a") // a fresh client, after both left: the host restarts the room
	f.m.Restarted("a")
	f.m.SetLoad([]string{"a"}, 1)
	f.lose(func() { f.placeRoom("b") })
	require.Equal(t, map[string]int{"a*": 1, "b": 1}, f.matches())
	f.beat()
	require.Equal(t, map[string]int{"a*": 1, "b": 1}, f.matches())
}

// TestMemberMarksAfterRead: an end or a restart the host says after a
// beat read the record is the next beat's (the written beat forgets only
// the marks it acted on), and an attempt that is not written (its write
// failed) changes nothing the next acts on.
func TestMemberMarksAfterRead(t *testing.T) {
	m, _ := newTestMember(t)
	rec := fleet.Host{ID: "h1", Matches: []fleet.Match{{Room: "a", Game: "court", Clients: 2, Placed: 1, Running: true}}}
	m.SetLoad([]string{"a"}, 2)
	written(m, &rec)

	m.Ended("court", "a", 2)
	m.SetLoad(nil, 0)
	again := rec
	w := m.update(&rec) // not written
	require.Equal(t, map[string]string{"a": "court"}, w.ended)
	rec = again
	w = m.update(&rec)
	require.Equal(t, map[string]string{"a": "court"}, w.ended, "an unwritten attempt keeps the end")

	m.Ended("court", "a", 0) // the room's next match ended too, before the write
	m.written(w)
	require.Contains(t, m.ended, "a", "an end after the read is the next beat's")

	// Two matches of the room ended since the last beat: the entry
	// counts the clients of both.
	m, _ = newTestMember(t)
	rec = fleet.Host{ID: "h1", Matches: []fleet.Match{{Room: "a", Game: "court", Clients: 2, Placed: 1, Running: true}}}
	m.SetLoad([]string{"a"}, 1)
	written(m, &rec)
	m.Ended("court", "a", 1) // one of the two placed came, and left
	m.Ended("court", "a", 1) // the other came, started the room's next match, and left
	ended, _ := written(m, &rec)
	require.Equal(t, map[string]string{"a": "court"}, ended)

	m, _ = newTestMember(t)
	rec = fleet.Host{ID: "h1", Matches: []fleet.Match{{Room: "a", Game: "court", Clients: 3, Placed: 1, Running: true}}}
	m.SetLoad([]string{"a"}, 1)
	m.Restarted("a")
	w = m.update(&rec)
	m.Restarted("a")
	m.written(w)
	require.Contains(t, m.restarted, "a", "a restart after the read is the next beat's")
}
