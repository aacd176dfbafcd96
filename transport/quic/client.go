//go:build !js

package quic

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	quicgo "github.com/quic-go/quic-go"

	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/transport"
)

// tokenRefused reports whether err, from a handshake that presented a
// connect token, is the host's refusal of it: the host fails the
// handshake from its ClientHello callback, which TLS reports as an
// internal_error alert (80), CRYPTO_ERROR 0x150, the only way this host
// fails a handshake from its side before the certificate.
func tokenRefused(err error) bool {
	var te *quicgo.TransportError
	return errors.As(err, &te) && te.Remote && te.ErrorCode == quicgo.TransportErrorCode(0x100+80)
}

// quicConn adapts *quicgo.Conn to datagramConn.
type quicConn struct{ *quicgo.Conn }

func (c quicConn) closeWith(reason string) { _ = c.CloseWithError(0, reason) }

// clientState is a client Transport's connection and the sockets it has
// used.
type clientState struct {
	t    *qtransport
	conn *quicgo.Conn

	mu    sync.Mutex
	paths []*quicgo.Transport // the first socket, then one per successful Migrate
	spare []*quicgo.Transport // sockets of migrations that failed
	local net.IP
	host  transport.Peer
}

// dialUDP is Dial, natively.
func dialUDP(ctx context.Context, addr string, cfg Config) (*qtransport, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ra, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("quic: dial %s: %w", addr, err)
	}
	network := "udp4"
	if ra.IP.To4() == nil {
		network = "udp6"
	}
	udp, err := net.ListenUDP(network, nil)
	if err != nil {
		return nil, fmt.Errorf("quic: dial %s: %w", addr, err)
	}
	t := newTransport(cfg)
	c := &clientState{t: t, paths: []*quicgo.Transport{{Conn: udp}}}
	t.cl = c
	fail := func(err error) (*qtransport, error) {
		t.cancel()
		_ = c.close()
		return nil, err
	}

	host, _, _ := net.SplitHostPort(addr)
	tlsConf := &tls.Config{
		MinVersion: tls.VersionTLS13,
		NextProtos: []string{alpnProtocol},
		ServerName: cfg.ServerName,
		RootCAs:    cfg.RootCAs,
	}
	var hi hello
	if cfg.Grant != nil {
		tlsConf.NextProtos = append(tlsConf.NextProtos, tokenALPNPrefix+string(cfg.Grant.Token))
		hi = hello{key: cfg.Grant.Key, hasKey: true}
	}
	if tlsConf.ServerName == "" {
		tlsConf.ServerName = host
	}
	if cfg.PinSHA256 != ([32]byte{}) {
		pin := cfg.PinSHA256
		tlsConf.InsecureSkipVerify = true // replaced by the pin check below
		tlsConf.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return ErrPinMismatch
			}
			if sha256.Sum256(cs.PeerCertificates[0].Raw) != pin {
				return ErrPinMismatch
			}
			return nil
		}
	}
	conn, err := c.paths[0].Dial(ctx, ra, tlsConf, t.quicConfig())
	if err != nil {
		if errors.Is(err, ErrPinMismatch) {
			return fail(fmt.Errorf("quic: dial %s: %w", addr, ErrPinMismatch))
		}
		if errors.As(err, new(*tls.CertificateVerificationError)) {
			return fail(fmt.Errorf("quic: dial %s: %w (%w)", addr, ErrUntrusted, err))
		}
		if g := cfg.Grant; g != nil && tokenRefused(err) {
			return fail(fmt.Errorf("quic: dial %s: %w: the host refused the connect token at the handshake: "+
				"already used, expired, minted for another host or room, or not signed by the host's backend "+
				"(the grant names room %q, client %d, host %q, expiring %s): %w",
				addr, ErrRefused, g.Claims.Room, g.Claims.Client, g.Claims.Address, g.Claims.Expires.UTC().Format(time.RFC3339), err))
		}
		return fail(fmt.Errorf("quic: dial %s: %w", addr, err))
	}
	c.conn = conn
	if la, ok := udp.LocalAddr().(*net.UDPAddr); ok {
		c.local = la.IP
	}

	w, err := c.hello(ctx, hi)
	if err != nil {
		_ = conn.CloseWithError(0, "hello failed")
		return fail(fmt.Errorf("quic: dial %s: %w", addr, err))
	}
	t.local, c.host = w.you, w.host
	pctx, stop := context.WithCancel(t.ctx)
	p := &peer{id: w.host, conn: quicConn{conn}, out: sendqueue.New(cfg.Tuning.BulkQueueLen), ctx: pctx, stop: stop}
	t.addPeer(p)
	return t, nil
}

