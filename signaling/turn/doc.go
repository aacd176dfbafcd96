// Package turn is rollnet's embedded TURN relay: pion/turn with the
// signaling server's credentials, allocation caps and a peer filter, for
// the players whose NATs direct ICE cannot cross.
//
// # Credentials
//
// The relay checks the TURN REST scheme the signaling server mints at join
// (with its ServerConfig.TURNSecret; coturn's use-auth-secret with
// static-auth-secret): username "EXPIRY:ID" (Unix seconds, the signaling
// id), password base64(HMAC-SHA1(Secret, username)). One secret serves
// this relay and an external coturn alike. Every authenticated request
// (Allocate, Refresh, CreatePermission, ChannelBind) is refused from the
// expiry on (Config.Now), and an allocation stops relaying at the first
// packet after its credentials expire, whatever lifetime its client asked
// for: a credential's lifetime bounds the relaying it buys. Give
// credentials a lifetime longer than a match (signaling's -turn-ttl).
//
// # Peers the relay refuses
//
// An open relay is an attack tool: it forwards UDP from its own address to
// any address its client names, so a relay that forwards to loopback or to
// its own network lets anyone with credentials (every player) reach
// services that trust those addresses (metadata endpoints, admin ports,
// the LAN). Permissions to loopback (127.0.0.0/8, ::1) are refused unless
// Config.AllowLoopback; to private and local ranges (RFC 1918, CGNAT,
// link-local, unique local, reserved) unless Config.AllowPrivate;
// unspecified and multicast always. Tests on one machine need
// AllowLoopback; a LAN party needs AllowPrivate.
//
// # Limits
//
// A TURN port is public. Every limit is a Config field whose zero value is
// a documented default:
//
//	allocations in total        1000         Allocate answered 508, Stats.CapRefused
//	allocations per user id     16           Allocate answered 508, Stats.QuotaRefused
//	allocations per client IP   64           Allocate answered 486, Stats.AddrRefused
//	permissions per allocation  32           CreatePermission answered 403, Stats.PermsRefused
//	channels per allocation     64           ChannelBind (and all else) answered 403, Stats.PermsRefused
//	TCP conns per address       16           closed at accept, Stats.ConnsRefused
//	TCP conns in total          1024         closed at accept, Stats.ConnsRefused
//	TCP idle                    1 min        connection closed
//	relay ports                 49152-65535  the range a firewall opens
//	relay transport             UDP only     RFC 6062 TCP allocations refused, Stats.TCPRefused
//
// The total and per-user caps are counted where pion asks for a relay
// socket and freed when the socket closes, so concurrent requests cannot
// overshoot them. A user id is one join's, and joining again mints another:
// the per-address cap is what stops one machine from taking the relay.
// It follows pion's allocation events and is checked before the socket is
// made, so concurrent requests over several TCP connections from one
// address can overshoot it by at most MaxConnsPerAddr.
//
// # Logs and goroutines
//
// The relay logs through slog: listening, refusals of allocations at Info
// or Warn, refusals a client can repeat at will (credentials, peers) at
// Debug, and pion's own logs at Debug (its warnings and errors at Warn).
// pion runs a goroutine per listener, per TCP connection and per
// allocation; Close closes every socket, which ends them.
package turn
