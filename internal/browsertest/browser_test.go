//go:build !js

package browsertest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWebRTCInChromium runs transport/webrtc's tests that apply to its
// browser build inside Chromium: the transport contract (transporttest),
// round trips, argument errors and a remote close, between two Transports
// in one page over the browser's own WebRTC stack, and the allocation check
// of the queue and Receive, and of Send on an open channel (zero in the
// browser too; a message delivered through onmessage allocates about 8
// times in syscall/js's event dispatch, not counted).
func TestWebRTCInChromium(t *testing.T) {
	// Compiling transport/webrtc's tests for js/wasm and running them in
	// the page took over 5 minutes on a loaded 2-core machine: the bound
	// is the test binary's deadline (less 20 s, to fail with a message).
	browser := Start(t, 9*time.Minute)
	out, status := GoTest(t, browser, "github.com/rollnet/rollnet/transport/webrtc",
		"^(TestConformanceInBrowser|TestLoopbackRoundTrip|TestSendAndReceiveErrors|TestRemoteCloseRemovesPeer|TestAllocsPerDatagram|TestAllocsBrowserSend)$", 9*time.Minute)
	t.Logf("transport/webrtc in Chromium:\n%s", out)
	require.Equal(t, 0, status)
	require.Contains(t, out, "--- PASS: TestConformanceInBrowser")
	require.Contains(t, out, "--- PASS: TestLoopbackRoundTrip")
	require.Contains(t, out, "--- PASS: TestAllocsPerDatagram")
	require.Contains(t, out, "--- PASS: TestAllocsBrowserSend")
}
