package turn

import (
	"net"
	"net/netip"
)

// Ranges that are neither loopback nor reachable on the Internet, refused
// as relay peers unless Config.AllowPrivate: relaying to them would let a
// client reach the relay's own network.
var localPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("100::/64"),       // discard-only
}

// peerAllowed reports whether an allocation may relay to ip.
func (c *Config) peerAllowed(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return c.AllowLoopback
	case a.IsUnspecified(), a.IsMulticast():
		return false
	case a.IsPrivate(), a.IsLinkLocalUnicast():
		return c.AllowPrivate
	}
	for _, p := range localPrefixes {
		if p.Contains(a) {
			return c.AllowPrivate
		}
	}
	return true
}
