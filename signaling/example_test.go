package signaling_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/rollnet/rollnet/signaling"
)

// Two clients join one room on a server started in-process, and the one
// already there offers to the newcomer.
func Example() {
	srv, err := signaling.NewServer(signaling.ServerConfig{
		ICEServers: []signaling.ICEServer{{URLs: []string{"stun:stun.example.org:3478"}}},
	})
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/lobby"

	ctx := context.Background()
	alice, err := signaling.Dial(ctx, url, signaling.ClientConfig{})
	if err != nil {
		panic(err)
	}
	defer alice.Close()
	bob, err := signaling.Dial(ctx, url, signaling.ClientConfig{})
	if err != nil {
		panic(err)
	}
	defer bob.Close()
	fmt.Println("bob found", len(bob.Peers()), "peer; ICE:", bob.ICEServers()[0].URLs[0])

	ev := <-alice.Events()
	fmt.Println("alice hears", ev.Kind, ev.Peer == bob.ID())
	offer := json.RawMessage(`{"type":"offer","sdp":"v=0..."}`)
	if err := alice.Send(ctx, ev.Peer, signaling.Signal{Kind: signaling.SignalOffer, Payload: offer}); err != nil {
		panic(err)
	}
	ev = <-bob.Events()
	fmt.Println("bob hears", ev.Kind, ev.Signal.Kind, "from alice:", ev.Peer == alice.ID())
	fmt.Println(string(ev.Signal.Payload))
	// Output:
	// bob found 1 peer; ICE: stun:stun.example.org:3478
	// alice hears peer-joined true
	// bob hears signal offer from alice: true
	// {"type":"offer","sdp":"v=0..."}
}
