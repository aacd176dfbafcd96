package netplay

import (
	"context"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// dialed is what the background dial hands the match.
type dialed struct {
	room  transport.Room      // the room joined (nil: Config.Transport, a host dialed)
	tr    transport.Transport // room, impaired if asked; or the host's
	name  string              // the room's name
	first bool                // the room was empty as this peer joined
	err   error
	// placed is the fleet's placement (fleet.go): the host is known
	// without its hello.
	placed *placement
	// greet is the peers to greet on tr (Config.QUIC's host), as
	// Config.Peers.
	greet []transport.Peer
}

// rooms is the rendezvous service of cfg: Config.Rooms, or the WebRTC
// one of Config.Signal.
func rooms(cfg *Config) transport.RoomDialer {
	if cfg.Rooms != nil {
		return cfg.Rooms
	}
	return webrtc.RoomDialer{Signal: cfg.Signal, Token: cfg.RoomToken, Relay: cfg.Tuning.Relay, Config: cfg.Tuning.WebRTC}
}

// dial joins the room and starts its transport connecting to the room's
// other members.
func dial(ctx context.Context, cfg *Config, accept func(transport.Peer) bool) dialed {
	rm, err := rooms(cfg).DialRoom(ctx, cfg.Room, accept)
	if err != nil {
		return dialed{err: err} // a Relay without TURN: rollnet.ErrConfig, as errConfig
	}
	d := dialed{room: rm, tr: rm, name: rm.Name(), first: len(rm.AtJoin(nil)) == 0}
	if cfg.Tuning.Impair != nil {
		imp, err := cfg.Tuning.Impair.Wrap(rm)
		if err != nil {
			_ = rm.Close()
			return dialed{err: err}
		}
		d.tr = imp
	}
	return d
}
