package dedicated

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/rollnet/rollnet/internal/localsignal"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/multi"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
	"github.com/rollnet/rollnet/transport/udp"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// quicOptions are the flags of the host's QUIC listener: native clients
// dial quic://HOST:PORT, browsers open WebTransport on the same port, and
// neither needs the signaling server.
type quicOptions struct {
	addr         string // -quic: listen here ("" for none)
	webTransport bool   // -webtransport
	public       string // -quic-address: the address clients dial and tokens name
	cert, key    string // -cert, -key: PEM files; none: a self-signed certificate
	secretFile   string // -token-secret-file: admit connect-token holders only
	webrtc       bool   // -webrtc: also serve WebRTC clients through the signaling server
	perAddr      int    // -quic-max-conns-per-address
	udp          string // -udp: listen here over transport/udp ("" for none)
	udpPublic    string // -udp-address: the address tokens for -udp name
}

func (q *quicOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&q.addr, "quic", "", "also serve clients over QUIC on `ADDR` (host:port; :0 picks a port): no signaling server needed")
	fs.BoolVar(&q.webTransport, "webtransport", false, "with -quic: serve browsers over WebTransport on the same port (https://ADDR"+quic.WebTransportPath+")")
	fs.StringVar(&q.public, "quic-address", "", "with -quic: the `HOST:PORT` clients dial, which connect tokens name (empty: the listening address)")
	fs.StringVar(&q.cert, "cert", "", "with -quic: the certificate chain, a PEM `FILE` (empty: a self-signed one, whose SHA-256 is logged for clients to pin)")
	fs.StringVar(&q.key, "key", "", "with -cert: its private key, a PEM `FILE`")
	fs.StringVar(&q.secretFile, "token-secret-file", "", "with -quic or -udp (which needs it): admit only clients with a connect token signed with the secret in `FILE` (the game backend's)")
	fs.IntVar(&q.perAddr, "quic-max-conns-per-address", quic.DefaultMaxConnsPerAddr, "with -quic: connections one IP address may hold (handshaking or admitted)")
	fs.StringVar(&q.udp, "udp", "", "also serve clients over plain UDP (transport/udp: connect tokens, one AEAD seal a datagram, the cheapest host path) on `ADDR`; needs -token-secret-file")
	fs.StringVar(&q.udpPublic, "udp-address", "", "with -udp: the `HOST:PORT` clients dial, which their connect tokens name (empty: the listening address)")
	fs.BoolVar(&q.webrtc, "webrtc", true, "serve WebRTC clients through the signaling server (with -quic, -webrtc=false serves QUIC alone)")
}

func (q quicOptions) validate() error {
	switch {
	case q.addr == "" && (q.webTransport || q.public != "" || q.cert != "" || q.key != ""):
		return fmt.Errorf("%w: -webtransport, -quic-address, -cert and -key need -quic", ErrUsage)
	case q.addr == "" && q.udp == "" && q.secretFile != "":
		return fmt.Errorf("%w: -token-secret-file needs -quic or -udp", ErrUsage)
	case q.udp == "" && q.udpPublic != "":
		return fmt.Errorf("%w: -udp-address needs -udp", ErrUsage)
	case q.udp != "" && q.secretFile == "":
		return fmt.Errorf("%w: -udp needs -token-secret-file: its clients are admitted by connect token only", ErrUsage)
	case (q.cert == "") != (q.key == ""):
		return fmt.Errorf("%w: -cert and -key go together", ErrUsage)
	case q.addr == "" && q.udp == "" && !q.webrtc:
		return fmt.Errorf("%w: -webrtc=false needs -quic or -udp: no client could reach the host", ErrUsage)
	}
	if q.addr != "" {
		if _, _, err := net.SplitHostPort(q.addr); err != nil {
			return fmt.Errorf("%w: -quic wants HOST:PORT: %v", ErrUsage, err)
		}
	}
	if q.udp != "" {
		if _, _, err := net.SplitHostPort(q.udp); err != nil {
			return fmt.Errorf("%w: -udp wants HOST:PORT: %v", ErrUsage, err)
		}
	}
	return nil
}

// readSecret reads -token-secret-file.
func readSecret(file string) ([]byte, error) {
	secret, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("-token-secret-file: %w", err)
	}
	return []byte(strings.TrimSpace(string(secret))), nil
}

// listenUDP starts the transport/udp listener of q (-udp), admitting the
// holders of connect tokens signed with -token-secret-file's secret for
// -udp-address, and logs where clients reach it.
func listenUDP(q quicOptions, maxPeers int, log *slog.Logger) (udp.Transport, error) {
	secret, err := readSecret(q.secretFile)
	if err != nil {
		return nil, err
	}
	tr, err := udp.Listen(q.udp, udp.Config{TokenSecret: secret, Address: tokenAddress(q.udpPublic, q.udp), MaxPeers: maxPeers})
	if err != nil {
		return nil, fmt.Errorf("-udp with -token-secret-file: %w", err)
	}
	log.Info("udp listening", "addr", tr.LocalAddr().String(), "id", string(tr.Local()))
	return tr, nil
}

// tokenAddress is the address a host's connect tokens name: public
// (-quic-address, -udp-address), else the one it listens on, but "" (the
// socket's, port and all) for a port the system picks (:0), which no
// token could name.
func tokenAddress(public, listen string) string {
	if public != "" {
		return public
	}
	if _, port, err := net.SplitHostPort(listen); err == nil && port == "0" {
		return ""
	}
	return listen
}

