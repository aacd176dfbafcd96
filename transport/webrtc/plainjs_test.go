//go:build !js

package webrtc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/browsertest"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
)

// plainJSPage is a browser client of the signaling protocol written the way
// a JavaScript or TypeScript front end is, against signaling/doc.go and
// nothing of ours: the standard RTCPeerConnection, each local candidate
// sent as onicecandidate gives it, and the channel rollnet's transport
// opens (negotiated, id 0, unordered, no retransmits). It speaks the
// protocol version in its URL (?v=1: a page written before version 2,
// which hands each candidate payload to addIceCandidate as it comes; ?v=2:
// one that also takes an array). Messages are handled one at a time, in
// order, as addIceCandidate needs the remote description first. It reports
// in window.plain.
const plainJSPage = `<!doctype html><meta charset="utf-8"><script>
const q = new URLSearchParams(location.search);
const v = Number(q.get("v"));
const st = window.plain = {state: "loading", error: "", got: "", candidatesSent: 0, candidatesIn: 0, arraysIn: 0, openMs: 0};
const t0 = performance.now();
const ws = new WebSocket("ws://" + location.host + "/room/" + q.get("room"));
const pcs = {};
const send = (peer, kind, payload) => ws.send(JSON.stringify({v: v, type: "signal", peer: peer, kind: kind, payload: payload}));
function connect(peer) {
  const pc = new RTCPeerConnection({iceServers: []});
  const dc = pc.createDataChannel("rollnet", {negotiated: true, id: 0, ordered: false, maxRetransmits: 0});
  dc.binaryType = "arraybuffer";
  dc.onopen = () => {
    st.state = "open";
    st.openMs = performance.now() - t0;
    dc.send(new TextEncoder().encode("hello from a plain page"));
  };
  dc.onmessage = (e) => {
    st.got = new TextDecoder().decode(e.data);
    dc.send(new TextEncoder().encode("echo: " + st.got));
  };
  pc.onicecandidate = (e) => {
    if (e.candidate) { st.candidatesSent++; send(peer, "candidate", e.candidate.toJSON()); }
  };
  pcs[peer] = pc;
  return pc;
}
async function handle(e) {
  if (e.v !== v) throw new Error("a message of version " + e.v);
  switch (e.type) {
  case "join": st.state = "joined"; break;
  case "peer-joined": {
    const pc = connect(e.peer);
    await pc.setLocalDescription(await pc.createOffer());
    send(e.peer, "offer", pc.localDescription.toJSON());
    break;
  }
  case "signal": {
    const pc = pcs[e.peer] || connect(e.peer);
    if (e.kind === "offer") {
      await pc.setRemoteDescription(e.payload);
      await pc.setLocalDescription(await pc.createAnswer());
      send(e.peer, "answer", pc.localDescription.toJSON());
    } else if (e.kind === "answer") {
      await pc.setRemoteDescription(e.payload);
    } else if (e.kind === "candidate") {
      st.candidatesIn++;
      if (v >= 2 && Array.isArray(e.payload)) {
        st.arraysIn++;
        for (const c of e.payload) await pc.addIceCandidate(c);
      } else {
        await pc.addIceCandidate(e.payload);
      }
    }
    break;
  }
  }
}
let chain = Promise.resolve();
ws.onmessage = (m) => {
  chain = chain.then(() => handle(JSON.parse(m.data))).catch((err) => { st.error = st.error || String(err); });
};
ws.onopen = () => ws.send(JSON.stringify({v: v, type: "join"}));
ws.onclose = (e) => { if (st.state !== "open") st.error = st.error || ("signaling closed: " + e.code + " " + e.reason); };
</script>`

type plainJSState struct {
	State          string  `json:"state"`
	Error          string  `json:"error"`
	Got            string  `json:"got"`
	CandidatesSent int     `json:"candidatesSent"`
	CandidatesIn   int     `json:"candidatesIn"`
	ArraysIn       int     `json:"arraysIn"`
	OpenMs         float64 `json:"openMs"`
}

// TestPlainJSClientInChromium: a page in real Chromium, written in plain
// JavaScript against the documented protocol, opens a data channel with a
// native Transport, in both offer directions (the earlier member offers),
// speaking version 1 (as a page written before version 2 does: one
// candidate a signal, each handed to addIceCandidate) and version 2. A
// datagram goes each way. With the Transport sending every peer candidate
// arrays, the version 1 page failed both directions: Chromium takes an
// array handed to addIceCandidate for an end of candidates, so the page
// never learns the Transport's candidates and, with the Transport on
// loopback without mDNS (as rollnet's tests and local demos run it),
// neither side can reach the other.
func TestPlainJSClientInChromium(t *testing.T) {
	browser := browsertest.Start(t, 3*time.Minute)
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	require.NoError(t, err)
	srv.Handle("/plain.html", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(plainJSPage))
	}))
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		_ = srv.Close()
	})
	for _, v := range []int{1, 2} {
		for _, pageFirst := range []bool{true, false} {
			name := fmt.Sprintf("v%d/page offers", v)
			if !pageFirst {
				name = fmt.Sprintf("v%d/native offers", v)
			}
			t.Run(name, func(t *testing.T) {
				room := fmt.Sprintf("plain-v%d-%t", v, pageFirst)
				plainJSMeetsNative(t, browser, hs.URL, room, v, pageFirst)
			})
		}
	}
}

