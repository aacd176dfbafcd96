package fleet

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/fleetkv"
)

func hostWith(id string, used, matches, capClients, capMatches int) *Host {
	h := &Host{ID: id, Capacity: Capacity{Matches: capMatches, Clients: capClients}}
	for i := range matches {
		c := 0
		if i == 0 {
			c = used
		}
		h.Matches = append(h.Matches, Match{Room: id + "-" + string(rune('a'+i)), Clients: c})
	}
	return h
}

func ids(hs []*Host) string {
	var s []string
	for _, h := range hs {
		s = append(s, h.ID)
	}
	return strings.Join(s, ",")
}

func TestPolicyOrder(t *testing.T) {
	hs := func() []*Host {
		return []*Host{hostWith("c", 4, 2, 16, 4), hostWith("a", 0, 0, 16, 4), hostWith("b", 8, 2, 16, 4), hostWith("d", 4, 1, 16, 4), hostWith("e", 0, 0, 16, 4)}
	}
	fill, spread := hs(), hs()
	Fill.order(fill)
	Spread.order(spread)
	require.Equal(t, "b,c,d,a,e", ids(fill), "fill: most clients placed first, then most matches, ties by id")
	require.Equal(t, "a,e,d,c,b", ids(spread), "spread: fewest first, ties by id")
	// Shares, not counts: 4 of 8 is fuller than 6 of 16.
	mixed := []*Host{hostWith("x", 6, 1, 16, 4), hostWith("y", 4, 1, 8, 4)}
	Fill.order(mixed)
	require.Equal(t, "y,x", ids(mixed))
}

func TestParsePolicy(t *testing.T) {
	for _, p := range []Policy{Fill, Spread} {
		got, err := ParsePolicy(p.String())
		require.NoError(t, err)
		require.Equal(t, p, got)
	}
	_, err := ParsePolicy("random")
	require.ErrorIs(t, err, errConfig)
}

func TestHostRoom(t *testing.T) {
	h := Host{ID: "h", Games: []Game{{Name: "court", Clients: 2}}, Capacity: Capacity{Matches: 2, Clients: 3}}
	require.True(t, h.room("court"))
	require.False(t, h.room("pong"), "a game the host does not run")
	h.Matches = []Match{{Room: "a", Clients: 2}}
	require.True(t, h.room("court"))
	h.Matches = append(h.Matches, Match{Room: "b", Clients: 1})
	require.False(t, h.room("court"), "matches at capacity")
	h.Matches = h.Matches[:1]
	h.Draining = true
	require.False(t, h.room("court"), "draining")
}

func TestHostValidate(t *testing.T) {
	ok := Host{ID: "h1", Version: "1", Games: []Game{{Name: "court", Clients: 8}}, QUIC: "127.0.0.1:4433", Capacity: Capacity{Matches: 1, Clients: 8}}
	require.NoError(t, ok.Validate())
	for name, mut := range map[string]func(*Host){
		"id":       func(h *Host) { h.ID = "a b" },
		"version":  func(h *Host) { h.Version = "" },
		"games":    func(h *Host) { h.Games = nil },
		"game":     func(h *Host) { h.Games = []Game{{Name: "court", Clients: 0}} },
		"quic":     func(h *Host) { h.QUIC = "" },
		"capacity": func(h *Host) { h.Capacity.Matches = 0 },
		"long id":  func(h *Host) { h.ID = strings.Repeat("x", fleetkv.MaxID+1) },
	} {
		h := ok
		mut(&h)
		require.ErrorIs(t, h.Validate(), errConfig, name)
	}
}

func TestParseRequest(t *testing.T) {
	r, err := parseRequest(strings.NewReader(`{"game":"court","room":"r1","version":"1.2"}`))
	require.NoError(t, err)
	require.Equal(t, Request{Game: "court", Room: "r1", Version: "1.2"}, r)
	for name, body := range map[string]string{
		"not json":   `{"game":`,
		"no room":    `{"game":"court","version":"1"}`,
		"bad room":   `{"game":"court","room":"a/b","version":"1"}`,
		"long room":  `{"game":"court","room":"` + strings.Repeat("r", fleetkv.MaxRoom+1) + `","version":"1"}`,
		"dot":        `{"game":"court","room":"r.s","version":"1"}`,
		"dot end":    `{"game":"court","room":"r","version":"1."}`,
		"oversized":  `{"game":"court","room":"r1","version":"1","x":"` + strings.Repeat("x", maxRequest) + `"}`,
		"no version": `{"game":"court","room":"r1"}`,
	} {
		_, err := parseRequest(strings.NewReader(body))
		require.ErrorIs(t, err, ErrBadRequest, name)
	}
}

func TestErrorOf(t *testing.T) {
	for _, e := range []error{ErrBadRequest, ErrUnavailable, ErrNoHost, ErrVersion, ErrRoomFull, ErrBusy} {
		msg := e.Error() + ": details"
		got := fleetkv.ErrorOf(statusOf(e), msg)
		require.ErrorIs(t, got, e)
		require.Contains(t, got.Error(), "details")
	}
	require.ErrorIs(t, fleetkv.ErrorOf(http.StatusServiceUnavailable, "proxy says no"), ErrUnavailable)
	require.False(t, errors.Is(fleetkv.ErrorOf(http.StatusTeapot, "?"), ErrUnavailable))
}

func TestRoomKeyOneToken(t *testing.T) {
	require.Equal(t, "room.court.r1", fleetkv.RoomKey("court", "r1"))
	_, err := parseRequest(strings.NewReader(`{"game":"a.b","room":"c","version":"1.2"}`))
	require.ErrorIs(t, err, ErrBadRequest, "a dot would split the key")
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"game":"court","room":"r1","version":"1"}`))
	f.Add([]byte(`{"game":"c","room":"` + strings.Repeat("r", 40) + `","version":"1"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRequest(strings.NewReader(string(b)))
		if err != nil {
			require.ErrorIs(t, err, ErrBadRequest)
			return
		}
		require.NoError(t, r.Validate())
		require.LessOrEqual(t, len(r.Room), fleetkv.MaxRoom)
		require.Len(t, strings.Split(fleetkv.RoomKey(r.Game, r.Room), "."), 3)
	})
}
