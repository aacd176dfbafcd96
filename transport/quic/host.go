//go:build !js

package quic

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	quicgo "github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlog"
	"github.com/quic-go/quic-go/qlogwriter"

	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport"
)

// packetSize is the UDP payload size quic-go starts every path at (and
// returns to after a migration): 1280 bytes, IPv6's minimum MTU, which
// leaves room for a transport.MaxDatagram payload in one DATAGRAM frame.
// quic-go's default after a migration is 1200, which does not.
const packetSize = 1280

// hostState is a host Transport's listener and its admission bookkeeping.
type hostState struct {
	t        *qtransport
	udp      net.PacketConn
	qt       *quicgo.Transport
	ln       *quicgo.Listener
	certHash [32]byte
	wt       *webTransportHost // nil unless Config.WebTransport

	mu      sync.Mutex
	perAddr map[netip.Addr]int // connections held per IP: handshaking, pending or admitted
	pending []*pendingConn     // connections past the handshake, before their hello, oldest first
	unknown int                // connections not admitted yet (handshaking or pending)
	seq     uint64             // ids of clients without a token
}

// listenUDP is Listen, natively.
func listenUDP(addr string, cfg Config) (*qtransport, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("quic: listen %s: %w", addr, err)
	}
	udp, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("quic: listen %s: %w", addr, err)
	}
	t, err := listenOn(udp, cfg)
	if err != nil {
		_ = udp.Close()
		return nil, err
	}
	return t, nil
}

func listenOn(udp net.PacketConn, cfg Config) (*qtransport, error) {
	if len(cfg.TokenSecret) > 0 && cfg.tokens == nil {
		address := cfg.Address
		if address == "" {
			address = udp.LocalAddr().String()
		}
		v, err := tokenverify.NewVerifier(cfg.TokenSecret, address, tokenverify.Config{})
		if err != nil {
			return nil, fmt.Errorf("quic: TokenSecret: %w", err)
		}
		cfg.tokens = v
	}
	cert := cfg.Certificate
	if cert == nil {
		c, err := SelfSigned()
		if err != nil {
			return nil, err
		}
		cert = &c
	}
	if cfg.Address == "" {
		cfg.Address = udp.LocalAddr().String()
	}
	t := newTransport(cfg)
	t.local = transport.Peer("quic://" + cfg.Address)
	h := &hostState{t: t, udp: udp, certHash: CertHash(*cert), perAddr: make(map[netip.Addr]int)}
	t.host = h
	h.qt = &quicgo.Transport{
		Conn:                udp,
		ConnContext:         h.connContext,
		VerifySourceAddress: h.verifySourceAddress,
		Tracer:              dropCounter{&t.c},
		// Clients speak QUIC v1 (quic-go, browsers): a packet naming
		// another version is garbage, not worth a reply.
		DisableVersionNegotiationPackets: true,
	}
	tlsConf := &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{*cert},
		NextProtos:   []string{alpnProtocol},
	}
	if cfg.WebTransport {
		tlsConf.NextProtos = append(tlsConf.NextProtos, alpnH3)
		h.wt = newWebTransportHost(h)
	}
	if cfg.tokens != nil {
		tlsConf.GetConfigForClient = h.checkToken
	}
	ln, err := h.qt.Listen(tlsConf, t.quicConfig())
	if err != nil {
		return nil, fmt.Errorf("quic: listen: %w", err)
	}
	h.ln = ln
	t.wg.Add(1)
	go h.acceptLoop()
	return t, nil
}

// clientTokens are the NEW_TOKEN tokens of the hosts this process dialed,
// a few for each of the 64 most recent.
var clientTokens = quicgo.NewLRUTokenStore(64, 4)

