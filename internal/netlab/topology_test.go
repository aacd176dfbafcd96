//go:build linux

package netlab_test

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/netlab"
)

// TestUDPBlocked: a player behind a firewall that lets no UDP out plays
// one behind a home router; ICE finds no UDP path from the first, and the
// match runs over the TURN relay reached over TCP.
func TestUDPBlocked(t *testing.T) {
	t.Parallel()
	l := lab(t)
	sig := startSignal(t, l)
	left, right := l.Player("alice", netlab.NoUDP), l.Player("bob", netlab.Home)
	args := []string{"-signal", sig.url, "-room", "tcp", "-frames", "240", "-fps", "120", "-timeout", "30s"}
	lp := pong(t, left, "alice", args...)
	lp.waitFor(t, regexp.MustCompile(`^pong: in room`), 20*time.Second)
	rp := pong(t, right, "bob", args...)
	lout, lcode := lp.wait(t, 60*time.Second)
	rout, rcode := rp.wait(t, 60*time.Second)
	played(t, "alice (no UDP)", lout, lcode)
	played(t, "bob (home)", rout, rcode)
	lpath, rpath := parsePath(t, "alice", lout), parsePath(t, "bob", rout)
	t.Logf("alice (no UDP): %s; bob (home): %s; open %v after joining", lpath, rpath, rpath.Open)
	var figs figures
	figs.add("  %-10s %-10s %-9s %8v %8v", netlab.NoUDP, netlab.Home, "relay/TCP", rpath.Open.Round(time.Millisecond), rp.joinToMatch(t))
	require.Equal(t, path{Kind: "relay", Protocol: "TCP", Local: "relay", Remote: lpath.Remote, Open: lpath.Open}, lpath)
	require.Equal(t, "relay", rpath.Remote, "bob sends to alice's relay candidate")
	require.Regexp(t, `rollnet_turn_allocations_total [1-9]`, sig.metrics(t))
	figs.print(t, figuresTitle)
}

// TestAuthorityBehindNATs: an authoritative host on the public segment
// hosts one match for a client behind each kind of NAT (one room each,
// all at once); every client's states agree with the host's, and the
// path is the one a public peer meets that NAT by.
func TestAuthorityBehindNATs(t *testing.T) {
	t.Parallel()
	l := lab(t)
	sig := startSignal(t, l)
	host := l.Public("host")
	type match struct {
		nat          netlab.NAT
		host, client *proc
	}
	var matches []match
	var figs figures
	for _, nat := range netlab.Kinds {
		args := []string{"-mode", "authority", "-signal", sig.url, "-room", "auth-" + nat.String(),
			"-frames", "240", "-fps", "120", "-timeout", "30s"}
		m := match{nat: nat, host: pong(t, host, "host-"+nat.String(), args...)}
		m.host.waitFor(t, regexp.MustCompile(`^pong: in room`), 20*time.Second)
		m.client = pong(t, l.Player("client-"+nat.String(), nat), "client-"+nat.String(), args...)
		matches = append(matches, m)
	}
	for _, m := range matches {
		hout, hcode := m.host.wait(t, 90*time.Second)
		cout, ccode := m.client.wait(t, 90*time.Second)
		played(t, "host of "+m.nat.String(), hout, hcode)
		played(t, "client behind "+m.nat.String(), cout, ccode)
		require.Contains(t, cout, "frames played       240")
		hpath, cpath := parsePath(t, "host", hout), parsePath(t, "client", cout)
		t.Logf("client behind %-10s host: %s | client: %s", m.nat, hpath, cpath)
		figs.add("  %-10s %-10s %-9s %8v %8v", "host", m.nat, pairKind(hpath, cpath), cpath.Open.Round(time.Millisecond), m.client.joinToMatch(t))
		require.Equal(t, pairPath(netlab.None, m.nat), pairKind(hpath, cpath), "client behind %s", m.nat)
	}
	figs.print(t, "authority mode; "+figuresTitle)
}

// TestRouterChange: two players with -rejoin play through home routers;
// mid-match the right one's link moves to another router (a new public
// address: its WebRTC and signaling connections are cut), its process is
// killed and started again from its rejoin FILE behind the new router; it
// rejoins, and every checksum both print after the rejoin frame agrees.
func TestRouterChange(t *testing.T) {
	t.Parallel()
	l := lab(t)
	sig := startSignal(t, l)
	left := l.Player("alice", netlab.Home)
	right := l.Player("bob", netlab.Home)
	second := l.Router("bob-mobile", netlab.Masquerade)
	dir := t.TempDir()
	args := func(name string) []string {
		return []string{"-signal", sig.url, "-room", "move", "-frames", "1200", "-fps", "120", "-timeout", "30s",
			"-rejoin", fmt.Sprintf("%s/%s.rejoin", dir, name)}
	}
	lp := pong(t, left, "alice", args("alice")...)
	lp.waitFor(t, regexp.MustCompile(`^pong: in room`), 20*time.Second)
	rp := pong(t, right, "bob", args("bob")...)
	rp.waitFor(t, regexp.MustCompile(`^pong: rejoin token saved in `), 30*time.Second)
	rp.waitFor(t, regexp.MustCompile(`^pong: checksum frame ([3-9]\d\d|\d{4,}) `), 30*time.Second)
	before := right.PublicAddr()
	right.MoveTo(second)
	require.NotEqual(t, before, right.PublicAddr())
	t.Logf("bob moved from %s to %s (behind %s)", before, right.PublicAddr(), second.Name)
	lp.waitFor(t, regexp.MustCompile(`^pong: bob dropped at frame \d+`), 20*time.Second)
	rp.kill(t)

	again := pong(t, right, "bob", args("bob")...)
	m, _ := again.waitFor(t, regexp.MustCompile(`^pong: rejoined at frame (\d+): replayed \d+ frames in `), 60*time.Second)
	rejoinAt, _ := strconv.Atoi(m[1])
	rout, rcode := again.wait(t, 90*time.Second)
	lout, lcode := lp.wait(t, 90*time.Second)
	played(t, "bob, rejoined", rout, rcode)
	played(t, "alice", lout, lcode)
	require.Contains(t, lout, "bob rejoined at frame "+m[1])
	rpath := parsePath(t, "bob, rejoined", rout)
	t.Logf("bob rejoined at frame %d over %s", rejoinAt, rpath)
	require.Equal(t, pairPath(netlab.Home, netlab.Masquerade), rpath.Kind, "bob behind the new router to alice: %s", rpath)
	ls, rs := sumsOf(lout), sumsOf(rout)
	same := 0
	for f, crc := range rs {
		require.GreaterOrEqual(t, f, rejoinAt)
		if c, ok := ls[f]; ok {
			require.Equal(t, c, crc, "frame %d", f)
			same++
		}
	}
	t.Logf("%d checksums compared after the rejoin, all agree", same)
	require.GreaterOrEqual(t, same, 3, "checksums compared after the rejoin")
}

// sumLine is a checksum line a -rejoin player prints (headless).
var sumLine = regexp.MustCompile(`(?m)^pong: checksum frame (\d+) ([0-9a-f]{8})$`)

func sumsOf(out string) map[int]string {
	sums := map[int]string{}
	for _, m := range sumLine.FindAllStringSubmatch(out, -1) {
		f, _ := strconv.Atoi(m[1])
		sums[f] = m[2]
	}
	return sums
}
