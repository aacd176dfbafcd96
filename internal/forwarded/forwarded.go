package forwarded

import (
	"net/http"
	"net/netip"
	"strings"
)

// Client returns the address r counts against: its TCP peer's, or,
// when that peer is in trusted, the address the trusted proxies vouch
// for (see the package documentation). A RemoteAddr that does not parse
// is returned as it is.
func Client(r *http.Request, trusted []netip.Prefix) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	ip := ap.Addr().Unmap()
	if isTrusted(trusted, ip) {
		ip = walk(r.Header, ip, trusted)
	}
	return ip.String()
}

func isTrusted(trusted []netip.Prefix, ip netip.Addr) bool {
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// walk reads the chain right to left from the trusted peer.
func walk(h http.Header, peer netip.Addr, trusted []netip.Prefix) netip.Addr {
	var chain []string
	if fw := h.Values("Forwarded"); len(fw) > 0 {
		for _, v := range fw {
			for _, elem := range strings.Split(v, ",") {
				chain = append(chain, forParam(elem))
			}
		}
	} else {
		for _, v := range h.Values("X-Forwarded-For") {
			chain = append(chain, strings.Split(v, ",")...)
		}
	}
	client := peer
	for i := len(chain) - 1; i >= 0 && isTrusted(trusted, client); i-- {
		ip, ok := parseNode(chain[i])
		if !ok {
			break
		}
		client = ip
	}
	return client
}

// forParam returns the for= value of one Forwarded element
// ("for=192.0.2.60;proto=http;by=203.0.113.43"), or "".
func forParam(elem string) string {
	for _, pair := range strings.Split(elem, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && strings.EqualFold(k, "for") {
			return v
		}
	}
	return ""
}

// parseNode parses an address as proxies write it: 192.0.2.1,
// "192.0.2.1:4711", "[2001:db8::1]:4711", 2001:db8::1.
func parseNode(v string) (netip.Addr, bool) {
	v = strings.Trim(strings.TrimSpace(v), `"`)
	if ip, err := netip.ParseAddr(v); err == nil {
		return ip.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(v); err == nil {
		return ap.Addr().Unmap(), true
	}
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		if ip, err := netip.ParseAddr(v[1 : len(v)-1]); err == nil {
			return ip.Unmap(), true
		}
	}
	return netip.Addr{}, false
}
