package netplay

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/signalurl"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// QUICHost is a dedicated host a client dials directly over QUIC
// (transport/quic), without a signaling server: its URL, the certificate
// to accept and the connect token to present. With a udp:// URL the host
// is dialed over plain UDP instead (transport/udp, a host's -udp): Grant
// is then required and no certificate is pinned.
type QUICHost struct {
	// URL is the host's address, quic://HOST:PORT, or udp://HOST:PORT
	// for transport/udp.
	URL string

	// PinSHA256 is the SHA-256 of the host's certificate (quic.ParseHash
	// of the sha256= its log prints): that certificate is accepted,
	// whoever signed it. Zero means the certificate must verify as a
	// browser's would, for the URL's host name.
	PinSHA256 [32]byte

	// Grant is the connect token to present, for a host that admits only
	// token holders (transport/quic's Config.Tokens): as the game's
	// backend minted it for this host (connecttoken.ParseGrant). Nil
	// presents none.
	Grant *connecttoken.Grant
}

// addr is the HOST:PORT of h.URL, and whether it names transport/udp.
func (h QUICHost) addr() (string, bool, error) {
	u, err := url.Parse(h.URL)
	if err == nil && (u.Scheme == "quic" || u.Scheme == "udp") && u.Host != "" && u.User == nil && (u.Path == "" || u.Path == "/") &&
		u.RawQuery == "" && u.Fragment == "" {
		if u.Hostname() != "" {
			if n, err := strconv.ParseUint(u.Port(), 10, 16); err == nil && n > 0 {
				return u.Host, u.Scheme == "udp", h.checkUDP(u.Scheme == "udp")
			}
		}
	}
	return "", false, fmt.Errorf("%w: the host's URL wants quic://HOST:PORT or udp://HOST:PORT, got %q", errConfig, signalurl.Redact(h.URL))
}

// checkUDP checks what a udp:// host needs: a grant, and no certificate.
func (h QUICHost) checkUDP(udp bool) error {
	switch {
	case !udp:
		return nil
	case h.Grant == nil:
		return fmt.Errorf("%w: a udp:// host admits only a connect token's holder: QUIC.Grant is nil", errConfig)
	case h.PinSHA256 != [32]byte{}:
		return fmt.Errorf("%w: a udp:// host has no certificate to pin: QUIC.PinSHA256 is set", errConfig)
	}
	return nil
}

// connectQUIC is Connect with Config.QUIC: the authoritative match of
// the dedicated host cfg.QUIC as a client, over QUIC (or transport/udp
// for a udp:// URL) and without a signaling server. It returns at once and dials the host in the
// background (Status.Phase Connecting until then; a host that does not
// answer in Config.Timeout, presents another certificate than
// QUIC.PinSHA256 or refuses QUIC.Grant is the error of AdvanceFrame,
// wrapping ErrHostUnreachable and transport/quic's sentinel). Then it is
// Connect's match: the host's hello is checked (ErrSettings at once), and
// with Config.Tokens a Match started again for the same Config.Room
// rejoins its slots. Config.Signal, Rooms, Transport and Fleet must be
// empty: it dials its own transport (Tuning.Impair applies to it). In a
// browser build the dial fails with errConfig: a page reaches a host over
// WebTransport, not raw QUIC.
func connectQUIC[S any, I comparable](k kind[S, I], cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	h := cfg.QUIC
	addr, overUDP, err := h.addr()
	if err != nil {
		return nil, err
	}
	if cfg.Signal != "" || cfg.Rooms != nil || cfg.Transport != nil || cfg.Fleet != nil {
		return nil, fmt.Errorf("%w: Config.QUIC dials its own transport: no Signal, Rooms, Transport or Fleet", errConfig)
	}
	m, err := startWith(k, cfg, simulate, func(ctx context.Context, cfg *Config, _ func(transport.Peer) bool) dialed {
		host, tr, err := dialQUIC(ctx, cfg, addr, overUDP, h)
		if err != nil {
			return dialed{err: err}
		}
		return dialed{tr: tr, name: cfg.Room, greet: []transport.Peer{host}}
	})
	if err != nil {
		return nil, err
	}
	m.link.reach = "the host at " + h.URL
	return m, nil
}
