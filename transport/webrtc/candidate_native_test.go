//go:build !js

package webrtc

import (
	"testing"

	pion "github.com/pion/webrtc/v4"
	"github.com/stretchr/testify/require"
)

// TestCandidateType: a server-reflexive candidate equal to its base (no
// NAT: a host on a public address) counts as the host candidate it is, so
// a pair ICE selected through it reads pathDirect; a mapped one stays
// srflx, and the other types are as pion names them.
func TestCandidateType(t *testing.T) {
	unmapped := &pion.ICECandidate{Typ: pion.ICECandidateTypeSrflx, Address: "198.51.100.7", Port: 4000, RelatedAddress: "198.51.100.7", RelatedPort: 4000}
	mapped := &pion.ICECandidate{Typ: pion.ICECandidateTypeSrflx, Address: "203.0.113.9", Port: 61000, RelatedAddress: "10.0.0.2", RelatedPort: 4000}
	remapped := &pion.ICECandidate{Typ: pion.ICECandidateTypeSrflx, Address: "198.51.100.7", Port: 61000, RelatedAddress: "198.51.100.7", RelatedPort: 4000}
	host := &pion.ICECandidate{Typ: pion.ICECandidateTypeHost, Address: "198.51.100.8", Port: 5000}
	require.Equal(t, "host", candidateType(unmapped))
	require.Equal(t, "srflx", candidateType(mapped))
	require.Equal(t, "srflx", candidateType(remapped), "a port-translating NAT maps the port alone")
	require.Equal(t, "host", candidateType(host))
	require.Equal(t, pathDirect, pathOf(candidateType(host), candidateType(unmapped)))
	require.Equal(t, pathSTUN, pathOf(candidateType(host), candidateType(mapped)))
}
