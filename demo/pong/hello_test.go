package main

import (
	"context"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

var helloSamples = []hello{
	{},
	{Heard: true, Names: [2]string{"alice", ""}},
	{Frame: 12345, Names: [2]string{"Zoë", "李雷"}},
	{Heard: true, Frame: 1<<31 - 1, Names: [2]string{"a-name-of-exactly-32-bytes-long!", "b"}},
}

func TestHelloRoundTrip(t *testing.T) {
	for _, h := range helloSamples {
		b := h.Append(nil)
		require.Len(t, b, h.Len())
		got, n, err := parseHello(b)
		require.NoError(t, err)
		require.Equal(t, len(b), n)
		require.Equal(t, h, got)
		// Every truncated prefix is short, never a panic or a hello.
		for i := range len(b) {
			_, _, err := parseHello(b[:i])
			require.ErrorIs(t, err, io.ErrUnexpectedEOF, "prefix %d of %x", i, b)
		}
	}
}

// TestHelloRefusesHostileBytes: a hello is drawn on a terminal, so names
// with control characters or escape sequences, invalid UTF-8, overlong
// names, unknown flags and negative frames are refused; a session's
// packet is not a hello.
func TestHelloRefusesHostileBytes(t *testing.T) {
	good := hello{Names: [2]string{"alice", "bob"}}.Append(nil)
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	for name, b := range map[string][]byte{
		"escape sequence": hello{Names: [2]string{"\x1b[2Jboom", ""}}.Append(nil),
		"newline":         hello{Names: [2]string{"a\nb", ""}}.Append(nil),
		"invalid utf-8":   hello{Names: [2]string{"\xff\xfe", ""}}.Append(nil),
		"overlong name":   mutate(func(b []byte) []byte { b[10] = maxName + 1; return append(b, make([]byte, 40)...) }),
		"unknown flag":    mutate(func(b []byte) []byte { b[5] = 2; return b }),
		"negative frame":  mutate(func(b []byte) []byte { b[9] = 0x80; return b }),
	} {
		_, _, err := parseHello(b)
		require.ErrorIs(t, err, errHelloInvalid, name)
	}
	for name, b := range map[string][]byte{
		"sync request": codec.SyncRequest{Seq: 1, Nonce: 2, Protocol: 1}.Append(nil),
		"keep-alive":   codec.KeepAlive{Seq: 7}.Append(nil),
		"other magic":  mutate(func(b []byte) []byte { b[1] = 'P'; return b }),
		"one byte":     {0x12},
	} {
		_, _, err := parseHello(b)
		require.ErrorIs(t, err, errNotHello, name)
	}
	// A name too long to send is cut at a rune, never mid-rune.
	h, _, err := parseHello(hello{Names: [2]string{"ééééééééééééééééééééé", ""}}.Append(nil))
	require.NoError(t, err)
	require.Equal(t, "éééééééééééééééé", h.Names[0])
}

func TestHelloAppendAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	b := make([]byte, 0, helloMax)
	h := helloSamples[3]
	allocs.RequireZero(t, 100, func() { b = h.Append(b[:0]) })
}

func FuzzHello(f *testing.F) {
	for _, h := range helloSamples {
		f.Add(h.Append(nil))
	}
	f.Add(codec.SyncRequest{Seq: 1}.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := parseHello(b)
		if err != nil {
			return
		}
		// Canonical: what parses re-encodes to the same bytes.
		require.Equal(t, b[:n], h.Append(nil))
		require.True(t, validName(h.Names[0]) && validName(h.Names[1]))
	})
}

// localPair is the endpoints "a" and "b" of a local network with cfg.
func localPair(t *testing.T, cfg local.Config) (a, b transport.Transport) {
	t.Helper()
	nw, err := local.NewNetwork(cfg)
	require.NoError(t, err)
	ea, err := nw.Endpoint("a")
	require.NoError(t, err)
	eb, err := nw.Endpoint("b")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ea.Close(); _ = eb.Close() })
	return ea, eb
}

// helloPair is a lossy local pair on the bubble's clock.
func helloPair(t *testing.T) (a, b transport.Transport) {
	return localPair(t, local.Config{Seed: 4, Now: time.Now, Link: local.Link{Latency: 30 * time.Millisecond, Loss: 0.2}})
}

// TestGreetExchangesNames: two players learn each other's names over a
// lossy link; one whose peer never answers gives up after its time.
func TestGreetExchangesNames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ea, eb := helloPair(t)
		var wg sync.WaitGroup
		var got [2]hello
		var ok [2]bool
		wg.Go(func() {
			got[0], ok[0] = greet(context.Background(), ea, "b", hello{Names: [2]string{"alice", ""}}, 3*time.Second)
		})
		wg.Go(func() {
			got[1], ok[1] = greet(context.Background(), eb, "a", hello{Names: [2]string{"", "bob"}}, 3*time.Second)
		})
		wg.Wait()
		require.Equal(t, [2]bool{true, true}, ok)
		require.Equal(t, "bob", got[0].Names[1])
		require.Equal(t, "alice", got[1].Names[0])

		lone, _ := helloPair(t)
		start := time.Now()
		_, alone := greet(context.Background(), lone, "b", hello{}, 2*time.Second)
		require.False(t, alone)
		require.Equal(t, 2*time.Second, time.Since(start).Round(helloEvery))
	})
}

// TestAwaitHelloDropsSessionPackets: a spectator waiting for its host's
// hello drops the host's session packets that come first.
func TestAwaitHelloDropsSessionPackets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ea, eb := helloPair(t)
		for range 5 {
			require.NoError(t, ea.Send("b", codec.SyncRequest{Seq: 1}.Append(nil)))
		}
		for range 5 { // a lossy link: the host sends a few
			require.NoError(t, ea.Send("b", hello{Frame: 600, Names: [2]string{"alice", "bob"}}.Append(nil)))
		}
		h, ok := awaitHello(context.Background(), eb, "a", time.Second)
		require.True(t, ok)
		require.Equal(t, int32(600), h.Frame)
		require.Equal(t, [2]string{"alice", "bob"}, h.Names)
	})
}
