// Package codec packs game inputs into bytes, for users who run their own
// protocol: the seed's plain packing, and the XOR and run-length input coding
// rollnet's own messages carry. It imports nothing of rollnet's. (rollnet's
// protocol messages are internal; only their input coding is here.)
//
// # Plain packing
//
// AppendInputs and ParseInputs write and read the seed's plain layout,
// little-endian:
//
//	[baseFrame u32][playerMask u32] then N frames oldest first (the last is baseFrame),
//	each frame players × inputSize bytes, every player's slot present.
//
// N is recovered from the length; players and input size are session
// configuration, not on the wire.
//
// # Input coding
//
// AppendRLE codes a block of frames, each stride bytes (for example players ×
// inputSize), in two steps. First every byte is XORed with the byte one
// stride earlier, the first frame with zero, so that an input held from one
// frame to the next becomes zeros and every block stands alone. Then the
// XORed bytes are cut into tokens, each a minimal uvarint control c:
//
//	c even   a run of c/2+2 zero bytes
//	c odd    a literal: the c/2+1 bytes that follow
//
// Runs are the maximal runs of two zeros or more; literals are what lies
// between them. So tokens alternate, and a literal holds no two consecutive
// zeros and starts or ends with a zero only at the edge of the block. A held
// button costs nothing after its first frame: in AppendRLE's example, eight
// frames of two players' 2-byte inputs take 7 bytes instead of 32.
//
// The coding is canonical: DecodeRLE rejects anything AppendRLE would not
// have written (ErrMalformed), so anything that decodes re-encodes to the
// same bytes. The block's length is not in the coding: the receiver knows it
// (frames × stride) from what surrounds it, and DecodeRLE fills exactly
// len(out) bytes and reports how many bytes of input it read.
//
// # Allocation contract
//
// AppendInputs and AppendRLE append to the caller's slice and allocate
// nothing when it has room. ParseInputs aliases its input and DecodeRLE
// writes into the caller's buffer; neither allocates, on success or error.
// A short buffer is an error wrapping ErrShort and io.ErrUnexpectedEOF.
package codec
