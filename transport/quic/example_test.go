//go:build !js

package quic_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
)

// A host on a public address and a client that pins its certificate: the
// client's datagram reaches the host under the id the host assigned.
func Example() {
	host, err := quic.Listen("127.0.0.1:0", quic.Config{}) // a self-signed certificate
	if err != nil {
		fmt.Println(err)
		return
	}
	defer host.Close()
	pin := quic.FormatHash(host.CertHash()) // what a host command prints

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hash, _ := quic.ParseHash(pin) // what a client takes as a flag
	client, err := quic.Dial(ctx, host.Addr().String(), quic.Config{PinSHA256: hash})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	_ = client.Send(client.Host(), []byte("input for frame 1"))

	buf := make([]byte, transport.MaxDatagram)
	for ctx.Err() == nil {
		n, from, err := host.Receive(buf)
		if err == nil {
			fmt.Printf("%s from %s\n", buf[:n], from)
			return
		}
		time.Sleep(time.Millisecond)
	}
	// Output: input for frame 1 from q1
}
