package webrtc

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"slices"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/signalurl"
	"github.com/rollnet/rollnet/signaling/client" // not signaling: a browser build must not link its server
	"github.com/rollnet/rollnet/transport"
)

// RoomDialer joins rooms of a signaling server (package signaling) and
// connects to their members over WebRTC data channels: the
// transport.RoomDialer of a peer-to-peer match.
type RoomDialer struct {
	// Signal is the server: ws://HOST:PORT or wss://HOST, with or without
	// a path. DialRoom adds /room/ROOM to its path (or /room?next=2 for
	// the room "": the next two joiners are paired) unless the path names
	// a room already.
	Signal string

	// Token is the server's room token, sent as the token= query; ""
	// sends Signal's own token= query, if any.
	Token string

	// Relay sends everything through the TURN relay the server hands out
	// (Config.RelayOnly); DialRoom fails with rollnet.ErrConfig when it
	// hands out none.
	Relay bool

	// Config configures each Transport. DialRoom sets its Accept to
	// DialRoom's accept (when not nil), its RelayOnly with Relay, and its
	// LoopbackOnly when Signal's host is a loopback address (and Relay is
	// not set).
	Config Config
}

// DialRoom joins room on the server and starts a Transport that
// negotiates with the room's members through it (transport.RoomDialer);
// the Transport's Close leaves the room. An error names the URL dialed
// with its token hidden.
func (d RoomDialer) DialRoom(ctx context.Context, room string, accept func(transport.Peer) bool) (transport.Room, error) {
	u, err := signalurl.Room(d.Signal, room, d.Token)
	if err != nil {
		return nil, err
	}
	sc, err := client.Dial(ctx, u, client.Config{})
	if err != nil {
		return nil, fmt.Errorf("webrtc: joining %s: %w", signalurl.Redact(u), signalurl.RedactError(err, u))
	}
	if d.Relay && !signalurl.HandsOutTURN(sc.ICEServers()) {
		_ = sc.Close()
		return nil, fmt.Errorf("%w: webrtc: Relay: the signaling server hands out no TURN relay", rollnet.ErrConfig)
	}
	cfg := d.Config
	cfg.LoopbackOnly = cfg.LoopbackOnly || (isLoopback(u) && !d.Relay)
	cfg.RelayOnly = cfg.RelayOnly || d.Relay
	if accept != nil {
		cfg.Accept = accept
	}
	a := newSignalingAdapter(sc, true)
	t, err := newTransport(cfg, a, a)
	if err != nil {
		_ = a.Close()
		return nil, err
	}
	return t, nil
}

// Name is the room's name as the signaling server knows it (the one
// dialed, or the one it chose for ""), for a Transport made by DialRoom,
// Dial or New.
func (t *rtcTransport) Name() string {
	if a, ok := t.sig.(*signalingAdapter); ok {
		return a.c.Room()
	}
	return ""
}

// AtJoin appends the peers that were in the room when this endpoint
// joined it (the signaling server said who at join), oldest first, to dst and returns the
// extended slice: connected or not.
func (t *rtcTransport) AtJoin(dst []transport.Peer) []transport.Peer {
	for _, id := range t.sig.present() {
		dst = append(dst, transport.Peer(id))
	}
	return dst
}

// maxArrived bounds the members Arrived keeps: the first ones to arrive,
// which are those a room's seats are taken by.
const maxArrived = 64

// noteArrival keeps the order of the members that join after this
// endpoint (Arrived), whether or not it connects to them.
func (t *rtcTransport) noteArrival(id transport.Peer, kind signalEventKind) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.Index(t.arrived, id)
	switch {
	case kind == peerJoined && i < 0 && len(t.arrived) < maxArrived:
		t.arrived = append(t.arrived, id)
	case kind == peerLeft && i >= 0:
		t.arrived = slices.Delete(t.arrived, i, i+1)
	}
}

// Arrived appends the members that joined the room after this endpoint
// and are still in it, in the order the signaling server announced them
// (the same on every member), to dst and returns the extended slice:
// connected or not, the first 64 (transport.Arrivals).
func (t *rtcTransport) Arrived(dst []transport.Peer) []transport.Peer {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return append(dst, t.arrived...)
}

// Disconnect closes the connection to p and does not connect to it again
// (transport.Disconnecter): p is gone (a PeerGone event, reason
// ErrDisconnected) and its offers are refused. It fails with
// transport.ErrUnknownPeer for a peer it does not know.
func (t *rtcTransport) Disconnect(p transport.Peer) error {
	t.mu.RLock()
	pe := t.peers[p]
	t.mu.RUnlock()
	if pe == nil {
		return transport.ErrUnknownPeer
	}
	t.peerGone(pe, ErrDisconnected, false)
	return nil
}

// Path reports the round trip and the route of the selected candidate
// pair to p (transport.PathReporter), partial while the first hop's
// protocol is not known. It allocates and waits on the WebRTC stack
// (pion's statistics, a browser's getStats): call it now and then.
func (t *rtcTransport) Path(p transport.Peer) (transport.PathInfo, error) {
	info, err := t.peerInfo(p)
	if err != nil {
		return transport.PathInfo{}, err
	}
	r := info.Route()
	return transport.PathInfo{RTT: info.RTT, Route: r, Partial: r != "" && info.Protocol == ""}, nil
}

// isLoopback reports whether the URL's host is a loopback address (the
// ICE candidates are then kept to loopback).
func isLoopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

var (
	_ transport.RoomDialer   = RoomDialer{}
	_ transport.Room         = (*rtcTransport)(nil)
	_ transport.PathReporter = (*rtcTransport)(nil)
	_ transport.Arrivals     = (*rtcTransport)(nil)
	_ transport.Disconnecter = (*rtcTransport)(nil)
)
