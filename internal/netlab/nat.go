//go:build linux

package netlab

import (
	"fmt"
	"net/netip"
	"os/exec"
	"strings"
)

// rules replaces r's nftables rules with those of its kind, for a host at
// host behind it.
func (r *Router) rules(host netip.Addr) {
	r.lab.t.Helper()
	rules := r.ruleset(host)
	cmd := exec.Command("ip", "netns", "exec", r.NS, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.lab.t.Fatalf("netlab: nft in %s: %v: %s\n%s", r.NS, err, out, rules)
	}
}

// ruleset is the nft script of r's kind.
func (r *Router) ruleset(host netip.Addr) string {
	masq := "masquerade"
	if r.NAT == Symmetric {
		masq = "masquerade random"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "flush ruleset\n")
	fmt.Fprintf(&b, "table ip nat {\n")
	fmt.Fprintf(&b, "  chain postrouting { type nat hook postrouting priority srcnat; oifname \"wan\" %s; }\n", masq)
	if r.NAT == FullCone {
		// Endpoint-independent filtering: any UDP to the WAN address
		// goes to the host, on the same port.
		fmt.Fprintf(&b, "  chain prerouting { type nat hook prerouting priority dstnat; iifname \"wan\" ip daddr %s udp dport 1024-65535 dnat to %s; }\n", r.WAN, host)
	}
	fmt.Fprintf(&b, "}\n")
	switch r.NAT {
	case Home:
		// What is not a reply is dropped before conntrack keeps it.
		fmt.Fprintf(&b, "table ip filter {\n")
		fmt.Fprintf(&b, "  chain input { type filter hook input priority filter; iifname \"wan\" ct state != { established, related } drop; }\n")
		fmt.Fprintf(&b, "  chain forward { type filter hook forward priority filter; iifname \"wan\" ct state != { established, related } drop; }\n")
		fmt.Fprintf(&b, "}\n")
	case NoUDP:
		fmt.Fprintf(&b, "table ip filter {\n")
		fmt.Fprintf(&b, "  chain forward { type filter hook forward priority filter; iifname \"lan\" meta l4proto udp drop; }\n")
		fmt.Fprintf(&b, "}\n")
	}
	return b.String()
}
