package client

// This file is the package's only use of syscall/js: in a browser the
// Client talks through the page's own WebSocket. Why not coder/websocket,
// which wraps the same object on GOOS=js: it imports net/http (for its
// option and handshake types), and net/http's initialisers keep its
// client, TLS and x509 in every browser game (1.5 MB of the pong's wasm,
// 0.45 MB gzipped). Why it is safe: the handlers are detached and released when the
// socket closes, a constructor or send that throws is recovered into an
// error, the handlers only copy and never block (the page's event loop
// runs them), and what arrives is bounded (maxQueued messages waiting,
// each within the read limit, or the socket is closed).
//
// The differences from the native build: the browser makes the handshake
// (it sends the page's Origin and cookies, so Config.HTTPClient and
// HTTPHeader are refused with ErrConfig) and tells a page nothing of a
// refusal before the upgrade (no status, no body): a refused dial is an
// error wrapping ErrClosed, never an *HTTPError. A message over the read
// limit has already been received when it is seen; the connection is
// closed with 1009 all the same.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall/js"

	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// maxQueued bounds the messages received and not yet read: the read loop
// stops while Events is full, the page's socket does not.
const maxQueued = 1024

// browserConn is the page's WebSocket.
type browserConn struct {
	ws   js.Value
	msgs chan []byte   // received, not read yet
	done chan struct{} // closed once the socket closed (err set)

	mu     sync.Mutex
	err    error // why it closed
	limit  int64
	funcs  []js.Func
	closed bool
}

// errNormalClosure: the socket closed with 1000.
var errNormalClosure = errors.New("signaling: closed normally")

func dialWebSocket(ctx context.Context, url string, cfg Config) (conn, error) {
	if cfg.HTTPClient != nil || cfg.HTTPHeader != nil {
		return nil, fmt.Errorf("%w: HTTPClient and HTTPHeader do not apply in a browser (it makes the handshake)", ErrConfig)
	}
	ctor := js.Global().Get("WebSocket")
	if ctor.Type() != js.TypeFunction {
		return nil, fmt.Errorf("signaling: dial %s: %w: this page has no WebSocket", url, ErrClosed)
	}
	c := &browserConn{msgs: make(chan []byte, maxQueued), done: make(chan struct{}), limit: 1 << 20}
	if err := try(func() { c.ws = ctor.New(url) }); err != nil {
		return nil, fmt.Errorf("signaling: dial %s: %w: %w", url, ErrClosed, err)
	}
	c.ws.Set("binaryType", "arraybuffer")
	opened := make(chan struct{})
	c.on("open", func(js.Value) { close(opened) })
	c.on("message", c.received)
	c.on("close", func(ev js.Value) {
		code, reason := ev.Get("code").Int(), ev.Get("reason").String()
		var err error
		switch code {
		case statusNormalClosure:
			err = errNormalClosure
		case 1005, 1006: // no status, or no close frame at all: a dropped connection
			err = fmt.Errorf("the page's WebSocket closed (%d)", code)
		default:
			err = &CloseError{Code: code, Reason: reason}
		}
		c.end(err)
		c.release()
	})
	select {
	case <-opened:
		return c, nil
	case <-c.done:
		return nil, fmt.Errorf("signaling: dial %s: %w: %w", url, ErrClosed, c.err)
	case <-ctx.Done():
		_ = c.closeNow()
		return nil, fmt.Errorf("signaling: dial %s: %w", url, ctx.Err())
	}
}

// on sets the socket's handler for event (onEVENT) to f, kept to release.
func (c *browserConn) on(event string, f func(ev js.Value)) {
	fn := js.FuncOf(func(_ js.Value, args []js.Value) any { f(args[0]); return nil })
	c.mu.Lock()
	c.funcs = append(c.funcs, fn)
	c.mu.Unlock()
	c.ws.Set("on"+event, fn)
}

// received copies a message off the page, or closes the socket for one
// over the read limit or past maxQueued.
func (c *browserConn) received(ev js.Value) {
	data := ev.Get("data")
	var b []byte
	if data.Type() == js.TypeString {
		b = []byte(data.String())
	} else {
		b = make([]byte, data.Get("byteLength").Int())
		js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(data))
	}
	c.mu.Lock()
	limit, closed := c.limit, c.closed
	c.mu.Unlock()
	if closed {
		return
	}
	if int64(len(b)) > limit {
		c.fail(1009, fmt.Errorf("%w: a message of %d bytes, limit %d", wire.ErrMessageTooBig, len(b), limit))
		return
	}
	select {
	case c.msgs <- b:
	default:
		c.fail(1008, fmt.Errorf("more than %d messages received and not read", maxQueued))
	}
}

// fail ends the connection for err and closes the socket with code.
func (c *browserConn) fail(code int, err error) {
	c.end(err)
	_ = try(func() { c.ws.Call("close", code, "") })
}

// end records why the connection ended, once.
func (c *browserConn) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed, c.err = true, err
	close(c.done)
}

// release detaches and releases the handlers (after the close event).
func (c *browserConn) release() {
	c.mu.Lock()
	funcs := c.funcs
	c.funcs = nil
	c.mu.Unlock()
	for _, event := range []string{"open", "message", "close"} {
		c.ws.Set("on"+event, js.Null())
	}
	for _, f := range funcs {
		f.Release()
	}
}

func (c *browserConn) read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-c.msgs:
		return b, nil
	default:
	}
	select {
	case b := <-c.msgs:
		return b, nil
	case <-c.done:
		select {
		case b := <-c.msgs: // received before the close: read first
			return b, nil
		default:
		}
		return nil, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *browserConn) write(_ context.Context, b []byte) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	return try(func() { c.ws.Call("send", string(b)) })
}

func (c *browserConn) close(code int, reason string) error {
	return try(func() { c.ws.Call("close", code, reason) })
}

func (c *browserConn) closeNow() error {
	return try(func() { c.ws.Call("close") })
}

func (c *browserConn) setReadLimit(n int64) {
	c.mu.Lock()
	c.limit = n
	c.mu.Unlock()
}

// connError turns a read or write error into the reason the connection
// ended: a *CloseError for a close with a code (nil for a normal closure),
// otherwise an error wrapping ErrClosed.
func connError(err error) error {
	var ce *CloseError
	switch {
	case errors.Is(err, errNormalClosure):
		return nil
	case errors.As(err, &ce):
		return ce
	}
	return fmt.Errorf("%w: %w", ErrClosed, err)
}

// try runs f, turning a JavaScript exception it throws into an error.
func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = errors.New(je.Error())
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}