func plainJSMeetsNative(t *testing.T, browser context.Context, base, room string, v int, pageFirst bool) {
	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()
	tab, cancelTab := chromedp.NewContext(ctx)
	defer cancelTab()
	wsURL := "ws" + strings.TrimPrefix(base, "http") + "/room/" + room
	var tr *rtcTransport
	dial := func() {
		var err error
		tr, err = dial(ctx, wsURL, Config{LoopbackOnly: true})
		require.NoError(t, err)
	}
	if !pageFirst {
		dial()
		defer tr.Close()
	}
	start := time.Now()
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(fmt.Sprintf("%s/plain.html?v=%d&room=%s", base, v, room))))
	if pageFirst {
		st := pollPage(t, tab, "the page to join", func(s plainJSState) bool { return s.State == "joined" })
		require.Empty(t, st.Error)
		dial()
		defer tr.Close()
	}
	// Bounded apart from the tab, which says what the page saw if it fails.
	wait, cancelWait := context.WithTimeout(ctx, 20*time.Second)
	defer cancelWait()
	peers, err := tr.WaitPeers(wait, 1)
	require.NoError(t, err, "the native Transport's channel to the page did not open within 20 s (page: %+v)", readPage(tab))
	page := peers[0]
	native := time.Since(start)

	// A datagram each way: the page greets on open, and echoes ours.
	require.Equal(t, "hello from a plain page", receiveFrom(t, ctx, tr, page))
	require.NoError(t, tr.Send(page, []byte("hello from rollnet")))
	require.Equal(t, "echo: hello from rollnet", receiveFrom(t, ctx, tr, page))
	st := pollPage(t, tab, "the page's channel to open", func(s plainJSState) bool { return s.State == "open" && s.Got != "" })
	require.Empty(t, st.Error)
	require.Equal(t, "hello from rollnet", st.Got)
	require.Positive(t, st.CandidatesSent, "the page sent its candidates one a signal")
	require.Positive(t, st.CandidatesIn, "the Transport sent the page its candidates")
	if v == 1 {
		require.Zero(t, st.ArraysIn, "a page of version 1 is sent one candidate a signal")
	} else {
		require.Equal(t, st.CandidatesIn, st.ArraysIn, "a page of version 2 is sent arrays")
	}
	t.Logf("version %d, %s offered: channel open %.0f ms after page load (native side %v after it); %d candidates from the page, %d candidate signals to it",
		v, map[bool]string{true: "the page", false: "the native Transport"}[pageFirst], st.OpenMs,
		native.Round(time.Millisecond), st.CandidatesSent, st.CandidatesIn)
}

// readPage returns window.plain, or the zero state if it cannot be read.
func readPage(tab context.Context) plainJSState {
	st, _ := chromedp.Run(tab, chromedp.Evaluate[plainJSState](`window.plain || {}`))
	return st
}

// pollPage polls the page's state until cond holds or it reports an error,
// within the tab's context, and fails saying what it waited for.
func pollPage(t *testing.T, tab context.Context, what string, cond func(plainJSState) bool) plainJSState {
	t.Helper()
	for {
		st, err := chromedp.Run(tab, chromedp.Evaluate[plainJSState](`window.plain || {}`))
		require.NoError(t, err, "waiting for %s (last: %+v)", what, st)
		if st.Error != "" || cond(st) {
			require.Empty(t, st.Error, "the page failed while waiting for %s", what)
			return st
		}
		select {
		case <-tab.Done():
			t.Fatalf("waiting for %s: %v (last: %+v)", what, tab.Err(), st)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// receiveFrom polls tr until a datagram from peer arrives, within ctx.
func receiveFrom(t *testing.T, ctx context.Context, tr *rtcTransport, peer transport.Peer) string {
	t.Helper()
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, from, err := tr.Receive(buf)
		if err == nil {
			require.Equal(t, peer, from)
			return string(buf[:n])
		}
		require.True(t, errors.Is(err, transport.ErrNoPacket), "receive: %v", err)
		select {
		case <-ctx.Done():
			t.Fatalf("no datagram from the page: %v", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
