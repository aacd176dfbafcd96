package codec_test

import (
	"fmt"

	"github.com/rollnet/rollnet/codec"
)

// The plain packing, for users who run their own protocol.
func ExampleAppendInputs() {
	// Two players, 1-byte inputs, the last 2 frames ending at frame 41.
	block := []byte{0x01, 0x02, 0x03, 0x04}
	pkt := codec.AppendInputs(nil, 41, 0b11, block)
	fmt.Printf("% x\n", pkt)
	base, mask, got, err := codec.ParseInputs(pkt)
	fmt.Println(base, mask, got, err)
	// Output:
	// 29 00 00 00 03 00 00 00 01 02 03 04
	// 41 3 [1 2 3 4] <nil>
}

// The input coding: two players, 2-byte inputs, eight frames. Player 0
// holds a button throughout and player 1 presses one at the fifth frame.
func ExampleAppendRLE() {
	const stride = 2 * 2 // players × input size
	var block []byte
	for f := range 8 {
		p1 := byte(0)
		if f >= 4 {
			p1 = 0x08
		}
		block = append(block, 0x11, 0x02, p1, 0)
	}
	coded := codec.AppendRLE(nil, block, stride)
	fmt.Println(len(block), "bytes code as", len(coded), "=", codec.RLELen(block, stride))
	fmt.Printf("% x\n", coded)

	out := make([]byte, len(block)) // the receiver knows frames × stride
	n, err := codec.DecodeRLE(coded, out, stride)
	fmt.Println(n, err, string(out) == string(block))
	// Output:
	// 32 bytes code as 7 = 7
	// 03 11 02 1c 01 08 16
	// 7 <nil> true
}
