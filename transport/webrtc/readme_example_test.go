package webrtc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// The README's "Peers over a network" snippet is the body of playRaw
// (TestREADMESnippets in package netplay checks it); Example_readme runs
// it for two peers on loopback.

type World struct{ X [2]int32 }

type Buttons uint8

func simulate(w *World, in []Buttons, _ rollnet.Frame) {
	for p, b := range in {
		w.X[p] += int32(b)
	}
}

func readButtons() Buttons { return 1 }

func draw(*World) {}

func Example_readme() {
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- playRaw(ctx, "ws://"+ln.Addr().String()+"/room/friday") }()
	}
	fmt.Println(<-errs, <-errs)
	// Output: <nil> <nil>
}

func playRaw(ctx context.Context, room string) error {
	tr, err := webrtc.Dial(ctx, room, webrtc.Config{LoopbackOnly: true})
	if err != nil {
		return err
	}
	defer tr.Close()
	peers, err := tr.WaitPeers(ctx, 1)
	if err != nil {
		return err
	}
	seats := []transport.Peer{tr.Local(), peers[0]}
	slices.Sort(seats) // the same seats on both peers: by id
	me := slices.Index(seats, tr.Local())
	remote := make([]transport.Peer, 2) // "" is this peer's own seat
	remote[1-me] = peers[0]
	p, err := p2p.New[World](p2p.Config[Buttons]{
		Session: session.Config[Buttons]{Players: 2, InputDelay: 2},
		Remote:  remote,
	}, tr, simulate)
	if err != nil {
		return err
	}
	defer p.Close()
	var events []rollnet.Event
	for range time.Tick(time.Second / 60) { // FrameRate times a second
		if p.WaitRecommendation() > 0 {
			_ = p.Poll() // ahead of the peer: skip a tick, keep the network going
		} else {
			_ = p.AddLocalInput(me, readButtons())
			err := p.AdvanceFrame()
			if err != nil && !errors.Is(err, p2p.ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) {
				return err // a failed handshake, a closed session: fatal
			}
		}
		events = p.Events(events[:0]) // Disconnected, DesyncDetected, ...
		draw(p.State())
		if p.Frame() >= 120 {
			return nil
		}
	}
	return nil
}
