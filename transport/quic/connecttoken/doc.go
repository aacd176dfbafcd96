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
// makes those). Over QUIC the token travels in the ClientHello, in clear,
// so that the host can refuse it before any TLS work, and the key follows
// inside TLS once the client has verified the host: someone who copies a
// token off the wire cannot use it, and cannot burn it either (a
// reservation without the key is released when its connection ends).
//
// # Checks
//
// A Verifier checks, in this order and without keeping anything for a
// token that fails: the layout (Malformed), the MAC under
// its secret (Forged), the host address it was minted for (WrongAddress),
// the room when it serves one (WrongRoom), the expiry (Expired, with a
// bound on how far ahead a token may expire), and single use (Replayed):
// a token is reserved by the first connection that presents it and
// redeemed when that connection shows the key (WrongKey otherwise). Each
// refusal is counted. Used tokens are remembered until they expire, at
// most Config.MaxRemembered of them; past that new tokens are refused
// (Full) rather than forgotten early.
package connecttoken
