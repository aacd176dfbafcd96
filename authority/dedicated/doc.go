// Package dedicated is the dedicated host of rollnet's
// server-authoritative mode, as a command a game's binary offers: the
// binary hands its simulations to Main (a Sim each, in a list, -game
// picking one), and Main runs one as a host that clients join
// through a signaling server, over WebRTC, or dial directly over QUIC
// (-quic ADDR; browsers over WebTransport on the same port with
// -webtransport), or both in one match. The command rollnet-host is
// Main with the games it links; a game's own binary can offer the same
// (the pong demo's "pong host").
//
// The host joins one room on the signaling server (or starts a server on
// loopback when none is given), answers every peer that says Hello with
// the hosted game's settings, and runs the fixed step on the wall
// clock. It announces itself through netplay (greeting.Announcer): a
// netplay.Connect client finds it, gets the roster (every slot's name,
// who is away and for how long), and a client of other settings is
// refused at once with netplay.ErrSettings. It logs with log/slog on stderr: clients joining, resuming,
// leaving and expiring, and every -stats-every the frame and each client's
// round trip, input buffer and advised rate. Its limits are flags: the
// slots (and so the clients) the game has, the WebRTC peers known, the
// Hellos handled and the packets read per client per tick, the grace
// window of a rejoin token, the silence after which a client is away.
//
// With -quic the host listens on a UDP port (transport/quic): it logs the
// address, the SHA-256 of its certificate (self-signed unless -cert and
// -key name one) for clients to pin, and with -webtransport the URL a
// page opens; -token-secret-file admits only clients holding a connect
// token the game's backend minted with that secret
// (transport/quic/connecttoken); -webrtc=false serves QUIC alone, with no
// signaling server.
//
// With -udp (and -token-secret-file) the host also listens over plain
// UDP (transport/udp: the same connect tokens, for -udp-address, then
// one AEAD seal a datagram): the cheapest host path a client a tick, for
// native clients, which dial it with udp.Dial and a grant (Config.Grant).
//
// With -fleet NATS_URL (and -quic, -token-secret-file) the host joins a
// fleet (package fleet): it registers its address, capacity (-capacity
// matches), game and -version, heartbeats, and runs one match per room the
// connect tokens of its clients name, up to its capacity; a match whose
// clients all left ends after -match-linger, unless one comes back (its
// Hello resumes a slot): a fresh client then starts the room's next
// match at once. SIGTERM (or POST /drain on
// -metrics, which also serves /metrics and the /fleet view) drains it: no
// new match, the running ones end by -drain-deadline, then it leaves the
// fleet and exits 0.
//
// SIGINT or SIGTERM (or the context's end) closes the host, which sends
// every client a disconnect notice, flushes, and exits 0.
//
// Contract: Register is for init time (it panics on a duplicate name or a
// Sim without Simulate); Main and Run parse their own flags and return an
// exit status (0, 2 for bad flags, 3 for a failure) or an error.
package dedicated
