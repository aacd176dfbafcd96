// Package connecttoken mints and checks the connect tokens that admit a
// client to a rollnet host, as netcode.io's do: the game's backend, which
// knows who the player is, mints one per connection attempt and hands it
// to the client over HTTPS (or through the signaling server, as it hands
// out TURN credentials); the host checks it before it spends anything on
// the connection. It imports only the standard library, so that a backend
// or the signaling server can mint tokens without linking QUIC.
//
// # Parts
//
// A Grant has a private part, Token, that the client presents without
// reading, and a public part: the Claims (so the client knows where to go
// and until when) and a client Key. The host derives the same key from
// the token and its secret, so it needs no copy of the grant.
//
//	Token:  version 1 (1 byte) · expiry, Unix seconds (int64 LE) ·
//	        client id (uint64 LE) · nonce (8 bytes) ·
//	        room (length byte, ≤ 32 bytes) · host address (length byte, ≤ 64 bytes) ·
//	        MAC: HMAC-SHA256(secret, "rollnet-connect/v1\n" ‖ all of the above)
//	Key:    HMAC-SHA256(secret, "rollnet-connect-key/v1\n" ‖ MAC)
//
// The token is signed, not encrypted: its fields are no secret (netcode.io
// encrypts its private part because it carries the session keys; here TLS
// makes those, or, over transport/udp, keys derived from the client key,
// which the host recomputes). Over QUIC the token travels in the ClientHello, in clear,
// so that the host can refuse it before any TLS work, and the key follows
// inside TLS once the client has verified the host.
//
// # Attacks, and what a host promises against each
//
//   - A copy of a token (read off the wire in a ClientHello) can be
//     neither used nor burnt nor held: presenting it takes nothing from
//     its owner. Any number of connections may present one token at once;
//     the token is taken only by the first that redeems it with its key,
//     which the copier does not have (WrongKey, counted, the presentation
//     standing until its connection ends). Before, the first presentation
//     reserved the token until its connection ended, so a copier who
//     presented it first and said nothing held it (the owner refused 19 of
//     19 dials over 10 s); TestCopiedTokenNotHeld in transport/quic: the
//     owner is admitted at its first dial while 8 copiers' connections
//     present its token.
//   - A forged or altered token fails its MAC (Forged), one HMAC and
//     nothing kept; a token for another host or room, or expired, likewise.
//   - A used token replayed is refused (Replayed) until it expires, for as
//     long as it is remembered (MaxRemembered unexpired tokens; past that
//     new tokens are refused, Full, rather than used ones forgotten).
//
// # Checks
//
// This package is the half a game's backend needs: Mint, and ParseGrant
// for a client. The checking half is this module's own: transport/quic
// and transport/udp hosts check tokens (their Config.TokenSecret), as
// authority/dedicated and rollnet-host build them from -token-secret-file.
// A host checks, in this order and without keeping anything for a token
// that fails: the layout (ErrMalformed), the MAC under its secret, the
// host address it was minted for, the room when it serves one, the
// expiry (with a bound on how far ahead a token may expire, 10 minutes),
// and single use: a token is presented by any number of connections and
// redeemed by the first that shows the key. Each refusal is counted. Used
// tokens are remembered until they expire, at most 4096 of them; past
// that new tokens are refused rather than forgotten early.
package connecttoken
