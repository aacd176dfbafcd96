//go:build linux

package netlab

import (
	"fmt"
	"net/netip"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// Count is packets and their bytes as IP counts them (the IP and UDP
// headers included, no link layer).
type Count struct {
	Packets, Bytes uint64
}

// Sub is c minus an earlier reading.
func (c Count) Sub(earlier Count) Count {
	return Count{c.Packets - earlier.Packets, c.Bytes - earlier.Bytes}
}

// Counter counts a host's UDP packets to and from one peer address with
// nftables counters in the host's namespace.
type Counter struct {
	h *Host
}

// CountUDP starts counting h's UDP packets to and from peer.
func (h *Host) CountUDP(peer netip.Addr) *Counter {
	h.lab.t.Helper()
	rules := fmt.Sprintf(`table inet rnlcount {
	chain out { type filter hook output priority 0; ip daddr %s meta l4proto udp counter comment "out"; }
	chain in { type filter hook input priority 0; ip saddr %s meta l4proto udp counter comment "in"; }
}
`, peer, peer)
	cmd := exec.Command("ip", "netns", "exec", h.NS, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		h.lab.t.Fatalf("netlab: nft in %s: %v: %s\n%s", h.NS, err, out, rules)
	}
	return &Counter{h: h}
}

var counterLine = regexp.MustCompile(`counter packets (\d+) bytes (\d+) comment "(out|in)"`)

// Read returns the counts so far, out of the host and into it.
func (c *Counter) Read() (out, in Count, err error) {
	b, err := exec.Command("ip", "netns", "exec", c.h.NS, "nft", "list", "table", "inet", "rnlcount").CombinedOutput()
	if err != nil {
		return out, in, fmt.Errorf("netlab: nft list in %s: %w: %s", c.h.NS, err, b)
	}
	found := 0
	for _, m := range counterLine.FindAllStringSubmatch(string(b), -1) {
		p, _ := strconv.ParseUint(m[1], 10, 64)
		n, _ := strconv.ParseUint(m[2], 10, 64)
		if m[3] == "out" {
			out = Count{p, n}
		} else {
			in = Count{p, n}
		}
		found++
	}
	if found != 2 {
		return out, in, fmt.Errorf("netlab: nft in %s: no counters in %q", c.h.NS, b)
	}
	return out, in, nil
}
