package forwarded_test

import (
	"net/http"
	"net/netip"
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