// hello sends h on a new stream and reads the host's welcome.
func (c *clientState) hello(ctx context.Context, h hello) (welcome, error) {
	ctx, cancel := context.WithTimeout(ctx, c.t.cfg.Tuning.HelloTimeout)
	defer cancel()
	str, err := c.conn.OpenStreamSync(ctx)
	if err != nil {
		return welcome{}, fmt.Errorf("%w: %w", ErrHello, err)
	}
	deadline, _ := ctx.Deadline()
	_ = str.SetDeadline(deadline)
	if _, err := str.Write(h.Append(nil)); err != nil {
		return welcome{}, fmt.Errorf("%w: %w", ErrHello, err)
	}
	_ = str.Close()
	b, err := io.ReadAll(io.LimitReader(str, maxHelloLen+1))
	if err != nil {
		var ae *quicgo.ApplicationError
		if errors.As(err, &ae) && ae.Remote {
			return welcome{}, fmt.Errorf("%w: %s", ErrRefused, ae.ErrorMessage)
		}
		return welcome{}, fmt.Errorf("%w: %w", ErrHello, err)
	}
	w, n, err := parseWelcome(b)
	if err != nil {
		return welcome{}, err
	}
	if n != len(b) {
		return welcome{}, fmt.Errorf("%w: %d bytes after the welcome", ErrHello, len(b)-n)
	}
	if !w.admitted {
		return welcome{}, fmt.Errorf("%w: %s", ErrRefused, w.reason)
	}
	return w, nil
}

func (t *qtransport) migrate(ctx context.Context) error {
	c := t.cl
	if c == nil {
		return ErrNotClient
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.paths)+len(c.spare) > t.cfg.Tuning.MaxMigrations {
		return ErrTooManyMigrations
	}
	network := "udp4"
	if c.local.To4() == nil {
		network = "udp6"
	}
	udp, err := net.ListenUDP(network, &net.UDPAddr{IP: c.local})
	if err != nil {
		return fmt.Errorf("quic: migrate: %w", err)
	}
	qt := &quicgo.Transport{Conn: udp}
	path, err := c.conn.AddPath(qt)
	if err != nil {
		_ = qt.Close()
		_ = udp.Close()
		return fmt.Errorf("quic: migrate: %w", err)
	}
	c.spare = append(c.spare, qt) // closed with the rest, whether the switch works or not
	if err := path.Probe(ctx); err != nil {
		_ = path.Close()
		return fmt.Errorf("quic: migrate: probe: %w", err)
	}
	if err := path.Switch(); err != nil {
		_ = path.Close()
		return fmt.Errorf("quic: migrate: switch: %w", err)
	}
	c.spare = c.spare[:len(c.spare)-1]
	c.paths = append(c.paths, qt)
	return nil
}

// LocalAddr is the UDP address a client's connection sends from now (it
// changes with Migrate), nil on a host.
func (t *qtransport) LocalAddr() net.Addr {
	if t.cl == nil {
		return nil
	}
	t.cl.mu.Lock()
	defer t.cl.mu.Unlock()
	return t.cl.paths[len(t.cl.paths)-1].Conn.LocalAddr()
}

func (c *clientState) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, qt := range append(c.paths, c.spare...) {
		if err := qt.Close(); err != nil {
			errs = append(errs, err)
		}
		if err := qt.Conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("quic: close: %w", err)
	}
	return nil
}

// path is a QUIC connection's route and smoothed round trip.
func (c quicConn) path() (string, time.Duration) {
	return "direct quic", c.ConnectionStats().SmoothedRTT
}
