package codec

import "encoding/binary"

// InputsHeaderLen is the size of the plain packing's header:
// baseFrame (u32 LE) then playerMask (u32 LE).
const InputsHeaderLen = 8

// AppendInputs appends the plain packing of block to dst and returns the
// extended slice: [baseFrame u32 LE][playerMask u32 LE] then block verbatim.
// block holds N frames oldest first (the last one is baseFrame), each frame
// players × inputSize bytes; those sizes are session configuration, not on the
// wire. It does not allocate when dst has room.
func AppendInputs(dst []byte, baseFrame, playerMask uint32, block []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, baseFrame)
	dst = binary.LittleEndian.AppendUint32(dst, playerMask)
	return append(dst, block...)
}

// ParseInputs reads a plain packing. block aliases src. A header alone is a
// valid packet with an empty block; fewer than InputsHeaderLen bytes is an
// error wrapping ErrShort (and io.ErrUnexpectedEOF). Whether block is a whole
// number of frames is for the caller, who knows the frame size, to check
// (ErrMalformed). It never allocates on success.
func ParseInputs(src []byte) (baseFrame, playerMask uint32, block []byte, err error) {
	if len(src) < InputsHeaderLen {
		return 0, 0, nil, ErrShort
	}
	baseFrame = binary.LittleEndian.Uint32(src)
	playerMask = binary.LittleEndian.Uint32(src[4:])
	return baseFrame, playerMask, src[InputsHeaderLen:], nil
}
