package quic

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall/js"
	"time"

	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// In a browser (GOOS=js) the package is a client only, over the page's own
// WebTransport: DialWebTransport opens a session to a host that serves
// WebTransport (Config.WebTransport), runs the hello on its first stream,
// and carries datagrams on the session's datagram streams. The browser
// runs QUIC, TLS and congestion control; the contract is the same, with
// these differences:
//
//   - Received datagrams are read by one JavaScript loop per session that
//     calls into Go for each, which copies it from the page's Uint8Array
//     into the receive queue (no goroutine, no Go allocation of ours).
//   - Each Send is one call into JavaScript with a new Uint8Array
//     (syscall/js allocates for the call's arguments).
//   - The certificate is accepted by its hash (Config.PinSHA256, the
//     serverCertificateHashes option: ECDSA, at most 14 days valid, which
//     SelfSigned makes), or else verified by the browser.
//   - Migrate, Listen and Dial fail (errors.ErrUnsupported); CertHash and
//     Addr are zero.

// hostState and connSlot have no browser form: a page cannot listen.
type (
	hostState struct{}
	connSlot  struct{}
)

func (*hostState) close() error   { return nil }
func (*hostState) released(*peer) {}

// clientState is a browser client's WebTransport session.
type clientState struct {
	wt   js.Value
	host transport.Peer
}

// close closes the session; the read loop ends and releases its
// callbacks.
func (c *clientState) close() error {
	c.wt.Call("close")
	return nil
}

// errNotInBrowser is what the native-only calls return in a browser.
var errNotInBrowser = fmt.Errorf("quic: not in a browser (use DialWebTransport): %w", errors.ErrUnsupported)

// listenUDP: a page cannot listen on UDP.
func listenUDP(string, Config) (*qtransport, error) { return nil, errNotInBrowser }

// dialUDP: a browser has no raw QUIC (DialWebTransport is its way).
func dialUDP(context.Context, string, Config) (*qtransport, error) { return nil, errNotInBrowser }

// migrate: a migration is the browser's own business.
func (t *qtransport) migrate(context.Context) error { return errNotInBrowser }

// certHash and addr are a host's; zero in a browser.
func (t *qtransport) certHash() [32]byte { return [32]byte{} }

func (t *qtransport) addr() net.Addr { return nil }

// LocalAddr: a browser's socket is its own.
func (t *qtransport) LocalAddr() net.Addr { return nil }

// PeerClaims: a browser is a client; only a host holds claims.
func (t *qtransport) PeerClaims(transport.Peer) (connecttoken.Claims, bool) {
	return connecttoken.Claims{}, false
}

// DialWebTransport opens a WebTransport session to the host at rawURL
// ("https://HOST:PORT" + WebTransportPath), with Config.Grant's token in
// the URL and its key in the hello, and returns a Transport whose one peer
// is the host. It fails with ErrRefused when the host does not admit this
// client, or ctx's error.
func DialWebTransport(ctx context.Context, rawURL string, cfg Config) (Transport, error) {
	return some(dialWebTransport(ctx, rawURL, cfg))
}

// dialWebTransport is DialWebTransport.
func dialWebTransport(ctx context.Context, rawURL string, cfg Config) (*qtransport, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("quic: webtransport %s: %w", rawURL, err)
	}
	var hi hello
	if cfg.Grant != nil {
		q := u.Query()
		q.Set("token", base64.RawURLEncoding.EncodeToString(cfg.Grant.Token))
		u.RawQuery = q.Encode()
		hi = hello{key: cfg.Grant.Key, hasKey: true}
	}
	ctor := js.Global().Get("WebTransport")
	if ctor.IsUndefined() {
		return nil, errors.New("quic: this browser has no WebTransport")
	}
	opts := map[string]any{}
	if cfg.PinSHA256 != ([32]byte{}) {
		hash := js.Global().Get("Uint8Array").New(32)
		js.CopyBytesToJS(hash, cfg.PinSHA256[:])
		opts["serverCertificateHashes"] = []any{map[string]any{"algorithm": "sha-256", "value": hash}}
	}
	wt := ctor.New(u.String(), opts)
	c := &clientState{wt: wt}
	fail := func(err error) (*qtransport, error) {
		_ = c.close()
		return nil, fmt.Errorf("quic: webtransport %s: %w", rawURL, err)
	}
	if _, err := await(ctx, wt.Get("ready")); err != nil {
		return fail(err)
	}
	w, err := c.hello(ctx, hi)
	if err != nil {
		return fail(err)
	}
	c.host = w.host
	t := newTransport(cfg)
	t.local, t.cl = w.you, c
	pctx, stop := context.WithCancel(t.ctx)
	jc := &jsConn{t: t, wt: wt, writer: wt.Get("datagrams").Get("writable").Call("getWriter"), ended: make(chan struct{})}
	p := &peer{id: w.host, conn: jc, out: sendqueue.New(cfg.Tuning.BulkQueueLen), ctx: pctx, stop: stop}
	if !t.addPeer(p) {
		return fail(transport.ErrClosed)
	}
	jc.read(p, wt.Get("datagrams").Get("readable").Call("getReader"))
	return t, nil
}

