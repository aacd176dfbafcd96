package webrtc

// This file is the package's only use of syscall/js, and the whole of its
// browser build's WebRTC: it drives the page's own RTCPeerConnection and
// RTCDataChannel directly. Why not pion, which wraps the same objects on
// GOOS=js: importing pion/webrtc links its native stack's package
// initialisers (DTLS, x509, the elliptic curves, SDP, ICE, TURN), which no
// page runs, into every browser game: 1.5 MB of wasm (0.4 MB gzipped) on
// the pong's 5.4 MB. Why syscall/js is safe here: every js.Func made for a
// connection is detached from its object and released when the connection
// closes; a call that throws (a closed connection, a malformed candidate)
// is recovered into an error by try, never a panic; a promise is awaited
// by a goroutine, never by a callback (the page's event loop would stop);
// and a callback does nothing that waits on a lock held across such an
// await (it starts a goroutine instead), except the message handler, whose
// queue push takes the receive queue's lock for a copy.
//
// The differences from the native build (conn_native.go):
//
//   - The channel is the same (negotiated, ID 0, unordered, maxRetransmits
//     0), read through its onmessage event instead of a detached read
//     loop: each message is copied from the page's ArrayBuffer into a
//     buffer allocated once per peer and pushed into the same bounded
//     receive queue, on the browser's event loop, without a goroutine. A
//     message over transport.MaxDatagram, or a text message, disconnects the peer
//     (ErrOversizeMessage, ErrTextMessage): the browser has already
//     received it (it advertises its own, larger, maximum message size),
//     but nothing keeps it. Send copies the datagram into a Uint8Array
//     made once per peer and sends a view of it (one view per length, made
//     on first use): RTCDataChannel.send copies what it is given.
//   - Config.Tuning.ICEDisconnectedTimeout, ICEFailedTimeout, ICEKeepAlive,
//     ICEReflexiveWait, ICERelayWait, SCTPRTOMax, LoopbackOnly, Net and
//     LoggerFactory are the browser's to decide and are ignored; the
//     session's own keep-alive and disconnect timeout still bound how long
//     a silent peer is waited for. ICEServers and RelayOnly are the
//     RTCConfiguration's iceServers and iceTransportPolicy "relay".
//     ICEServer has no CredentialType (a browser's credential is a
//     password), and a Credential that is not a string is left out.
//   - Local candidates are the browser's candidate.toJSON() (mDNS host
//     names included), bundled as on the native side.
//   - Path reads getStats: the nominated, succeeded candidate pair's
//     currentRoundTripTime (RTT stays 0 where a browser leaves it out),
//     its candidates' candidateType, and this end's first-hop protocol
//     (a relay candidate's relayProtocol, else its protocol; "" where the
//     browser names neither). Stats are this package's own counters,
//     the same on both builds.

import (
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/rollnet/rollnet/transport"
)

// ICEServer is a STUN or TURN server for ICE: an RTCIceServer (natively
// pion's ICEServer, which has the same fields and a CredentialType).
type ICEServer struct {
	URLs       []string `json:"urls"`
	Username   string   `json:"username,omitempty"`
	Credential any      `json:"credential,omitempty"` // a string; other types are left out
}

// engine holds the RTCConfiguration every connection is made with.
type engine struct{ cfg js.Value }

func newEngine(cfg Config, servers []ICEServer) engine {
	ice := js.Global().Get("Array").New()
	for _, s := range servers {
		urls := js.Global().Get("Array").New()
		for _, u := range s.URLs {
			urls.Call("push", u)
		}
		o := js.Global().Get("Object").New()
		o.Set("urls", urls)
		if s.Username != "" {
			o.Set("username", s.Username)
		}
		if c, ok := s.Credential.(string); ok && c != "" {
			o.Set("credential", c)
		}
		ice.Call("push", o)
	}
	c := js.Global().Get("Object").New()
	c.Set("iceServers", ice)
	if cfg.RelayOnly {
		c.Set("iceTransportPolicy", "relay")
	}
	return engine{cfg: c}
}

// conn is one peer's RTCPeerConnection and its data channel.
type conn struct {
	pc, dc  js.Value
	sendBuf js.Value                     // a Uint8Array of transport.MaxDatagram bytes
	views   [maxMessageSize + 1]js.Value // views[n]: sendBuf's first n bytes, made on first use

	mu     sync.Mutex
	closed bool
	funcs  []js.Func // the handlers set on pc and dc, released by close
}

