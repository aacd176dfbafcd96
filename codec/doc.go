// Package codec is rollnet's wire format. It imports nothing of rollnet's.
//
// # Plain packing
//
// For users who run their own protocol, AppendInputs and ParseInputs write and
// read the seed's plain layout, little-endian:
//
//	[baseFrame u32][playerMask u32] then N frames oldest first (the last is baseFrame),
//	each frame players × inputSize bytes, every player's slot present.
//
// N is recovered from the length; players and input size are session
// configuration, not on the wire.
//
// # Allocation contract
//
// Every Append function appends to the caller's slice and allocates nothing
// when it has room. Every parse function decodes into caller-owned values and
// buffers and never allocates. Parsing fails closed: short input is an error
// wrapping ErrShort (and io.ErrUnexpectedEOF).
package codec
