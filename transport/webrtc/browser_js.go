package webrtc

import (
	"errors"
	"syscall/js"
	"time"

	pion "github.com/pion/webrtc/v4"
)

// In a browser (GOOS=js), pion wraps the page's own RTCPeerConnection: the
// browser runs ICE, DTLS and SCTP, and pion's SettingEngine has none of the
// native knobs. The differences from the native build:
//
//   - The channel is the same (negotiated, ID 0, unordered, MaxRetransmits
//     0), but it is read through its onmessage event instead of a detached
//     read loop: each message is copied from the page's ArrayBuffer into a
//     buffer allocated once per peer and pushed into the same bounded
//     receive queue, on the browser's event loop, without a goroutine. A
//     message over MaxMessageSize, or a text message, disconnects the peer
//     (ErrOversizeMessage, ErrTextMessage): the browser has already
//     received it (it advertises its own, larger, maximum message size),
//     but nothing keeps it.
//   - Config.ICEDisconnectedTimeout, ICEFailedTimeout, ICEKeepAlive,
//     SCTPRTOMax, LoopbackOnly, Net and LoggerFactory are the browser's to
//     decide and are ignored; the session's own keep-alive and disconnect
//     timeout still bound how long a silent peer is waited for.
//   - Local candidates are the browser's candidate.toJSON() (mDNS host
//     names included), bundled as on the native side.

// newAPI is pion's API for a browser: nothing to configure.
func newAPI(_ Config, servers []pion.ICEServer) (*pion.API, []pion.ICEServer) {
	return pion.NewAPI(), servers
}

// watchCandidates hands each of the browser's local candidates to f, as
// its own toJSON() gives it, and nil at the end of gathering.
func watchCandidates(pc *pion.PeerConnection, f func(*pion.ICECandidateInit)) {
	fn := js.FuncOf(func(_ js.Value, args []js.Value) any {
		c := args[0].Get("candidate")
		if c.IsNull() || c.IsUndefined() || c.Get("candidate").String() == "" {
			go f(nil) // end of candidates (some browsers send an empty one)
			return nil
		}
		j := c.Call("toJSON")
		init := pion.ICECandidateInit{Candidate: j.Get("candidate").String()}
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
		go f(&init) // bundleCandidate takes a lock: off the event loop
		return nil
	})
	pc.JSValue().Set("onicecandidate", fn)
	// Both released when the connection closes.
	var closed js.Func
	closed = js.FuncOf(func(this js.Value, _ []js.Value) any {
		if this.Get("connectionState").String() == "closed" {
			this.Set("onicecandidate", js.Null())
			this.Call("removeEventListener", "connectionstatechange", closed)
			fn.Release()
			closed.Release()
		}
		return nil
	})
	pc.JSValue().Call("addEventListener", "connectionstatechange", closed)
}

// closeGracefully closes pc (the browser closes its transports itself).
func closeGracefully(pc *pion.PeerConnection) error { return pc.Close() }

// browserChannel is an open data channel in a browser: Write sends, Close
// closes and releases the message handler.
type browserChannel struct {
	dc      *pion.DataChannel
	handler js.Func
}

func (c *browserChannel) Read([]byte) (int, error) { return 0, errors.ErrUnsupported }

func (c *browserChannel) Write(b []byte) (int, error) {
	if err := c.dc.Send(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (c *browserChannel) Close() error {
	c.dc.JSValue().Set("onmessage", js.Null())
	err := c.dc.Close()
	c.handler.Release()
	return err
}

// opened runs when p's data channel opens: it reads the channel through
// its onmessage event into the receive queue.
func (t *Transport) opened(p *peer) {
	dc := p.dc.JSValue()
	dc.Set("binaryType", "arraybuffer")
	lane := t.q.Lane(p.id)
	buf := make([]byte, MaxMessageSize)
	view := js.Global().Get("Uint8Array")
	ch := &browserChannel{dc: p.dc}
	dead := false // a message broke the rules: nothing after it is read
	ch.handler = js.FuncOf(func(_ js.Value, args []js.Value) any {
		if dead {
			return nil
		}
		data := args[0].Get("data")
		if data.Type() == js.TypeString {
			dead = true
			go t.peerGone(p, ErrTextMessage, false)
			return nil
		}
		n := data.Get("byteLength").Int()
		if n > MaxMessageSize {
			dead = true
			go t.peerGone(p, ErrOversizeMessage, false)
			return nil
		}
		js.CopyBytesToGo(buf[:n], view.New(data))
		t.received(lane, buf[:n])
		return nil
	})
	t.mu.Lock()
	if t.closed || p.gone != nil {
		t.mu.Unlock()
		ch.handler.Release()
		return
	}
	p.rw = ch
	t.emitLocked(PeerEvent{Kind: PeerConnected, Peer: p.id})
	t.mu.Unlock()
	dc.Set("onmessage", ch.handler)
	var closed js.Func
	closed = js.FuncOf(func(js.Value, []js.Value) any {
		dc.Set("onmessage", js.Null())
		dc.Call("removeEventListener", "close", closed)
		ch.handler.Release()
		closed.Release()
		go t.peerGone(p, ErrPeerClosed, false)
		return nil
	})
	dc.Call("addEventListener", "close", closed)
}

// readStats fills info's round trip and candidate types from the
// browser's getStats: the nominated candidate pair's current round trip,
// and its candidates' types.
func readStats(pc *pion.PeerConnection, info *PeerInfo) {
	report, ok := await(pc.JSValue().Call("getStats"))
	if !ok {
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
	if pair.IsUndefined() {
		return
	}
	if rtt := pair.Get("currentRoundTripTime"); rtt.Type() == js.TypeNumber {
		info.RTT = time.Duration(rtt.Float() * float64(time.Second))
	}
	candidateType := func(id js.Value) string {
		if c, ok := byID[id.String()]; ok && c.Get("candidateType").Type() == js.TypeString {
			return c.Get("candidateType").String()
		}
		return ""
	}
	info.LocalCandidate = candidateType(pair.Get("localCandidateId"))
	info.RemoteCandidate = candidateType(pair.Get("remoteCandidateId"))
	if c, ok := byID[pair.Get("localCandidateId").String()]; ok {
		// A relay candidate's hop to its TURN server: relayProtocol.
		for _, key := range []string{"relayProtocol", "protocol"} {
			if v := c.Get(key); v.Type() == js.TypeString && v.String() != "" {
				info.Protocol = v.String()
				break
			}
		}
	}
}

// await waits for a promise; ok is false if it was rejected.
func await(promise js.Value) (js.Value, bool) {
	type result struct {
		v  js.Value
		ok bool
	}
	done := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any { done <- result{args[0], true}; return nil })
	catch := js.FuncOf(func(js.Value, []js.Value) any { done <- result{js.Undefined(), false}; return nil })
	defer then.Release()
	defer catch.Release()
	promise.Call("then", then, catch)
	r := <-done
	return r.v, r.ok
}
