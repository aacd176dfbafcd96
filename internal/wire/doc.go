// Package wire is rollnet's wire format: the compact messages of the P2P
// protocol and of the authoritative mode. The inputs they carry are coded with
// package codec's public XOR and run-length coding (codec.AppendRLE), and
// codec's plain packing is the seed's; this package imports codec only.
//
// # Compact P2P messages
//
// Every message is one packet of at most MaxPacket bytes and starts with a
// 3-byte header:
//
//	[Version<<4 | Type][seq u16 LE]
//
// then, varints minimal (over-long forms are refused):
//
//	SyncRequest, SyncReply  Nonce u64 LE, Protocol u16 LE, Settings u64 LE
//	Input                   see Input: frames as varints and deltas, then the
//	                        inputs XORed frame to frame and run-length coded
//	InputAck                Ack as uvarint(uint32(Ack)+1), so -1 costs one byte
//	QualityReport           FrameAdvantage zigzag varint, Ping uvarint
//	QualityReply            Pong uvarint
//	KeepAlive, Disconnect   nothing
//	Checksum                Frame as uvarint(uint32(Frame)+1), Checksum u32 LE
//	Rejoin                  Kind u8, Players u64 LE, Frame i32 LE, Match u64 LE,
//	                        Secret [16], Reason u8, Frozen u64 LE (fixed, 49
//	                        bytes in all)
//
// Each type has Append(b []byte) []byte and Len() int, and a ParseX function
// that takes the whole packet: it checks the version (ErrVersion, so the
// session can say why it refuses a peer), the type (ErrType) and that nothing
// trails the message (ErrMalformed). Route a packet with ParseHeader first.
//
// The encoding is canonical: each message has exactly one encoding, and
// anything that parses re-encodes to the same bytes. The fuzz targets hold
// this.
//
// # Allocation contract
//
// Every Append appends to the caller's slice and allocates nothing when it
// has room (MaxPacket bytes always suffice). Every parse function decodes into
// values and caller-owned buffers and never allocates, on success or error.
// A message claiming more frames, players or bytes than the limits or the
// caller's buffers allow is ErrLimit before anything is copied. A short
// buffer is an error wrapping ErrShort and io.ErrUnexpectedEOF. Input.Append
// never emits more than MaxPacket bytes: it appends nothing when Input.Check
// reports an error, and the sender sends fewer frames.
package wire