// quicConfig is quic-go's configuration for both sides: datagrams on, no
// streams beyond the hello's, the timeouts of cfg, and a fixed initial
// packet size so that every path (a migrated one too) carries a
// transport.MaxDatagram payload from its first packet.
func (t *qtransport) quicConfig() *quicgo.Config {
	c := &quicgo.Config{
		EnableDatagrams:       true,
		HandshakeIdleTimeout:  t.cfg.Tuning.HandshakeTimeout,
		MaxIdleTimeout:        t.cfg.Tuning.IdleTimeout,
		KeepAlivePeriod:       t.cfg.Tuning.KeepAlive,
		MaxIncomingStreams:    1,
		MaxIncomingUniStreams: -1,
		InitialPacketSize:     packetSize,
		// No datagram needs more than 1280-byte packets: probing for a
		// larger path MTU would only add traffic (it cost a 32-byte input
		// stream about 130 B per input in probes).
		DisablePathMTUDiscovery: true,
		// The hello is a few hundred bytes: small windows bound what a
		// peer can make this side buffer on its stream.
		InitialStreamReceiveWindow:     4 << 10,
		MaxStreamReceiveWindow:         4 << 10,
		InitialConnectionReceiveWindow: 8 << 10,
		MaxConnectionReceiveWindow:     8 << 10,
	}
	if t.host == nil {
		// The host's NEW_TOKEN, kept for the process: the next dial to
		// the same host proves its address with it and skips the Retry.
		c.TokenStore = clientTokens
	}
	if t.cfg.WebTransport {
		// HTTP/3 opens three unidirectional streams each way (control,
		// QPACK encoder and decoder), a session its CONNECT stream, and
		// webtransport-go requires resets with partial delivery.
		c.MaxIncomingStreams = 4
		c.MaxIncomingUniStreams = 4
		c.EnableStreamResetPartialDelivery = true
		c.InitialConnectionReceiveWindow = 32 << 10
		c.MaxConnectionReceiveWindow = 32 << 10
	}
	return c
}

func (t *qtransport) certHash() [32]byte {
	if t.host == nil {
		return [32]byte{}
	}
	return t.host.certHash
}

func (t *qtransport) addr() net.Addr {
	if t.host == nil {
		return nil
	}
	return t.host.udp.LocalAddr()
}

// connContext runs when quic-go sees a new connection's first Initial
// packet, before any TLS work: it refuses the connection when its IP
// address already holds MaxConnsPerAddr, and otherwise holds a slot until
// the connection ends.
func (h *hostState) connContext(ctx context.Context, info *quicgo.ClientInfo) (context.Context, error) {
	ip := addrIP(info.RemoteAddr)
	h.mu.Lock()
	if h.perAddr[ip] >= h.t.cfg.Tuning.MaxConnsPerAddr {
		h.mu.Unlock()
		h.t.c.connsRefusedAddr.Add(1)
		return nil, errTooManyFromAddr
	}
	h.perAddr[ip]++
	h.unknown++
	h.mu.Unlock()
	c := &connSlot{ip: ip, unknown: true}
	context.AfterFunc(ctx, func() { h.release(c) })
	return context.WithValue(ctx, connSlotKey{}, c), nil
}

var errTooManyFromAddr = errors.New("quic: too many connections from one address")

// connSlot is one connection's hold on its address's count, and on its
// connect token.
type connSlot struct {
	ip       netip.Addr
	unknown  bool // counted in hostState.unknown
	released bool
	ticket   *tokenverify.Ticket // reserved by checkToken
	redeemed bool                // the hello showed the ticket's key
	session  bool                // a WebTransport session was asked for
	pending  *pendingConn        // its place among the pending, once past the handshake
}

// tokenALPNPrefix marks the ALPN entry that carries a client's connect
// token in its ClientHello, beside alpnProtocol. The host never selects it.
const tokenALPNPrefix = "rollnet-token/1:"

// checkToken runs when the ClientHello arrives, before the host's key
// exchange and signature: a connection without a token the Verifier
// accepts fails its handshake (the Verifier counts why), and an accepted
// token is presented by this connection until it ends or redeems it
// (other connections may present it meanwhile: the first to show its key
// in the hello takes it).
func (h *hostState) checkToken(chi *tls.ClientHelloInfo) (*tls.Config, error) {
	slot, _ := chi.Context().Value(connSlotKey{}).(*connSlot)
	if slot == nil {
		return nil, errNoToken
	}
	for _, p := range chi.SupportedProtos {
		tok, ok := strings.CutPrefix(p, tokenALPNPrefix)
		if !ok {
			continue
		}
		tk, err := h.t.cfg.tokens.Check([]byte(tok))
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		if slot.released {
			h.mu.Unlock()
			h.t.cfg.tokens.Release(tk)
			return nil, errNoToken
		}
		slot.ticket = &tk
		h.mu.Unlock()
		return nil, nil
	}
	if h.wt != nil && slices.Contains(chi.SupportedProtos, alpnH3) {
		// A browser cannot add to its ClientHello: its token comes in the
		// WebTransport request's URL, checked before the session is
		// made (the handshake is spent by then).
		return nil, nil
	}
	h.t.c.tokensMissing.Add(1)
	return nil, errNoToken
}