func (e engine) newConn() (c *conn, err error) {
	ctor := js.Global().Get("RTCPeerConnection")
	if ctor.Type() != js.TypeFunction {
		return nil, errors.New("webrtc: this page has no RTCPeerConnection")
	}
	c = &conn{sendBuf: js.Global().Get("Uint8Array").New(maxMessageSize)}
	err = try(func() {
		c.pc = ctor.New(e.cfg)
		init := js.Global().Get("Object").New()
		init.Set("negotiated", true)
		init.Set("id", 0)
		init.Set("ordered", false)
		init.Set("maxRetransmits", 0)
		c.dc = c.pc.Call("createDataChannel", "rollnet", init)
		c.dc.Set("binaryType", "arraybuffer")
	})
	if err != nil {
		if c.pc.Type() == js.TypeObject {
			_ = try(func() { c.pc.Call("close") })
		}
		return nil, err
	}
	return c, nil
}

// on sets v's handler for event (onEVENT) to f, unless c is closed, and
// keeps f to release on close.
func (c *conn) on(v js.Value, event string, f func(this js.Value, args []js.Value)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	fn := js.FuncOf(func(this js.Value, args []js.Value) any { f(this, args); return nil })
	c.funcs = append(c.funcs, fn)
	v.Set("on"+event, fn)
	return true
}

// watch hands c's local candidates, state changes and channel opening to
// t, for p; each in a goroutine, off the page's event loop.
func (t *rtcTransport) watch(p *peer, c *conn) {
	c.on(c.pc, "icecandidate", func(_ js.Value, args []js.Value) {
		ic := args[0].Get("candidate")
		if ic.Type() != js.TypeObject || ic.Get("candidate").String() == "" {
			go t.bundleCandidate(p, nil) // end of candidates (some browsers send an empty one)
			return
		}
		j := ic.Call("toJSON")
		init := candidate{Candidate: j.Get("candidate").String()}
		if v := j.Get("sdpMid"); v.Type() == js.TypeString {
			s := v.String()
			init.SDPMid = &s
		}
		if v := j.Get("sdpMLineIndex"); v.Type() == js.TypeNumber {
			i := uint16(v.Int())
			init.SDPMLineIndex = &i
		}
		if v := j.Get("usernameFragment"); v.Type() == js.TypeString {
			s := v.String()
			init.UsernameFragment = &s
		}
		go t.bundleCandidate(p, &init)
	})
	c.on(c.pc, "connectionstatechange", func(this js.Value, _ []js.Value) {
		go t.stateChanged(p, this.Get("connectionState").String())
	})
	c.on(c.dc, "open", func(js.Value, []js.Value) { go t.opened(p) })
}

// describe creates the local offer (or answer) and sets it; step names
// what failed.
func (c *conn) describe(offer bool) (description, string, error) {
	kind, create := "answer", "createAnswer"
	if offer {
		kind, create = "offer", "createOffer"
	}
	sd, err := call(c.pc, create)
	if err != nil {
		return description{}, "create " + kind, err
	}
	if _, err := call(c.pc, "setLocalDescription", sd); err != nil {
		return description{}, "set local " + kind, err
	}
	return description{Type: sd.Get("type").String(), SDP: sd.Get("sdp").String()}, "", nil
}

func (c *conn) setRemote(d description) error {
	o := js.Global().Get("Object").New()
	o.Set("type", d.Type)
	o.Set("sdp", d.SDP)
	_, err := call(c.pc, "setRemoteDescription", o)
	return err
}

func (c *conn) addCandidate(ic candidate) error {
	o := js.Global().Get("Object").New()
	o.Set("candidate", ic.Candidate)
	if ic.SDPMid != nil {
		o.Set("sdpMid", *ic.SDPMid)
	}
	if ic.SDPMLineIndex != nil {
		o.Set("sdpMLineIndex", int(*ic.SDPMLineIndex))
	}
	if ic.UsernameFragment != nil {
		o.Set("usernameFragment", *ic.UsernameFragment)
	}
	_, err := call(c.pc, "addIceCandidate", o)
	return err
}

func (c *conn) bufferedAmount() uint64 {
	n := c.dc.Get("bufferedAmount")
	if n.Type() != js.TypeNumber {
		return 0
	}
	return uint64(n.Float())
}

// close closes the connection, detaches every handler and releases it.
// It is idempotent.
func (c *conn) close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	funcs := c.funcs
	c.funcs = nil
	c.mu.Unlock()
	for _, v := range []js.Value{c.pc, c.dc} {
		for _, event := range []string{"icecandidate", "connectionstatechange", "open", "message", "close"} {
			v.Set("on"+event, js.Null())
		}
	}
	err := try(func() { c.pc.Call("close") })
	for _, f := range funcs {
		f.Release()
	}
	return err
}

// closeGracefully is close: the browser closes its transports itself.
func (c *conn) closeGracefully() error { return c.close() }

// browserChannel is an open data channel: Write sends.
type browserChannel struct{ c *conn }

