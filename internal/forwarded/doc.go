// Package forwarded finds the client address of an HTTP request behind
// trusted reverse proxies, for what counts requests per address.
//
// The TCP peer is the client unless it is a trusted proxy; then the
// proxy chain is read right to left (each proxy appends the address it
// took the request from), from the Forwarded header (RFC 7239) when
// present, else X-Forwarded-For, and the first address that is not a
// trusted proxy is the client. Anything left of it was written by the
// client and is never believed; a header from an untrusted peer is not
// read at all. An element that does not parse, or no header, stops the
// walk at the last trusted hop (the proxy's own address then).
//
// signaling's listener does the same walk for its per-address caps.
package forwarded
