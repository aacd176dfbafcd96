package turn_test

import (
	"fmt"
	"net"
	"regexp"

	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/turn"
)

// A relay beside a signaling server: the server hands the relay's URLs out
// at join with credentials it mints from the shared secret, which the
// relay checks.
func Example() {
	secret := []byte("s3cret")
	relay, err := turn.Listen(turn.Config{
		Secret:    secret,
		PublicIP:  net.IPv4(203, 0, 113, 7), // the address peers reach
		RelayBind: "127.0.0.1",
	}, "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer relay.Close()
	srv, err := signaling.NewServer(signaling.ServerConfig{
		ICEServers: []client.ICEServer{{URLs: relay.URLs()}},
		TURNSecret: secret,
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	port := regexp.MustCompile(`:\d+\?`)
	for _, u := range relay.URLs() {
		fmt.Println(port.ReplaceAllString(u, ":PORT?"))
	}
	// Output:
	// turn:203.0.113.7:PORT?transport=udp
	// turn:203.0.113.7:PORT?transport=tcp
}
