//go:build !js

package quic

import (
	"context"
	"encoding/base64"
	"net/http"
	"time"

	quicgo "github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// alpnH3 is HTTP/3's ALPN, which a browser offers for WebTransport.
const alpnH3 = "h3"

// webTransportHost serves WebTransport sessions on the host's QUIC
// listener: connections that negotiate h3 are handed to webtransport-go,
// and a session at WebTransportPath goes through the same hello and
// admission as a native connection.
type webTransportHost struct {
	h  *hostState
	wt *webtransport.Server
}

func newWebTransportHost(h *hostState) *webTransportHost {
	w := &webTransportHost{h: h}
	mux := http.NewServeMux()
	mux.HandleFunc(WebTransportPath, w.serveHTTP)
	w.wt = &webtransport.Server{
		H3: &http3.Server{Handler: mux},
		// Pages are served from anywhere (a game's own site, a local dev
		// server); connect tokens, not origins, say who may play.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return w
}

// serve runs one h3 connection until it ends. A connection that has not
// opened an admitted session within HelloTimeout is closed.
func (w *webTransportHost) serve(conn *quicgo.Conn) {
	t := w.h.t
	slot, _ := conn.Context().Value(connSlotKey{}).(*connSlot)
	timer := time.AfterFunc(t.cfg.Tuning.HelloTimeout, func() {
		w.h.mu.Lock()
		late := slot == nil || slot.unknown
		w.h.mu.Unlock()
		if late {
			t.c.hellosBad.Add(1)
			_ = conn.CloseWithError(0, "no session")
		}
	})
	defer timer.Stop()
	_ = w.wt.ServeQUICConn(conn)
}

// serveHTTP upgrades a CONNECT request at WebTransportPath to a session,
// once its connect token (the token query parameter, unpadded base64url)
// checks, and admits the session on its hello. One session per
// connection.
func (w *webTransportHost) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	h, t := w.h, w.h.t
	slot, _ := r.Context().Value(connSlotKey{}).(*connSlot)
	if slot == nil {
		http.Error(rw, "no connection", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	busy := slot.session
	slot.session = true
	h.mu.Unlock()
	if busy {
		http.Error(rw, "one session per connection", http.StatusTooManyRequests)
		return
	}
	if t.cfg.tokens != nil {
		tok, err := base64.RawURLEncoding.DecodeString(r.URL.Query().Get("token"))
		if err != nil || len(tok) == 0 {
			t.c.tokensMissing.Add(1)
			http.Error(rw, "no connect token", http.StatusUnauthorized)
			return
		}
		tk, err := t.cfg.tokens.Check(tok)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusForbidden)
			return
		}
		h.mu.Lock()
		if slot.released {
			h.mu.Unlock()
			t.cfg.tokens.Release(tk)
			http.Error(rw, "connection closed", http.StatusGone)
			return
		}
		slot.ticket = &tk
		h.mu.Unlock()
	}
	sess, err := w.wt.Upgrade(rw, r)
	if err != nil {
		return // webtransport-go answered the request
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		h.admit(admitting{
			conn:   wtConn{sess},
			ctx:    sess.Context(),
			slot:   slot,
			accept: func(ctx context.Context) (helloStream, error) { return sess.AcceptStream(ctx) },
		})
	}()
}

func (w *webTransportHost) close() error { return w.wt.Close() }

// wtConn adapts a WebTransport session to datagramConn.
type wtConn struct{ *webtransport.Session }

func (c wtConn) closeWith(reason string) { _ = c.CloseWithError(0, reason) }

// path is a WebTransport session's route (it shows no round trip).
func (c wtConn) path() (string, time.Duration) { return "webtransport", 0 }
