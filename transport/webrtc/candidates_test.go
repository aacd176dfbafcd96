package webrtc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// singles is a pipe whose peers all take one candidate a signal, as the
// signaling client reports peers of protocol version 1 (a browser page).
type singles struct{ *pipe }

func (singles) takesCandidateArrays(string) bool { return false }

// TestCandidatesFollowDescription: every peer hears a Transport's offer or
// answer before any of its candidates (a browser's addIceCandidate refuses
// a candidate before the remote description: a page that hands candidates
// over as they come failed when gathering ended before the description
// was sent), and a peer that takes no arrays gets one candidate a signal.
func TestCandidatesFollowDescription(t *testing.T) {
	for _, arrays := range []bool{true, false} {
		t.Run(fmt.Sprintf("arrays=%t", arrays), func(t *testing.T) {
			h := newHub()
			var mu sync.Mutex
			kinds := map[string][]signalKind{} // by "from>to"
			var payloads [][]byte
			h.hold = func(from, to string, s signalMsg) bool {
				mu.Lock()
				defer mu.Unlock()
				kinds[from+">"+to] = append(kinds[from+">"+to], s.Kind)
				if s.Kind == signalCandidate {
					payloads = append(payloads, s.Payload)
				}
				return false
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			const rounds = 5
			for i := range rounds {
				ids := []string{fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)}
				trs := make([]*rtcTransport, 2)
				for j, id := range ids {
					var sig signaler = h.join(id)
					if !arrays {
						sig = singles{sig.(*pipe)}
					}
					tr, err := newOn(Config{LoopbackOnly: true}, sig)
					require.NoError(t, err)
					trs[j] = tr
				}
				for _, tr := range trs {
					_, err := tr.WaitPeers(ctx, 1)
					require.NoError(t, err, "the channel of round %d did not open within 20 s", i)
				}
				for _, tr := range trs {
					require.NoError(t, tr.Close())
				}
				for _, id := range ids {
					h.leave(id)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, kinds, 2*rounds)
			for pair, ks := range kinds {
				require.NotEmpty(t, ks, pair)
				require.Contains(t, []signalKind{signalOffer, signalAnswer}, ks[0], "%s: %v", pair, ks)
			}
			require.NotEmpty(t, payloads)
			for _, p := range payloads {
				var v any
				require.NoError(t, json.Unmarshal(p, &v))
				_, isArray := v.([]any)
				require.Equal(t, arrays, isArray, "%s", p)
			}
		})
	}
}
