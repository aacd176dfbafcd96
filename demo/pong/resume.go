package main

import (
	"encoding/hex"
	"fmt"

	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/codec"
)

// -resume across processes. A host gives each client a rejoin token with
// its slot; the client prints it (authority.Client.RejoinToken). A process
// killed and started again with -resume TOKEN gives it to its new client
// (authority.ClientConfig.Rejoin): within the host's grace window the host
// answers RESUME_ACCEPT and the same paddle, whose world starts from the
// host's next full state; after it, RESUME_REJECT and a fresh paddle
// (INITIAL_SYNC).

// parseToken reads -resume's hex token.
func parseToken(s string) (t authority.RejoinToken, err error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != codec.TokenLen {
		return t, fmt.Errorf("want %d hex digits", 2*codec.TokenLen)
	}
	copy(t[:], b)
	return t, nil
}
