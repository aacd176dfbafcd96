package netplay_test

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/signaling"
)

// processRoles maps an environment variable to the part the test binary
// plays in another process when it is set; files built outside js add
// theirs (entity_process_test.go).
var processRoles = map[string]func(spec string) int{}

func TestMain(m *testing.M) {
	for env, role := range processRoles {
		if spec := os.Getenv(env); spec != "" { // the test binary as another process
			os.Exit(role(spec))
		}
	}
	goleak.VerifyTestMain(m)
}

// World is the examples' game: two dots pushed by their players' buttons.
type World struct {
	X [2]int32
	T int32
}

// Buttons is one player's input: -1, 0 or +1.
type Buttons int8

func simulate(w *World, in []Buttons, _ rollnet.Frame) {
	for p, b := range in[:min(len(in), len(w.X))] { // a third slot (pong's) has no dot
		w.X[p] += int32(b)
	}
	w.T++
}

// startSignal runs a signaling server on 127.0.0.1 and returns its URL
// and its stop.
func startSignal() (string, func()) {
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = srv.Serve(ln) }()
	return "ws://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
}
