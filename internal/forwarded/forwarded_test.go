package forwarded_test

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/forwarded"
)

func TestClient(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("2001:db8:1::/48")}
	for _, c := range []struct {
		name, remote string
		header       http.Header
		want         string
	}{
		{"untrusted peer, header ignored", "192.0.2.7:5000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "192.0.2.7"},
		{"trusted peer, no header", "10.0.0.5:5000", nil, "10.0.0.5"},
		{"trusted peer vouches", "10.0.0.5:5000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"client's own entries not believed", "10.0.0.5:5000", http.Header{"X-Forwarded-For": {"203.0.113.9, 198.51.100.1"}}, "198.51.100.1"},
		{"two trusted hops", "10.0.0.5:5000", http.Header{"X-Forwarded-For": {"198.51.100.1, 10.0.0.6"}}, "198.51.100.1"},
		{"repeated headers read as one list", "10.0.0.5:5000", http.Header{"X-Forwarded-For": {"203.0.113.9", "198.51.100.1"}}, "198.51.100.1"},
		{"Forwarded first", "10.0.0.5:5000", http.Header{"Forwarded": {`for="[2001:db8::1]:4711";proto=https`}, "X-Forwarded-For": {"198.51.100.1"}}, "2001:db8::1"},
		{"garbage stops at the last trusted hop", "10.0.0.5:5000", http.Header{"X-Forwarded-For": {"198.51.100.1, nonsense"}}, "10.0.0.5"},
		{"IPv4-mapped peer", "[::ffff:10.0.0.5]:5000", http.Header{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"unparsable peer as it is", "pipe", nil, "pipe"},
	} {
		r := &http.Request{RemoteAddr: c.remote, Header: c.header}
		require.Equal(t, c.want, forwarded.Client(r, trusted), c.name)
	}
}

// FuzzClient: proxy headers are written by whoever is left of the
// last proxy, so anything may be in them: the walk never panics, and the
// client it names is the peer or an address that appears in a header.
func FuzzClient(f *testing.F) {
	f.Add("for=192.0.2.60;proto=http, for=\"[2001:db8::1]:4711\"", "")
	f.Add("", "6.6.6.6, 192.0.2.1, 10.9.9.9")
	f.Add("for=unknown", "::ffff:192.0.2.1")
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	f.Fuzz(func(t *testing.T, fwd, xff string) {
		h := http.Header{}
		if fwd != "" {
			h.Set("Forwarded", fwd)
		}
		if xff != "" {
			h.Set("X-Forwarded-For", xff)
		}
		got, err := netip.ParseAddr(forwarded.Client(&http.Request{RemoteAddr: "10.0.0.1:4000", Header: h}, trusted))
		require.NoError(t, err)
		if got != netip.MustParseAddr("10.0.0.1") {
			require.True(t, written(fwd+","+xff, got), "%v from %q %q", got, fwd, xff)
		}
	})
}

// written reports whether ip is one of the addresses written in h's
// elements (split at "," and ";", a "for=" taken off), in any of the forms
// proxies write (an address alone, with a port, in brackets, quoted): the
// same address, not the same spelling ("[1:0::]" is 1::).
func written(h string, ip netip.Addr) bool {
	for _, elem := range strings.FieldsFunc(h, func(r rune) bool { return r == ',' || r == ';' }) {
		v := strings.TrimSpace(elem)
		if k, rest, ok := strings.Cut(v, "="); ok && strings.EqualFold(strings.TrimSpace(k), "for") {
			v = rest
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")); err == nil && a.Unmap() == ip {
			return true
		}
		if ap, err := netip.ParseAddrPort(v); err == nil && ap.Addr().Unmap() == ip {
			return true
		}
	}
	return false
}