// listenQUIC starts the QUIC listener of q and logs what a client needs:
// the address, the certificate's SHA-256 and the WebTransport URL.
// With -token-secret-file, admit (if not nil) may refuse a client by its
// token's claims (quic.Config.Admit).
func listenQUIC(q quicOptions, maxPeers int, admit func(connecttoken.Claims) error, log *slog.Logger) (quic.Transport, error) {
	cfg := quic.Config{WebTransport: q.webTransport, Address: q.public, MaxPeers: maxPeers, Tuning: quic.Tuning{MaxConnsPerAddr: q.perAddr}}
	if q.cert != "" {
		c, err := tls.LoadX509KeyPair(q.cert, q.key)
		if err != nil {
			return nil, fmt.Errorf("-cert/-key: %w", err)
		}
		cfg.Certificate = &c
	}
	if q.secretFile != "" {
		secret, err := readSecret(q.secretFile)
		if err != nil {
			return nil, err
		}
		cfg.Address = tokenAddress(q.public, q.addr)
		cfg.TokenSecret, cfg.Admit = secret, admit
	}
	tr, err := quic.Listen(q.addr, cfg)
	if err != nil {
		return nil, err
	}
	args := []any{"addr", tr.Addr().String(), "id", string(tr.Local()), "sha256", quic.FormatHash(tr.CertHash())}
	if q.webTransport {
		args = append(args, "webtransport", "https://"+tr.Addr().String()+quic.WebTransportPath)
	}
	log.Info("quic listening", args...)
	return tr, nil
}

// hostTransports is what the host hears its clients on: WebRTC through a
// room of the signaling server, QUIC (and WebTransport) on a UDP port, or
// both as one (transport/multi).
type hostTransports struct {
	tr     transport.Transport
	room   string // the room's name (the game's settings derive from it)
	join   string // the room's join URL; empty without WebRTC
	id     string // the host's id in the room
	rtc    webrtc.Transport
	qt     quic.Transport
	ut     udp.Transport
	closes []func() error
}

// logSends logs what each transport did with the host's datagrams: sent,
// superseded by a newer one of their kind, dropped as stale or refused.
func (h *hostTransports) logSends(log *slog.Logger) {
	if h.rtc != nil {
		st := h.rtc.Stats()
		log.Info("sends", "transport", "webrtc", "sent", st.PacketsSent, "superseded", st.SendsSuperseded,
			"stale", st.SendsStale, "skipped", st.SendsSkipped, "not_open", st.SendsNotOpen, "errors", st.SendErrors)
	}
	if h.qt != nil {
		st := h.qt.Stats()
		log.Info("sends", "transport", "quic", "sent", st.PacketsSent, "superseded", st.SendsSuperseded,
			"stale", st.SendsStale, "skipped", st.SendsSkipped, "errors", st.SendErrors)
	}
	if h.ut != nil {
		st := h.ut.Stats()
		log.Info("sends", "transport", "udp", "sent", st.PacketsSent, "superseded", st.SendsSuperseded,
			"stale", st.SendsStale, "skipped", st.SendsSkipped, "errors", st.SendErrors,
			"forged", st.Forged, "replayed", st.Replayed, "malformed", st.Malformed, "evicted", st.Evicted)
	}
}

func (h *hostTransports) close() {
	for i := len(h.closes) - 1; i >= 0; i-- {
		_ = h.closes[i]()
	}
}

// openTransports starts what o asks for: a signaling server on loopback
// when -signal is empty and WebRTC is on, the room's WebRTC transport,
// the QUIC and UDP listeners.
func openTransports(ctx context.Context, o options, maxPeers int, log *slog.Logger) (*hostTransports, error) {
	h := &hostTransports{room: o.room}
	var parts []transport.Transport
	fail := func(err error) (*hostTransports, error) {
		h.close()
		return nil, err
	}
	if o.q.webrtc {
		if o.signal == "" {
			srv, err := localsignal.Start(signaling.ServerConfig{Logger: log})
			if err != nil {
				return fail(err)
			}
			h.closes = append(h.closes, func() error { srv.Close(); return nil })
			o.signal = srv.URL()
			log.Info("signaling server on loopback", "url", o.signal)
		}
		h.join = strings.TrimRight(o.signal, "/") + "/room/" + url.PathEscape(o.room)
		sc, err := client.Dial(ctx, h.join, client.Config{})
		if err != nil {
			return fail(fmt.Errorf("joining %s: %w", h.join, err))
		}
		h.closes = append(h.closes, sc.Close)
		rtc, err := webrtc.New(webrtc.Config{LoopbackOnly: localsignal.IsLoopback(h.join), MaxPeers: maxPeers}, sc)
		if err != nil {
			return fail(err)
		}
		h.closes = append(h.closes, rtc.Close)
		h.room, h.id, h.rtc = sc.Room(), sc.ID(), rtc
		parts = append(parts, rtc)
	}
	if o.q.addr != "" {
		qt, err := listenQUIC(o.q, maxPeers, nil, log)
		if err != nil {
			return fail(err)
		}
		h.closes = append(h.closes, qt.Close)
		h.qt = qt
		if h.id == "" {
			h.id = string(qt.Local())
		}
		parts = append(parts, qt)
	}
	if o.q.udp != "" {
		ut, err := listenUDP(o.q, maxPeers, log)
		if err != nil {
			return fail(err)
		}
		h.closes = append(h.closes, ut.Close)
		h.ut = ut
		if h.id == "" {
			h.id = string(ut.Local())
		}
		parts = append(parts, ut)
	}
	switch len(parts) {
	case 0:
		return fail(errors.New("no transport: -webrtc=false without -quic or -udp"))
	case 1:
		h.tr = parts[0]
	default:
		m, err := multi.New(parts...)
		if err != nil {
			return fail(err)
		}
		h.tr = m // its parts are closed above, each once
	}
	return h, nil
}
