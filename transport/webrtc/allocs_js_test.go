package webrtc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
)

// TestAllocsBrowserSend: in a browser, Send on an open channel allocates
// nothing once its length's view exists (the page's RTCDataChannel.send
// copies what it is given; syscall/js's own dispatch of the message
// event on the other side is not counted here).
func TestAllocsBrowserSend(t *testing.T) {
	a, b, _ := loopPair(t, Config{Tuning: Tuning{SendThreshold: 1 << 30}})
	pkt := make([]byte, 64)
	require.NoError(t, a.Send(b.Local(), pkt)) // makes the view
	// On this goroutine only: the other side's onmessage dispatch runs on
	// syscall/js's goroutines and allocates there.
	allocs.RequireZeroHere(t, 200, func() {
		if err := a.Send(b.Local(), pkt); err != nil {
			t.Fatal(err)
		}
	}, "Send on an open channel")
}
