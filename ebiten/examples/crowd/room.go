package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// Room is a host and its bots in this process, on transport/local's
// network (a 30 ms link by default): the default mode, where the window
// is one more client of the same network.
type Room struct {
	Net     *local.Network
	Host    *netplay.Match[World, Buttons]
	Bots    []*netplay.Match[World, Buttons]
	bots    []*Bot
	players int
	errs    []error
}

// NewRoom starts a host of players slots and bots clients on a network
// of the clock now (nil for the wall clock).
func NewRoom(players, bots int, now func() time.Time) (*Room, error) {
	n, err := local.NewNetwork(local.Config{Seed: 7, Now: now, Link: local.Link{Latency: 15 * time.Millisecond, Jitter: 3 * time.Millisecond}, QueueLen: 4096})
	if err != nil {
		return nil, err
	}
	r := &Room{Net: n, players: players}
	ep, err := n.Endpoint("host")
	if err != nil {
		return nil, err
	}
	if r.Host, err = netplay.Host(netplay.Config{Transport: ep, Now: now, Players: players, Name: "host"}, Simulate, netplay.Entities(*Entities())); err != nil {
		return nil, err
	}
	for i := range bots {
		m, err := r.Client(fmt.Sprint("bot", i+1), now)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.Bots = append(r.Bots, m)
		r.bots = append(r.bots, NewBot(uint32(i+1)))
	}
	r.errs = make([]error, len(r.Bots))
	return r, nil
}

// Client starts one more client of the room's host, named name.
func (r *Room) Client(name string, now func() time.Time) (*netplay.Match[World, Buttons], error) {
	ep, err := r.Net.Endpoint(name)
	if err != nil {
		return nil, err
	}
	return netplay.Connect(r.ClientConfig(ep, name, now), Simulate, netplay.Entities(*Entities()))
}

// ClientConfig is netplay's config of a client of the room on ep.
func (r *Room) ClientConfig(ep transport.Transport, name string, now func() time.Time) netplay.Config {
	return netplay.Config{Transport: ep, Peers: []transport.Peer{"host"}, Now: now, Players: r.players, Name: name}
}

// Tick advances the host and every bot by one tick; a bot whose match
// failed stays out.
func (r *Room) Tick() error {
	if _, err := r.Host.AdvanceFrame(0); err != nil {
		return fmt.Errorf("host: %w", err)
	}
	for i, m := range r.Bots {
		if r.errs[i] == nil {
			_, r.errs[i] = m.AdvanceFrame(r.bots[i].Input())
		}
	}
	return errors.Join(r.errs...)
}

// Close leaves the room.
func (r *Room) Close() {
	for _, m := range r.Bots {
		_ = m.Close()
	}
	_ = r.Host.Close()
}
