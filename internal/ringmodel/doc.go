// Package ringmodel checks a state ring against a naive model: the live
// state and a slice of copies of it, newest last.
//
// Check drives a ring with random operations (edits and rewrites of the
// live state, commits, rollbacks of every depth, peeks, checksums, resets,
// and out-of-range calls) and compares every observable with the model:
// after every operation the depth, the live state (its contents and its
// address) and the operation's result; every SweepEvery operations, and
// after every rollback and reset, every commit held (Peek and ChecksumAt of
// each depth). Views returned by Peek are kept and must stay unchanged until
// Capacity commits have passed. Checksums are compared with CRC32-C
// (Castagnoli) over the state's bytes, computed here independently of the
// ring.
//
// The package sees a ring only through the Ring interface (bytes views) and
// does not import rollback, so that rollback's own internal tests can use it
// as well as the torture tier T0. Typed adapts a typed ring (Live returns
// *T) given its byte view function; *rollback.Bytes is a Ring as it is.
//
// Check allocates freely (the model copies every commit); it is test code.
package ringmodel
