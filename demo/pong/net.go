package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// signalServer is the signaling server the parent runs for itself and its
// opponent, on a random loopback port (the dedicated host's).
type signalServer struct {
	*hostcmd.SignalServer
	url string // ws://127.0.0.1:PORT
}

func startSignalServer() (*signalServer, error) {
	srv, err := hostcmd.StartSignaling(signaling.ServerConfig{})
	if err != nil {
		return nil, fmt.Errorf("pong: signaling server: %w", err)
	}
	return &signalServer{SignalServer: srv, url: srv.URL()}, nil
}

func (s *signalServer) close() { s.Close() }

// roomURL is the join URL for -signal and -room (netplay.RoomURL): a
// named room, or, with no name, the next two joiners paired by the server;
// a room token in -signal's query (?token=T) is kept.
func roomURL(signal, room string) (string, error) {
	u, err := netplay.RoomURL(signal, room, "")
	if err != nil {
		return "", fmt.Errorf("pong: -signal wants ws://HOST:PORT or wss://HOST (a room token as ?token=T), got %q", netplay.RedactURL(signal))
	}
	return u, nil
}

// conn is this process's link to its opponent: a signaling client, the
// WebRTC transport negotiated through it, and the transport the session
// uses (the WebRTC one, impaired if asked).
type conn struct {
	sig    *webrtc.SignalingAdapter // owns the signaling client
	rtc    *webrtc.Transport
	tr     transport.Transport // what the session sends through
	imp    *impair.Transport   // nil without -impair
	own    io.Closer           // a transport of its own besides (-connect's QUIC one), or nil
	peer   transport.Peer      // the opponent
	first  bool                // this process was in the room first
	opened time.Duration       // from joining the room to the data channels open
	room   string
}

// connect joins the room, calls joined (if not nil), and waits, up to
// o.timeout, for the data channels to the opponent (and the spectator, if
// any) to open. The opponent is the peer that is not o.watcher, unless
// joined chose c.peer.
func connect(ctx context.Context, o options, joined func(context.Context, *conn) error) (*conn, error) {
	u, err := roomURL(o.signal, o.room)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if o.view != nil {
		// q, Esc and Ctrl-C cancel the wait.
		defer o.view.waiting(cancel)()
		o.view.setWaiting(fmt.Sprintf("joining %s", netplay.RedactURL(u)))
	}
	client, err := signaling.Dial(ctx, u, signaling.ClientConfig{})
	if err != nil {
		return nil, connectError(ctx, fmt.Errorf("pong: joining %s: %w", netplay.RedactURL(u), netplay.RedactError(err, u)))
	}
	joinedAt := time.Now()
	c := &conn{sig: webrtc.NewSignalingAdapter(client), first: len(client.Peers()) == 0, room: client.Room()}
	if o.relay && !handsOutTURN(client.ICEServers()) {
		c.close()
		return nil, errors.New("pong: -relay: the signaling server hands out no TURN relay (-signal to a rollnet-signal -turn-listen)")
	}
	c.rtc, err = webrtc.New(webrtc.Config{LoopbackOnly: hostcmd.IsLoopback(u) && !o.relay, RelayOnly: o.relay}, c.sig)
	if err != nil {
		c.close()
		return nil, err
	}
	c.tr = c.rtc
	if joined != nil {
		if err := joined(ctx, c); err != nil {
			c.close()
			return nil, connectError(ctx, err)
		}
	}
	want := 1
	if o.watcher != "" || o.spectate {
		want = 2 // the opponent and the spectator, or both players
	}
	peers, err := c.rtc.WaitPeers(ctx, want)
	if err != nil {
		c.close()
		return nil, connectError(ctx, waitError(err, o, c.room))
	}
	if c.peer == "" && !c.first {
		// The opponent of a player that joined second is the oldest peer
		// in the room (not a spectator that may connect as fast).
		for _, id := range c.sig.Peers() {
			if id != o.watcher {
				c.peer = transport.Peer(id)
				break
			}
		}
	}
	for _, p := range peers {
		if c.peer == "" && string(p) != o.watcher {
			c.peer = p
		}
	}
	for c.peer != "" && !slices.Contains(peers, c.peer) {
		if peers, err = c.rtc.WaitPeers(ctx, len(peers)+1); err != nil {
			c.close()
			return nil, connectError(ctx, waitError(err, o, c.room))
		}
	}
	c.opened = time.Since(joinedAt)
	if o.impair != (impairment{}) {
		if c.imp, err = impair.New(c.rtc, o.impair.config(seedFor(string(c.rtc.Local())))); err != nil {
			c.close()
			return nil, err
		}
		c.tr = c.imp
	}
	return c, nil
}

func (c *conn) close() {
	if c.imp != nil {
		_ = c.imp.Close()
	}
	if c.rtc != nil {
		_ = c.rtc.Close()
	}
	if c.own != nil {
		_ = c.own.Close()
	}
	if c.sig != nil {
		_ = c.sig.Close()
	}
}

// handsOutTURN reports whether ice names a TURN server, which -relay needs.
func handsOutTURN(ice []signaling.ICEServer) bool {
	for _, s := range ice {
		for _, u := range s.URLs {
			if strings.HasPrefix(u, "turn:") || strings.HasPrefix(u, "turns:") {
				return true
			}
		}
	}
	return false
}

// connectError is err, or errCancelled if ctx, connect's, was cancelled
// (not timed out): the player gave up waiting.
func connectError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errCancelled
	}
	return err
}

func waitError(err error, o options, room string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("pong: no opponent connected within %v (room %s)", o.timeout, room)
	}
	return fmt.Errorf("pong: connecting: %w", err)
}
