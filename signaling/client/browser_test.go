//go:build !js

package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/browsertest"
	"github.com/rollnet/rollnet/signaling"
)

// TestClientInChromium runs TestBrowserClient (browser_js_test.go) in
// headless Chromium: the client's browser build, over the page's own
// WebSocket, against a signaling server on loopback and a hostile one.
func TestClientInChromium(t *testing.T) {
	srv, err := signaling.NewServer(signaling.ServerConfig{MaxRoomSize: 2, OriginPatterns: []string{"127.0.0.1:*"}})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer func() {
		_ = srv.Close()
		hs.Close()
	}()
	// The hostile server answers the join with a limit of 2,000 bytes and
	// then sends a message of 10,000.
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		if _, _, err := ws.Read(ctx); err != nil {
			return
		}
		join := `{"v":2,"type":"join","id":"0123456789abcdef","room":"x","max":2000}`
		if ws.Write(ctx, websocket.MessageText, []byte(join)) != nil {
			return
		}
		big := `{"v":2,"type":"peer-left","peer":"` + strings.Repeat("a", 10000) + `"}`
		_ = ws.Write(ctx, websocket.MessageText, []byte(big))
		_, _, _ = ws.Read(ctx) // until the client closes
	}))
	defer hostile.Close()

	browser := browsertest.Start(t, 5*time.Minute)
	base := "ws" + strings.TrimPrefix(hs.URL, "http")
	out, status := browsertest.GoTest(t, browser, "github.com/rollnet/rollnet/signaling/client", "^TestBrowserClient$", 5*time.Minute,
		"-sig.url="+base, "-sig.hostile=ws"+strings.TrimPrefix(hostile.URL, "http")+"/room/x")
	t.Log(out)
	require.Zero(t, status, "the page's client failed:\n%s", out)
	require.Contains(t, out, "--- PASS: TestBrowserClient")
}
