package netplay

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/rollnet/rollnet/signaling/client" // not signaling: a browser build must not link its server
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// RoomURL is the signaling join URL of room on the server at signal
// (ws://HOST:PORT or wss://HOST, with or without a path): signal's path
// with /room/ROOM after it, or /room?next=2 for an empty room (the next two
// joiners paired). A token (the server's room token) is sent as the token=
// query, from token or from signal's own query.
func RoomURL(signal, room, token string) (string, error) {
	u, err := url.Parse(signal)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return "", fmt.Errorf("%w: Signal wants ws://HOST:PORT or wss://HOST, got %q", ErrConfig, RedactURL(signal))
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

// RedactURL is raw with its token= query value hidden, for errors and
// logs.
func RedactURL(s string) string {
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

// dialed is what the background dial hands the match.
type dialed struct {
	rtc   *webrtc.Transport
	tr    transport.Transport // rtc, impaired if asked
	sig   *webrtc.SignalingAdapter
	room  string
	first bool // the room was empty as this peer joined
	err   error
	// placed is the fleet's placement (fleet.go): the host is known
	// without its hello.
	placed *placement
	// greet is the peers to greet on tr (ConnectQUIC's host), as
	// Config.Peers.
	greet []transport.Peer
}

// dial joins the room and starts the WebRTC transport negotiating through it.
func dial(ctx context.Context, cfg *Config, accept func(transport.Peer) bool) dialed {
	u, err := RoomURL(cfg.Signal, cfg.Room, cfg.RoomToken)
	if err != nil {
		return dialed{err: err}
	}
	sc, err := client.Dial(ctx, u, client.Config{})
	if err != nil {
		return dialed{err: fmt.Errorf("netplay: joining %s: %w", RedactURL(u), RedactError(err, u))}
	}
	if cfg.Relay && !HandsOutTURN(sc.ICEServers()) {
		_ = sc.Close()
		return dialed{err: fmt.Errorf("%w: Relay: the signaling server hands out no TURN relay", ErrConfig)}
	}
	wc := cfg.WebRTC
	wc.LoopbackOnly = wc.LoopbackOnly || (isLoopback(u) && !cfg.Relay)
	wc.RelayOnly = wc.RelayOnly || cfg.Relay
	wc.Accept = accept
	sig := webrtc.NewSignalingAdapter(sc)
	rtc, err := webrtc.New(wc, sig)
	if err != nil {
		_ = sig.Close()
		return dialed{err: err}
	}
	d := dialed{rtc: rtc, tr: rtc, room: sc.Room(), first: len(sc.Peers()) == 0}
	if cfg.Impair != nil {
		imp, err := cfg.Impair.Wrap(rtc)
		if err != nil {
			_ = rtc.Close()
			_ = sig.Close()
			return dialed{err: err}
		}
		d.tr = imp
	}
	d.sig = sig
	return d
}

// RedactError is err with every copy of url in its text shown as
// RedactURL(url) (a signaling client's errors name the URL they dialed);
// it still unwraps to err.
func RedactError(err error, url string) error {
	if err == nil || !strings.Contains(err.Error(), "token=") {
		return err
	}
	return redacted{err, strings.ReplaceAll(err.Error(), url, RedactURL(url))}
}

type redacted struct {
	err error
	msg string
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }

// HandsOutTURN reports whether ice (a signaling server's ICE servers)
// names a TURN relay, which Config.Relay needs.
func HandsOutTURN(ice []client.ICEServer) bool {
	for _, s := range ice {
		for _, u := range s.URLs {
			if strings.HasPrefix(u, "turn:") || strings.HasPrefix(u, "turns:") {
				return true
			}
		}
	}
	return false
}