// hello runs the hello exchange on a new bidirectional stream.
func (c *clientState) hello(ctx context.Context, h hello) (welcome, error) {
	ctx, cancel := context.WithTimeout(ctx, defaultHelloTimeout)
	defer cancel()
	str, err := await(ctx, c.wt.Call("createBidirectionalStream"))
	if err != nil {
		return welcome{}, fmt.Errorf("%w: %w", ErrHello, err)
	}
	msg := h.Append(nil)
	arr := js.Global().Get("Uint8Array").New(len(msg))
	js.CopyBytesToJS(arr, msg)
	writer := str.Get("writable").Call("getWriter")
	if _, err := await(ctx, writer.Call("write", arr)); err != nil {
		return welcome{}, fmt.Errorf("%w: %w", ErrHello, err)
	}
	if _, err := await(ctx, writer.Call("close")); err != nil {
		return welcome{}, fmt.Errorf("%w: %w", ErrHello, err)
	}
	reader := str.Get("readable").Call("getReader")
	var b []byte
	for {
		r, err := await(ctx, reader.Call("read"))
		if err != nil {
			return welcome{}, fmt.Errorf("%w: %w", ErrRefused, err)
		}
		if r.Get("done").Bool() {
			break
		}
		v := r.Get("value")
		n := v.Get("byteLength").Int()
		if len(b)+n > maxHelloLen {
			return welcome{}, fmt.Errorf("%w: welcome over %d bytes", ErrHello, maxHelloLen)
		}
		chunk := make([]byte, n)
		js.CopyBytesToGo(chunk, v)
		b = append(b, chunk...)
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

// jsConn is a session's datagram streams as a datagramConn. Its
// ReceiveDatagram only waits for the end: datagrams are pushed into the
// receive queue by the page's read loop (read).
type jsConn struct {
	t      *qtransport
	wt     js.Value
	writer js.Value
	ended  chan struct{}
}

// pump reads a ReadableStream's chunks and hands each to onData, then
// calls onEnd: one JavaScript loop per session, so that Go is entered
// once per datagram and never waits on a promise per datagram.
var pump = js.Global().Get("Function").New("reader", "onData", "onEnd", `
	(async () => {
		try {
			for (;;) {
				const {value, done} = await reader.read();
				if (done) break;
				onData(value);
			}
		} catch (e) {}
		onEnd();
	})();`)

// send writes a datagram, ignoring a rejected write (a closing session).
var send = js.Global().Get("Function").New("writer", "data", `writer.write(data).catch(() => {});`)

func (c *jsConn) read(p *peer, reader js.Value) {
	buf := make([]byte, transport.MaxDatagram)
	onData := js.FuncOf(func(_ js.Value, args []js.Value) any {
		v := args[0]
		n := v.Get("byteLength").Int()
		if n > transport.MaxDatagram {
			c.t.c.receivesOversize.Add(1)
			return nil
		}
		js.CopyBytesToGo(buf[:n], v)
		c.t.rc.Received(c.t.q, p.lane, buf[:n])
		return nil
	})
	var onEnd js.Func
	onEnd = js.FuncOf(func(js.Value, []js.Value) any {
		close(c.ended)
		onData.Release()
		onEnd.Release()
		return nil
	})
	pump.Invoke(reader, onData, onEnd)
}

func (c *jsConn) SendDatagram(b []byte) error {
	arr := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(arr, b)
	send.Invoke(c.writer, arr)
	return nil
}

func (c *jsConn) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ended:
		return nil, transport.ErrPeerClosed
	}
}

func (c *jsConn) RemoteAddr() net.Addr { return nil }

func (c *jsConn) closeWith(string) { c.wt.Call("close") }

// await waits for a promise, or ctx (the callbacks then stay until the
// promise settles).
func await(ctx context.Context, promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	var then, catch js.Func
	settle := func(r result) {
		done <- r
		then.Release()
		catch.Release()
	}
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		var v js.Value
		if len(args) > 0 {
			v = args[0]
		}
		settle(result{v: v})
		return nil
	})
	catch = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "rejected"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		settle(result{err: errors.New(msg)})
		return nil
	})
	promise.Call("then", then, catch)
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err()
	}
}

// path is a browser's WebTransport session's route (it shows no round
// trip).
func (c *jsConn) path() (string, time.Duration) { return "webtransport", 0 }