var errNoToken = errors.New("quic: no connect token")

type connSlotKey struct{}

func (h *hostState) release(c *connSlot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.released {
		return
	}
	c.released = true
	if c.ticket != nil && !c.redeemed {
		h.t.cfg.tokens.Release(*c.ticket)
	}
	if c.unknown {
		h.known(c)
	}
	h.leaveLocked(c.pending)
	if h.perAddr[c.ip]--; h.perAddr[c.ip] <= 0 {
		delete(h.perAddr, c.ip)
	}
}

// released runs when an admitted peer is gone: its slot is freed at once
// (the connection's context also frees it when quic-go is done with it).
func (h *hostState) released(p *peer) {
	if p.slot != nil {
		h.release(p.slot)
	}
}

// verifySourceAddress makes quic-go answer every Initial from an address
// it has not validated with a Retry (one more round trip, proving the
// client's address; a client that connected before presents the token of
// the host's NEW_TOKEN frame instead and skips it). Without it an address
// that only sends its first flight is sent more than three times as much
// (quic-go checks the anti-amplification limit before a packet, not after:
// 8.5 KB for 2.56 KB measured); with it, a Retry packet, and a flood from
// spoofed addresses costs this host a Retry packet each and no connection
// state.
func (h *hostState) verifySourceAddress(net.Addr) bool { return true }

