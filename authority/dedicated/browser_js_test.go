package dedicated

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport/quic"
)

// Set by TestMatchOverQUICWebTransportAndWebRTC, which starts the host
// and this page.
var (
	wtURL    = flag.String("wt.url", "", "the host's WebTransport URL")
	wtHash   = flag.String("wt.hash", "", "the host's certificate hash")
	wtStates = flag.Int("wt.states", 120, "states to compare with the host's")
)

// TestBrowserAuthorityClient is the browser tab of the match: a line3
// client over the page's own WebTransport, checking every state it
// applies against the host's.
func TestBrowserAuthorityClient(t *testing.T) {
	if *wtURL == "" {
		t.Skip("run by TestMatchOverQUICWebTransportAndWebRTC")
	}
	pin, err := quic.ParseHash(*wtHash)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr, err := quic.DialWebTransport(ctx, *wtURL, quic.Config{PinSHA256: pin})
	require.NoError(t, err)
	defer tr.Close()
	agreed, err := playChecked(ctx, tr, tr.Host(), *wtStates, nil)
	require.NoError(t, err)
	fmt.Printf("browser: %d states agreed with the host's, as %s\n", agreed, tr.Local())
}
