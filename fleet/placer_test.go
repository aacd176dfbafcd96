//go:build !js

package fleet_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/fleethost"
	"github.com/rollnet/rollnet/internal/natstest"
	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

var testSecret = []byte("fleet-unit-test-secret-0123456789")

// testConfig: a host beats every 100 ms and is gone after 500 ms of silence.
// testConfig's OpTimeout bounds one key-value operation at 10 s, not the
// default 2 s: creating the bucket on a loaded machine under -race (two
// CPU hogs beside the test) took longer, and NewPlacer failed.
var testConfig = fleet.Config{Tuning: fleet.Tuning{Heartbeat: 100 * time.Millisecond, DeadAfter: 500 * time.Millisecond, OpTimeout: 10 * time.Second}}

func join(t *testing.T, e *natstest.Server, id, version string, matches, perMatch int) *fleethost.Member {
	t.Helper()
	return joinOf(t, e, testConfig, id, version, matches, perMatch)
}

// joinOf is join with the host's fleet configuration cfg.
func joinOf(t *testing.T, e *natstest.Server, cfg fleet.Config, id, version string, matches, perMatch int) *fleethost.Member {
	t.Helper()
	m, err := fleethost.Join(e.Connect(t), fleethost.HostInfo{ID: id, Version: version, Games: []fleet.Game{{Name: "court", Clients: perMatch}},
		QUIC: "127.0.0.1:" + fmt.Sprint(4000+len(id)), Capacity: fleet.Capacity{Matches: matches, Clients: matches * perMatch}}, cfg, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// placer is a placer on a clock that stays still: a host it saw is live
// as long as the test runs, however late its beats come.
func placer(t *testing.T, e *natstest.Server, policy fleet.Policy) *fleet.Placer {
	t.Helper()
	return placerAt(t, e, fleet.PlacerConfig{Config: testConfig, Policy: policy}, newClock())
}

// placerAt is a placer of cfg (its Secret and address rates the tests')
// on clk.
func placerAt(t *testing.T, e *natstest.Server, cfg fleet.PlacerConfig, clk *clock) *fleet.Placer {
	t.Helper()
	cfg.Secret, cfg.AddrRate, cfg.AddrBurst = testSecret, cmp.Or(cfg.AddrRate, 1000), cmp.Or(cfg.AddrBurst, 1000)
	p, err := fleet.NewPlacerAt(e.Connect(t), cfg, clk.Now)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// waitHosts waits until p sees n live hosts.
func waitHosts(t *testing.T, p *fleet.Placer, n int) {
	t.Helper()
	deadline := time.Now().Add(eventBound)
	for {
		live := 0
		for _, h := range p.View().Hosts {
			if h.State == "live" {
				live++
			}
		}
		if live == n {
			return
		}
		require.True(t, time.Now().Before(deadline), "the placer sees %d live hosts, not %d, after %v", live, n, eventBound)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPlacersNeverOverfill races two placers (one filling, one spreading)
// over three hosts of two matches each: 40 rooms asked at once, exactly 6
// placed, the rest refused with ErrNoHost, and no record ever lists more
// than its capacity.
func TestPlacersNeverOverfill(t *testing.T) {
	e := startNATS(t)
	for _, id := range []string{"h1", "h2", "h3"} {
		join(t, e, id, "1", 2, 2)
	}
	ps := []*fleet.Placer{placer(t, e, fleet.Fill), placer(t, e, fleet.Spread)}
	for _, p := range ps {
		waitHosts(t, p, 3)
	}
	var mu sync.Mutex
	placed := map[string]string{} // room: host
	refused := 0
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := ps[i%2].Place(context.Background(), fleet.Request{Game: "court", Room: fmt.Sprintf("r%d", i), Version: "1"})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				require.ErrorIs(t, err, fleet.ErrNoHost)
				refused++
				return
			}
			placed[r.Room] = r.Host
		}()
	}
	wg.Wait()
	require.Len(t, placed, 6, "placed")
	require.Equal(t, 34, refused)
	perHost := map[string]int{}
	for _, h := range placed {
		perHost[h]++
	}
	require.Equal(t, map[string]int{"h1": 2, "h2": 2, "h3": 2}, perHost)
	t.Logf("compare-and-set rounds lost and retried: %d + %d", ps[0].Stats().Conflict, ps[1].Stats().Conflict)

	// The room's second client joins the same match through the other
	// placer; a third is refused (court takes 2 here).
	var room, host string
	for room, host = range placed {
		break
	}
	r, err := ps[1].Place(context.Background(), fleet.Request{Game: "court", Room: room, Version: "1"})
	require.NoError(t, err)
	require.True(t, r.Joined)
	require.Equal(t, host, r.Host)
	_, err = ps[0].Place(context.Background(), fleet.Request{Game: "court", Room: room, Version: "1"})
	require.ErrorIs(t, err, fleet.ErrRoomFull)
}

// TestFriendsAskForTheLastRoom: the two clients of one room ask two
// placers at once for the fleet's last free match: both are placed, one
// in the match the other's placement made. Before, the one that lost the
// race found the host full (by its friend's reservation, its room key not
// written yet) and was refused with ErrNoHost.
//
// Between rounds the host ends the round's match, both its clients come
// (Ended): the next beat written takes it out, even when the beat's first
// write loses its compare-and-set to a placer's (before, the lost write
// forgot the end, and the match stayed in the record as placed and never
// joined until PlaceExpiry).
func TestFriendsAskForTheLastRoom(t *testing.T) {
	e := startNATS(t)
	m := join(t, e, "h1", "1", 1, 2)
	ps := []*fleet.Placer{placer(t, e, fleet.Fill), placer(t, e, fleet.Spread)}
	for _, p := range ps {
		waitHosts(t, p, 1)
	}
	kv := bucket(t, e.Connect(t))
	for round := range 10 {
		room := fmt.Sprintf("r%d", round)
		var replies [2]fleet.Reply
		var errs [2]error
		var wg sync.WaitGroup
		for i := range ps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				replies[i], errs[i] = ps[i].Place(context.Background(), fleet.Request{Game: "court", Room: room, Version: "1"})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d: placer %d; the placers' hosts: %+v, %+v", round, i, ps[0].View().Hosts, ps[1].View().Hosts)
		}
		require.True(t, replies[0].Joined != replies[1].Joined, "round %d: one placed, one joined: %+v", round, replies)
		m.Ended("court", room, 2)
		waitPlaceable(t, kv, "h1", ps...)
	}
}

// waitPlaceable waits until host id's record in the bucket kv holds no
// match (an ended one taken out), and every placer's mirror has that
// record or a later one. A mirror with no match alone is not enough: one
// that had not seen the placement yet showed none either, the next round
// began with the ended match still in the record, and its placement was
// refused ("the hosts with room filled up meanwhile").
func waitPlaceable(t *testing.T, kv jetstream.KeyValue, id string, ps ...*fleet.Placer) {
	t.Helper()
	deadline := time.Now().Add(eventBound)
	for {
		h, _ := hostRecord(t, kv, id)
		if len(h.Matches) == 0 {
			for _, p := range ps {
				waitBeat(t, p, id, h.Beat)
			}
			return
		}
		require.True(t, time.Now().Before(deadline), "waited %v for the ended match to leave host %s's record: %+v", eventBound, id, h.Matches)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPlacementToken: the grant names the host's address and the room,
// and the host's Verifier takes it.
func TestPlacementToken(t *testing.T) {
	e := startNATS(t)
	join(t, e, "h1", "1", 1, 2)
	p := placer(t, e, fleet.Fill)
	waitHosts(t, p, 1)
	r, err := p.Place(context.Background(), fleet.Request{Game: "court", Room: "r1", Version: "1"})
	require.NoError(t, err)
	g, err := connecttoken.ParseGrant(r.Grant)
	require.NoError(t, err)
	require.Equal(t, "r1", g.Claims.Room)
	require.Equal(t, r.QUIC, g.Claims.Address)
	v, err := tokenverify.NewVerifier(testSecret, r.QUIC, tokenverify.Config{})
	require.NoError(t, err)
	tk, err := v.Check(g.Token)
	require.NoError(t, err)
	require.NoError(t, v.Redeem(tk, g.Key))
}

// TestVersionNeverPlaces: a client of another version is refused even
// with every host empty.
func TestVersionNeverPlaces(t *testing.T) {
	e := startNATS(t)
	join(t, e, "h1", "1.0", 4, 2)
	p := placer(t, e, fleet.Fill)
	waitHosts(t, p, 1)
	_, err := p.Place(context.Background(), fleet.Request{Game: "court", Room: "r1", Version: "1.1"})
	require.ErrorIs(t, err, fleet.ErrVersion)
	_, err = p.Place(context.Background(), fleet.Request{Game: "pong", Room: "r1", Version: "1.0"})
	require.ErrorIs(t, err, fleet.ErrNoHost, "a game no host runs")
	_, err = p.Place(context.Background(), fleet.Request{Game: "court", Room: "r1", Version: "1.0"})
	require.NoError(t, err)
}

// TestSilentHostGone: a host whose heartbeat stops (its NATS connection
// closed, its record left behind) is gone for the placer DeadAfter after
// its last beat, not before, and nothing is placed on it. The placer's
// clock moves when the test says, in steps of half DeadAfter (a beat the
// closed connection still flushed may come after a step: it is seen at
// the clock's now). On the wall clock, a loaded machine's late beats
// moved the moment the test measured from.
func TestSilentHostGone(t *testing.T) {
	e := startNATS(t)
	nc := e.Connect(t)
	m, err := fleethost.Join(nc, fleethost.HostInfo{ID: "h1", Version: "1", Games: []fleet.Game{{Name: "court", Clients: 2}},
		QUIC: "127.0.0.1:4001", Capacity: fleet.Capacity{Matches: 4, Clients: 8}}, testConfig, nil)
	require.NoError(t, err)
	clk := newClock()
	p := placerAt(t, e, fleet.PlacerConfig{Config: testConfig}, clk)
	waitHosts(t, p, 1)
	nc.Close() // silent from here
	lastBeat(t, p, bucket(t, e.Connect(t)), "h1")
	deadline := time.Now().Add(eventBound)
	for {
		clk.Advance(testConfig.Tuning.DeadAfter / 2)
		v := p.View()
		require.Len(t, v.Hosts, 1, "the record stays")
		since, err := time.ParseDuration(v.Hosts[0].SinceBeat)
		require.NoError(t, err)
		if v.Hosts[0].State == "gone" {
			require.Greater(t, since, testConfig.Tuning.DeadAfter, "gone before DeadAfter")
			_, err = p.Place(context.Background(), fleet.Request{Game: "court", Room: "r1", Version: "1"})
			require.ErrorIs(t, err, fleet.ErrNoHost)
			break
		}
		require.LessOrEqual(t, since, testConfig.Tuning.DeadAfter, "live past DeadAfter after its last beat")
		require.True(t, time.Now().Before(deadline), "waited %v for the placer to take the silent host for gone", eventBound)
	}
	_ = m.Close() // fails: its connection is closed
}

// TestDrainStopsPlacement: a draining host takes no new match, but a
// running match's next client still joins it.
func TestDrainStopsPlacement(t *testing.T) {
	e := startNATS(t)
	m := join(t, e, "h1", "1", 4, 2)
	p := placer(t, e, fleet.Fill)
	waitHosts(t, p, 1)
	_, err := p.Place(context.Background(), fleet.Request{Game: "court", Room: "running", Version: "1"})
	require.NoError(t, err)
	m.SetLoad([]string{"running"}, 1)
	m.Drain()
	deadline := time.Now().Add(eventBound)
	for {
		v := p.View()
		if v.Hosts[0].State == "draining" && len(v.Hosts[0].Matches) == 1 && v.Hosts[0].Matches[0].Running {
			break
		}
		require.True(t, time.Now().Before(deadline), "the placer does not see the drain: %+v", v.Hosts)
		time.Sleep(5 * time.Millisecond)
	}
	_, err = p.Place(context.Background(), fleet.Request{Game: "court", Room: "new", Version: "1"})
	require.ErrorIs(t, err, fleet.ErrNoHost)
	r, err := p.Place(context.Background(), fleet.Request{Game: "court", Room: "running", Version: "1"})
	require.NoError(t, err)
	require.True(t, r.Joined)
}

// TestEndedMatchFreesRoom: a match the host ended leaves the record, and
// the placer deletes its room key, so the room is placed anew.
func TestEndedMatchFreesRoom(t *testing.T) {
	e := startNATS(t)
	m := join(t, e, "h1", "1", 1, 2)
	p := placer(t, e, fleet.Fill)
	waitHosts(t, p, 1)
	_, err := p.Place(context.Background(), fleet.Request{Game: "court", Room: "a", Version: "1"})
	require.NoError(t, err)
	_, err = p.Place(context.Background(), fleet.Request{Game: "court", Room: "b", Version: "1"})
	require.ErrorIs(t, err, fleet.ErrNoHost, "one match fills the host")
	m.Ended("court", "a", 1)
	deadline := time.Now().Add(eventBound)
	for {
		_, err = p.Place(context.Background(), fleet.Request{Game: "court", Room: "b", Version: "1"})
		if err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the ended match's room is not freed: %v", err)
		time.Sleep(10 * time.Millisecond)
	}
	// The placers delete the ended room's key (hosts write none).
	kv := bucket(t, e.Connect(t))
	for {
		_, err = kv.Get(context.Background(), "room.court.a")
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			break
		}
		require.True(t, time.Now().Before(deadline), "the ended room's key: %v", err)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPlacerHTTP: the endpoint's refusals and bounds, from raw requests.
func TestPlacerHTTP(t *testing.T) {
	e := startNATS(t)
	join(t, e, "h1", "1", 4, 2)
	p := placerAt(t, e, fleet.PlacerConfig{Config: testConfig, AddrRate: 1, AddrBurst: 3}, newClock())
	waitHosts(t, p, 1)
	srv := httptest.NewServer(p)
	defer srv.Close()
	post := func(body string) (int, fleet.Reply) {
		res, err := http.Post(srv.URL+fleet.PlacePath, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer res.Body.Close()
		var r fleet.Reply
		require.NoError(t, json.NewDecoder(res.Body).Decode(&r))
		return res.StatusCode, r
	}
	code, r := post(`{"game":"court","room":"r1","version":"1"}`)
	require.Equal(t, http.StatusOK, code, r.Error)
	require.NotEmpty(t, r.Grant)
	code, r = post(`{"game":"court","room":"r1"`)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, r.Error, "bad placement request")
	code, _ = post(`{"game":"court","room":"r2","version":"1","pad":"` + strings.Repeat("x", 2*1024) + `"}`)
	require.Equal(t, http.StatusBadRequest, code, "oversized")
	code, _ = post(`{"game":"court","room":"r2","version":"1"}`)
	require.Equal(t, http.StatusTooManyRequests, code, "the address's burst of 3 is spent")
	res, err := http.Get(srv.URL + fleet.PlacePath)
	require.NoError(t, err)
	_ = res.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	res, err = http.Get(srv.URL + fleet.ViewPath)
	require.NoError(t, err)
	var v fleet.View
	require.NoError(t, json.NewDecoder(res.Body).Decode(&v))
	_ = res.Body.Close()
	require.Len(t, v.Hosts, 1)
	require.Equal(t, uint64(1), v.Stats.Placements)
	require.Equal(t, uint64(2), v.Stats.Refused["bad_request"])
	require.Equal(t, uint64(1), v.Stats.Refused["busy"])
}

// TestGoneHostForgotten: a host silent for ForgetAfter has its record
// deleted from the bucket by the placer, with the room key that names it;
// a live host's record and room stay. (With the sweep gone, the dead
// host's key stays forever and the test fails waiting.) The placer's
// clock moves in steps of half ForgetAfter, each step's next beat of the
// live host seen before the next step: the live host is never more than
// half ForgetAfter silent on it, however late a loaded machine delivers
// its beats (on the wall clock, a beat 1 s late had it forgotten too).
func TestGoneHostForgotten(t *testing.T) {
	e := startNATS(t)
	cfg := testConfig
	cfg.Tuning.ForgetAfter = time.Second
	join(t, e, "live", "1", 1, 2)
	nc := e.Connect(t)
	dead, err := fleethost.Join(nc, fleethost.HostInfo{ID: "dead", Version: "1", Games: []fleet.Game{{Name: "court", Clients: 2}},
		QUIC: "127.0.0.1:4009", Capacity: fleet.Capacity{Matches: 1, Clients: 2}}, cfg, nil)
	require.NoError(t, err)
	clk := newClock()
	p := placerAt(t, e, fleet.PlacerConfig{Config: cfg}, clk)
	waitHosts(t, p, 2)
	// One room on each host: each has room for one match (the policy
	// alone would not do: the second placement may see the first's host
	// empty still, until the compare-and-set tells it otherwise).
	rooms := map[string]string{}
	for _, room := range []string{"r1", "r2"} {
		r, err := p.Place(context.Background(), fleet.Request{Game: "court", Room: room, Version: "1"})
		require.NoError(t, err)
		rooms[r.Host] = room
	}
	require.Len(t, rooms, 2, "a room on each host")
	kv := bucket(t, e.Connect(t))
	nc.Close() // "dead" is silent from here, its record left behind
	lastBeat(t, p, kv, "dead")
	// The sweep deletes the record, then counts it; the placer's mirror
	// drops it when its watch delivers the delete: all three are waited
	// for, the clock moving a step at a time (a beat the closed connection
	// still flushed may come after a step: it is seen at the clock's now).
	deadline := time.Now().Add(eventBound)
	for {
		clk.Advance(cfg.Tuning.ForgetAfter / 2)
		waitBeat(t, p, "live", beatOf(p, "live")+1)
		_, err := kv.Get(context.Background(), "host.dead")
		if errors.Is(err, jetstream.ErrKeyNotFound) && p.Stats().Forgotten > 0 && len(p.View().Hosts) == 1 {
			break
		}
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			require.NoError(t, err)
		}
		require.True(t, time.Now().Before(deadline), "waited %v for the placer's sweep (every heartbeat) to forget the dead host's record: %v, %d forgotten, its view: %+v",
			eventBound, err, p.Stats().Forgotten, p.View().Hosts)
		time.Sleep(20 * time.Millisecond)
	}
	_, err = kv.Get(context.Background(), "room.court."+rooms["dead"])
	require.ErrorIs(t, err, jetstream.ErrKeyNotFound, "the dead host's room")
	_, err = kv.Get(context.Background(), "host.live")
	require.NoError(t, err, "the live host's record stays")
	_, err = kv.Get(context.Background(), "room.court."+rooms["live"])
	require.NoError(t, err, "the live host's room stays")
	require.EqualValues(t, 1, p.Stats().Forgotten, "the live host forgotten too")
	require.Equal(t, "live", hostState(p, "live"), "the placer's view holds the live host alone")
	_ = dead.Close() // fails: its connection is closed
}

// TestPlacerTrustedProxy: raw requests from two loopback addresses, one a
// trusted proxy. The proxy's X-Forwarded-For names the client whose
// bucket a request takes (a burst of 1 each); the same header from an
// untrusted address is ignored, and a client's own entries left of the
// proxy's are not believed. (Keyed on the TCP peer, as before, the
// proxy's second client is refused.)
func TestPlacerTrustedProxy(t *testing.T) {
	e := startNATS(t)
	p, err := fleet.NewPlacer(e.Connect(t), fleet.PlacerConfig{Config: testConfig, Secret: testSecret, AddrRate: 1, AddrBurst: 1,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}})
	require.NoError(t, err)
	defer p.Close()
	srv := httptest.NewServer(p)
	defer srv.Close()
	// post sends one raw placement request from local address from, with
	// xff as its X-Forwarded-For ("" for none), and returns the status.
	post := func(from, xff string) int {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
		body := `{"game":"court","room":"r1","version":"1"}`
		req := "POST " + fleet.PlacePath + " HTTP/1.1\r\nHost: fleet\r\nContent-Type: application/json\r\nConnection: close\r\n"
		if xff != "" {
			req += "X-Forwarded-For: " + xff + "\r\n"
		}
		req += fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
		_, err = io.WriteString(c, req)
		require.NoError(t, err)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err, "a reply within 10 s")
		_ = res.Body.Close()
		return res.StatusCode
	}
	const busy = http.StatusTooManyRequests
	// No host runs: a request let through is refused 503 (no host), one
	// over its address's bucket 429.
	require.NotEqual(t, busy, post("127.0.0.1", "203.0.113.1"), "untrusted: its first request")
	require.Equal(t, busy, post("127.0.0.1", "203.0.113.2"), "untrusted: its header is ignored, its own bucket spent")
	require.NotEqual(t, busy, post("127.0.0.2", "203.0.113.1"), "through the proxy: client .1")
	require.NotEqual(t, busy, post("127.0.0.2", "203.0.113.2"), "through the proxy: client .2, its own bucket")
	require.Equal(t, busy, post("127.0.0.2", "203.0.113.1"), "through the proxy: client .1 again")
	require.Equal(t, busy, post("127.0.0.2", "198.51.100.7, 203.0.113.2"), "a client's own entry left of the proxy's is not believed")
	require.NotEqual(t, busy, post("127.0.0.2", ""), "the proxy's own request, without the header")
	require.Equal(t, busy, post("127.0.0.2", "garbage"), "an entry that does not parse stops at the proxy")
}

// TestViewKeysSnakeCase: every key of the /fleet JSON view is snake_case
// (the placer's counts were "Placements", "Joins" beside "since_beat").
func TestViewKeysSnakeCase(t *testing.T) {
	v := fleet.View{Hosts: []fleet.HostView{{Host: fleet.Host{Games: []fleet.Game{{}}, Matches: []fleet.Match{{Running: true}}}}}}
	v.Stats.Refused = map[string]uint64{"no_host": 1}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(b, &doc))
	requireSnakeKeys(t, doc, "")
}

func requireSnakeKeys(t *testing.T, doc any, at string) {
	t.Helper()
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			for _, r := range k {
				require.True(t, 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_', "key %q at %q is not snake_case", k, at)
			}
			requireSnakeKeys(t, v, at+"."+k)
		}
	case []any:
		for _, v := range d {
			requireSnakeKeys(t, v, at+"[]")
		}
	}
}
