package webrtc

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/rollnet/rollnet"
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
	u, err := roomURL(d.Signal, room, d.Token)
	if err != nil {
		return nil, err
	}
	sc, err := client.Dial(ctx, u, client.Config{})
	if err != nil {
		return nil, fmt.Errorf("webrtc: joining %s: %w", redactURL(u), redactError(err, u))
	}
	if d.Relay && !handsOutTURN(sc.ICEServers()) {
		_ = sc.Close()
		return nil, fmt.Errorf("%w: webrtc: Relay: the signaling server hands out no TURN relay", rollnet.ErrConfig)
	}
	cfg := d.Config
	cfg.LoopbackOnly = cfg.LoopbackOnly || (isLoopback(u) && !d.Relay)
	cfg.RelayOnly = cfg.RelayOnly || d.Relay
	if accept != nil {
		cfg.Accept = accept
	}
	a := NewSignalingAdapter(sc)
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
func (t *Transport) Name() string {
	if a, ok := t.sig.(*SignalingAdapter); ok {
		return a.c.Room()
	}
	return ""
}

// AtJoin appends the peers that were in the room when this endpoint
// joined it (the signaling server said who at join), oldest first, to dst and returns the
// extended slice: connected or not.
func (t *Transport) AtJoin(dst []transport.Peer) []transport.Peer {
	for _, id := range t.sig.present() {
		dst = append(dst, transport.Peer(id))
	}
	return dst
}

// Path reports the round trip and the route of the selected candidate
// pair to p (transport.PathReporter): PeerInfo's RTT and Route, partial
// while the first hop's protocol is not known. Like PeerInfo it
// allocates and waits on the WebRTC stack: call it now and then.
func (t *Transport) Path(p transport.Peer) (transport.PathInfo, error) {
	info, err := t.PeerInfo(p)
	if err != nil {
		return transport.PathInfo{}, err
	}
	r := info.Route()
	return transport.PathInfo{RTT: info.RTT, Route: r, Partial: r != "" && info.Protocol == ""}, nil
}

// roomURL is the signaling join URL of room on the server at signal: see
// RoomDialer.
func roomURL(signal, room, token string) (string, error) {
	u, err := url.Parse(signal)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return "", fmt.Errorf("%w: webrtc: Signal wants ws://HOST:PORT or wss://HOST, got %q", rollnet.ErrConfig, redactURL(signal))
	}
	q := u.Query()
	if token != "" {
		q.Set("token", token)
	}
	if !strings.Contains(u.Path, "/room") {
		if room == "" {
			u.Path = strings.TrimRight(u.Path, "/") + "/room"
			q.Set("next", "2")
		} else {
			u.Path = strings.TrimRight(u.Path, "/") + "/room/" + room
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// redactURL is s with its token= query value hidden, for errors and logs.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.Index(s, "token="); i >= 0 {
			return s[:i] + "token=REDACTED"
		}
		return s
	}
	q := u.Query()
	if q.Has("token") {
		q.Set("token", "REDACTED")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// redactError is err with every copy of url in its text shown as
// redactURL(url) (a signaling client's errors name the URL they dialed);
// it still unwraps to err.
func redactError(err error, url string) error {
	if err == nil || !strings.Contains(err.Error(), "token=") {
		return err
	}
	return redacted{err, strings.ReplaceAll(err.Error(), url, redactURL(url))}
}

type redacted struct {
	err error
	msg string
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }

// handsOutTURN reports whether ice (a signaling server's ICE servers)
// names a TURN relay.
func handsOutTURN(ice []client.ICEServer) bool {
	for _, s := range ice {
		for _, u := range s.URLs {
			if strings.HasPrefix(u, "turn:") || strings.HasPrefix(u, "turns:") {
				return true
			}
		}
	}
	return false
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
	_ transport.Room         = (*Transport)(nil)
	_ transport.PathReporter = (*Transport)(nil)
)
