//go:build linux

package netlab_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/netlab"
)

// pairPath is the path ICE takes between players behind NATs a and b (in
// either order): the lab's finding, asserted.
func pairPath(a, b netlab.NAT) string {
	if a > b {
		a, b = b, a
	}
	switch {
	case a == netlab.None && b == netlab.None:
		return "direct"
	case a == netlab.None || a == netlab.FullCone:
		// Either end takes any packet: the other's first check gets in.
		return "stun"
	case a == netlab.Masquerade && b == netlab.Masquerade:
		// The peer's first check, arriving before the host sent
		// anything, is kept by conntrack as the router's own, and the
		// host's first packet to the peer then leaves from another port
		// than its srflx one, on both ends.
		return "relay"
	case b == netlab.Symmetric:
		// A new port for every destination, and the other end takes
		// replies only.
		return "relay"
	}
	// Home drops the other's first check without keeping it, so the hole
	// opens (Home to Home, and Home to Masquerade in both orders).
	return "stun"
}

// pairKind is the path of a pair as both ends see it: relay if either
// end relays, else stun if either end sees a reflexive candidate (the
// host behind a NAT sees its own host candidate talking to a public
// peer's: the NAT is visible only from the other end), else direct.
func pairKind(a, b path) string {
	switch {
	case a.Kind == "relay" || b.Kind == "relay":
		return "relay"
	case a.Kind == "stun" || b.Kind == "stun":
		return "stun"
	}
	return "direct"
}

// figuresTitle heads the figures for the bench report, of the player that
// joined second: from joining the room to the data channels open (its
// report), and to the match's first frame (its "match started" line).
const figuresTitle = "join to open, join to first frame (the later joiner; left, right, path, open, first frame):"

// figures collects a test's rows for the bench report.
type figures struct {
	mu   sync.Mutex
	rows []string
}

func (f *figures) add(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rows = append(f.rows, fmt.Sprintf(format, args...))
}

func (f *figures) print(t *testing.T, title string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sort.Strings(f.rows)
	t.Logf("%s\n%s", title, strings.Join(f.rows, "\n"))
}

// TestPairsOfNATs plays P2P pong between two players for every pair of
// NAT kinds (each behind its own router, or public), rollnet-signal and
// its TURN relay on the public segment: each match runs to its frame
// budget with every compared checksum agreeing, and both reports name the
// path of pairPath. It logs the table of paths and the time from joining
// to the data channels open.
func TestPairsOfNATs(t *testing.T) {
	var table sync.Map
	var figs figures
	t.Run("pairs", func(t *testing.T) {
		for i, a := range netlab.Kinds {
			for _, b := range netlab.Kinds[i:] {
				t.Run(a.String()+"-"+b.String(), func(t *testing.T) {
					t.Parallel()
					l := lab(t)
					sig := startSignal(t, l)
					left, right := l.Player("alice", a), l.Player("bob", b)
					args := []string{"-signal", sig.url, "-room", "pair", "-frames", "240", "-fps", "120", "-timeout", "30s"}
					lp := pong(t, left, "alice", args...)
					lp.waitFor(t, regexp.MustCompile(`^pong: in room`), 20*time.Second)
					rp := pong(t, right, "bob", args...)
					lout, lcode := lp.wait(t, 60*time.Second)
					rout, rcode := rp.wait(t, 60*time.Second)
					played(t, "alice ("+a.String()+")", lout, lcode)
					played(t, "bob ("+b.String()+")", rout, rcode)
					lpath, rpath := parsePath(t, "alice", lout), parsePath(t, "bob", rout)
					table.Store(a.String()+" "+b.String(), lpath.String()+" | "+rpath.String())
					figs.add("  %-10s %-10s %-9s %8v %8v", a, b, pairKind(lpath, rpath), rpath.Open.Round(time.Millisecond), rp.joinToMatch(t))
					require.Equal(t, pairPath(a, b), pairKind(lpath, rpath), "alice (%s): %s; bob (%s): %s", a, lpath, b, rpath)
					require.Equal(t, "UDP", lpath.Protocol)
					require.Equal(t, "UDP", rpath.Protocol)
					if pairPath(a, b) == "relay" {
						require.Regexp(t, `rollnet_turn_allocations_total [1-9]`, sig.metrics(t))
					}
				})
			}
		}
	})
	var rows []string
	table.Range(func(k, v any) bool { rows = append(rows, fmt.Sprintf("  %-22s %s", k, v)); return true })
	sort.Strings(rows)
	t.Logf("paths (left's NAT, right's NAT: left's selected pair | right's):\n%s", strings.Join(rows, "\n"))
	figs.print(t, figuresTitle)
}
