package wire_test

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet/internal/wire"
)

// A peer sends the inputs the other side has not acknowledged; the receiver
// decodes them into buffers it owns, without allocating.
func Example() {
	// One player, 2-byte inputs, a button held for 8 frames.
	held := []byte{0x11, 0x02, 0x11, 0x02, 0x11, 0x02, 0x11, 0x02, 0x11, 0x02, 0x11, 0x02, 0x11, 0x02, 0x11, 0x02}
	out := wire.Input{Seq: 7, Ack: 1002, Start: 1000, Frames: 8, Players: 0b1, Size: 2, Inputs: held}
	if err := out.Check(); err != nil {
		panic(err)
	}
	pkt := out.Append(make([]byte, 0, wire.MaxPacket))
	fmt.Println("bytes on the wire:", len(pkt))

	// The receiver dispatches on the header, then decodes into its buffers.
	inputs := make([]byte, wire.MaxFrames*1*2) // MaxFrames × players carried × input size
	status := make([]wire.PeerStatus, wire.MaxPlayers)
	t, seq, _, err := wire.ParseHeader(pkt)
	if err != nil {
		panic(err)
	}
	in := wire.Input{Size: 2} // the input size is session config, not on the wire
	if _, err := wire.ParseInput(pkt, &in, inputs, status); err != nil {
		panic(err)
	}
	fmt.Println(t, seq, "frames", in.Start, "to", in.Start+int32(in.Frames)-1, "ack", in.Ack)
	fmt.Printf("last frame's input: % x\n", in.Inputs[len(in.Inputs)-2:])

	// A peer of another release is named as such.
	pkt[0] = 0x23
	_, _, _, err = wire.ParseHeader(pkt)
	fmt.Println(errors.Is(err, wire.ErrVersion))
	// Output:
	// bytes on the wire: 13
	// Input 7 frames 1000 to 1007 ack 1002
	// last frame's input: 11 02
	// true
}

// A keep-alive is the header alone.
func ExampleKeepAlive() {
	m := wire.KeepAlive{Seq: 258}
	pkt := m.Append(nil)
	got, n, err := wire.ParseKeepAlive(pkt)
	fmt.Printf("% x %v %d %v\n", pkt, got.Seq, n, err)
	// Output:
	// 17 02 01 258 3 <nil>
}