func addrIP(a net.Addr) netip.Addr {
	if ua, ok := a.(*net.UDPAddr); ok {
		if ip, ok := netip.AddrFromSlice(ua.IP); ok {
			return ip.Unmap()
		}
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap.Addr().Unmap()
}

// known notes that c's connection is admitted or gone: no longer one of
// the unknown. h.mu is held.
func (h *hostState) known(c *connSlot) {
	c.unknown = false
	h.unknown--
}

func (h *hostState) acceptLoop() {
	defer h.t.wg.Done()
	for {
		conn, err := h.ln.Accept(h.t.ctx)
		if err != nil {
			return
		}
		// A WebTransport connection waits for its session's hello as a
		// native one waits for its hello, in the same pool.
		slot, _ := conn.Context().Value(connSlotKey{}).(*connSlot)
		if !h.enter(slot, conn) {
			continue
		}
		h.t.wg.Add(1)
		if h.wt != nil && conn.ConnectionState().TLS.NegotiatedProtocol == alpnH3 {
			go func() {
				defer h.t.wg.Done()
				h.wt.serve(conn)
			}()
			continue
		}
		go func() {
			defer h.t.wg.Done()
			h.admitConn(conn)
		}()
	}
}

// admitting is a connection (or a WebTransport session) waiting for its
// hello: what admit needs of it.
type admitting struct {
	conn   datagramConn
	ctx    context.Context // ends with the connection
	slot   *connSlot       // nil only if quic-go skipped ConnContext
	accept func(context.Context) (helloStream, error)
}

// helloStream is the stream the hello travels on.
type helloStream interface {
	io.ReadWriteCloser
	SetDeadline(time.Time) error
}

// admitConn admits a native QUIC connection.
func (h *hostState) admitConn(conn *quicgo.Conn) {
	slot, _ := conn.Context().Value(connSlotKey{}).(*connSlot)
	h.admit(admitting{
		conn: quicConn{conn},
		ctx:  conn.Context(),
		slot: slot,
		accept: func(ctx context.Context) (helloStream, error) {
			return conn.AcceptStream(ctx)
		},
	})
}

// admit runs the hello exchange and makes the connection a peer, or
// closes it.
func (h *hostState) admit(a admitting) {
	t := h.t
	ctx, cancel := context.WithTimeout(t.ctx, t.cfg.Tuning.HelloTimeout)
	defer cancel()
	if a.slot != nil {
		defer h.leave(a.slot)
	}
	str, err := a.accept(ctx)
	if err != nil {
		t.c.hellosBad.Add(1)
		a.conn.closeWith("no hello")
		return
	}
	_ = str.SetDeadline(time.Now().Add(t.cfg.Tuning.HelloTimeout))
	b, err := io.ReadAll(io.LimitReader(str, maxHelloLen+1))
	if a.slot != nil {
		h.leave(a.slot) // what follows is the host's own work: not evicted
	}
	var hi hello
	if err == nil {
		var n int
		hi, n, err = parseHello(b)
		if err == nil && n != len(b) {
			err = fmt.Errorf("%w: %d bytes after the hello", ErrHello, len(b)-n)
		}
	}
	if err != nil {
		t.c.hellosBad.Add(1)
		a.conn.closeWith("bad hello")
		return
	}
	slot := a.slot
	var id transport.Peer
	if t.cfg.tokens != nil {
		if slot == nil || slot.ticket == nil || !hi.hasKey {
			t.c.hellosBad.Add(1)
			refuse(a.conn, str, "no connect token")
			return
		}
		if t.cfg.Admit != nil {
			if err := t.cfg.Admit(slot.ticket.Claims); err != nil {
				t.c.connsRefusedAdmit.Add(1)
				refuse(a.conn, str, err.Error())
				return
			}
		}
		if err := t.cfg.tokens.Redeem(*slot.ticket, hi.key); err != nil {
			refuse(a.conn, str, err.Error())
			return
		}
		h.mu.Lock()
		slot.redeemed = true
		h.mu.Unlock()
		id = transport.Peer("client-" + strconv.FormatUint(slot.ticket.Claims.Client, 10))
	}

	h.mu.Lock()
	full := len(t.Peers(nil)) >= t.cfg.MaxPeers
	if !full && id == "" {
		h.seq++
		id = transport.Peer("q" + strconv.FormatUint(h.seq, 10))
	}
	h.mu.Unlock()
	if full {
		t.c.connsRefusedFull.Add(1)
		refuse(a.conn, str, "host full")
		return
	}
	pctx, stop := context.WithCancel(a.ctx)
	p := &peer{id: id, conn: a.conn, out: sendqueue.New(t.cfg.Tuning.BulkQueueLen), ctx: pctx, stop: stop, slot: slot}
	if slot != nil {
		h.mu.Lock()
		if slot.unknown && !slot.released {
			h.known(slot)
		}
		h.mu.Unlock()
	}
	w := welcome{admitted: true, you: id, host: t.local}
	if !t.addPeer(p) {
		stop()
		a.conn.closeWith("closed")
		return
	}
	t.c.peersAdmitted.Add(1)
	if _, err := str.Write(w.Append(nil)); err != nil {
		t.peerGone(p, transport.ErrPeerClosed)
		return
	}
	_ = str.Close()
}

// refuse tells the client why and closes its connection.
func refuse(conn datagramConn, str helloStream, reason string) {
	_, _ = str.Write(welcome{reason: reason}.Append(nil))
	_ = str.Close()
	conn.closeWith(reason)
}

func (h *hostState) close() error {
	if h.wt != nil {
		_ = h.wt.close()
	}
	err := h.qt.Close()
	if cerr := h.udp.Close(); err == nil && cerr != nil && !errors.Is(cerr, net.ErrClosed) {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("quic: close: %w", err)
	}
	return nil
}

// dropCounter counts the packets quic-go drops before any connection takes
// them, from its transport-level qlog events (the only place it reports
// them). It keeps nothing.
type dropCounter struct{ c *counters }

func (d dropCounter) RecordEvent(e qlogwriter.Event) {
	if pd, ok := e.(qlog.PacketDropped); ok {
		d.c.packetsDropped.Add(1)
		if pd.Trigger == qlog.PacketDropDOSPrevention {
			d.c.packetsDroppedDoS.Add(1)
		}
	}
}

func (dropCounter) Close() error { return nil }