func (ch browserChannel) Read([]byte) (int, error) { return 0, errors.ErrUnsupported }

// Write copies b into the peer's send buffer and sends the view of its
// length. It allocates nothing once that length's view exists.
func (ch browserChannel) Write(b []byte) (n int, err error) {
	if len(b) > maxMessageSize {
		return 0, ErrOversizeMessage
	}
	c := ch.c
	view := c.views[len(b)]
	if view.IsUndefined() {
		view = c.sendBuf.Call("subarray", 0, len(b))
		c.views[len(b)] = view
	}
	js.CopyBytesToJS(c.sendBuf, b)
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, fmt.Errorf("webrtc: send: %v", r) // the channel closed meanwhile
		}
	}()
	c.dc.Call("send", view)
	return len(b), nil
}

func (ch browserChannel) Close() error { return ch.c.close() }

// opened runs when p's data channel opens: it reads the channel through
// its onmessage event into the receive queue.
func (t *rtcTransport) opened(p *peer) {
	c := p.c
	lane := t.q.Lane(p.id)
	buf := make([]byte, maxMessageSize)
	view := js.Global().Get("Uint8Array")
	dead := false // a message broke the rules: nothing after it is read
	t.mu.Lock()
	if t.closed || p.gone != nil {
		t.mu.Unlock()
		return
	}
	p.rw = browserChannel{c}
	t.emitLocked(transport.PeerEvent{Kind: transport.PeerConnected, Peer: p.id})
	t.mu.Unlock()
	c.on(c.dc, "message", func(_ js.Value, args []js.Value) {
		if dead {
			return
		}
		data := args[0].Get("data")
		if data.Type() == js.TypeString {
			dead = true
			go t.peerGone(p, ErrTextMessage, false)
			return
		}
		n := data.Get("byteLength").Int()
		if n > maxMessageSize {
			dead = true
			go t.peerGone(p, ErrOversizeMessage, false)
			return
		}
		js.CopyBytesToGo(buf[:n], view.New(data))
		t.rc.Received(t.q, lane, buf[:n])
	})
	c.on(c.dc, "close", func(js.Value, []js.Value) { go t.peerGone(p, transport.ErrPeerClosed, false) })
}

// readStats fills info's round trip, candidate types and first hop's
// protocol from the browser's getStats: the nominated, succeeded
// candidate pair's current round trip, and its candidates.
func (c *conn) readStats(info *peerInfo) {
	report, err := call(c.pc, "getStats")
	if err != nil {
		return
	}
	var pair js.Value
	byID := map[string]js.Value{}
	each := js.FuncOf(func(_ js.Value, args []js.Value) any {
		s := args[0]
		byID[s.Get("id").String()] = s
		if s.Get("type").String() == "candidate-pair" && s.Get("nominated").Truthy() && s.Get("state").String() == "succeeded" {
			pair = s
		}
		return nil
	})
	report.Call("forEach", each)
	each.Release()
	if pair.Type() != js.TypeObject {
		return
	}
	if rtt := pair.Get("currentRoundTripTime"); rtt.Type() == js.TypeNumber {
		info.RTT = time.Duration(rtt.Float() * float64(time.Second))
	}
	str := func(v js.Value, key string) string {
		if s := v.Get(key); s.Type() == js.TypeString {
			return s.String()
		}
		return ""
	}
	local, remote := byID[pair.Get("localCandidateId").String()], byID[pair.Get("remoteCandidateId").String()]
	if local.Type() == js.TypeObject {
		info.LocalCandidate = str(local, "candidateType")
		// A relay candidate's own protocol is the relayed one (UDP), not
		// its hop to the TURN server: relayProtocol, or unknown.
		if info.LocalCandidate == "relay" {
			info.Protocol = str(local, "relayProtocol")
		} else {
			info.Protocol = str(local, "protocol")
		}
	}
	if remote.Type() == js.TypeObject {
		info.RemoteCandidate = str(remote, "candidateType")
	}
}

// call calls v's method and waits for the promise it returns. It must not
// run on the page's event loop (a callback): the promise settles there.
func call(v js.Value, method string, args ...any) (js.Value, error) {
	var promise js.Value
	if err := try(func() { promise = v.Call(method, args...) }); err != nil {
		return js.Undefined(), err
	}
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		r := js.Undefined()
		if len(args) > 0 {
			r = args[0]
		}
		done <- result{v: r}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "rejected"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		done <- result{err: fmt.Errorf("webrtc: %s: %s", method, msg)}
		return nil
	})
	defer then.Release()
	defer catch.Release()
	promise.Call("then", then, catch)
	r := <-done
	return r.v, r.err
}

// try runs f, turning a JavaScript exception it throws into an error.
func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = fmt.Errorf("webrtc: %s", je.Error())
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}
