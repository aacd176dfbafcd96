package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/codec"
)

// -rejoin FILE in the authority mode. A host gives each client a rejoin
// token with its slot (authority.Client.RejoinToken); the client prints it
// and, with -rejoin, keeps it in FILE. A process killed and started again
// with the same -rejoin FILE gives it to its new client
// (authority.ClientConfig.Rejoin): within the host's grace window the host
// answers RESUME_ACCEPT and the same paddle, whose world starts from the
// host's next full state; after it, RESUME_REJECT and a fresh paddle
// (INITIAL_SYNC), whose token replaces the old one in FILE.

// parseToken reads a token's hex digits.
func parseToken(s string) (t authority.RejoinToken, err error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != codec.TokenLen {
		return t, fmt.Errorf("want %d hex digits", 2*codec.TokenLen)
	}
	copy(t[:], b)
	return t, nil
}

// readAuthToken returns the token kept in file, the zero token (join
// afresh) when file is empty or absent.
func readAuthToken(file string) (authority.RejoinToken, error) {
	if file == "" {
		return authority.RejoinToken{}, nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return authority.RejoinToken{}, nil
	}
	if err != nil {
		return authority.RejoinToken{}, fmt.Errorf("pong: -rejoin: %w", err)
	}
	t, err := parseToken(strings.TrimSpace(string(b)))
	if err != nil {
		return t, fmt.Errorf("pong: -rejoin %s: not a rejoin token (%w)", file, err)
	}
	return t, nil
}

// keepToken writes token into -rejoin's FILE, and says where it went for
// the log line that prints it.
func (m *authClient) keepToken(token authority.RejoinToken) string {
	if m.o.rejoin == "" {
		return " (with -rejoin FILE a restarted client takes its paddle back)"
	}
	if err := os.WriteFile(m.o.rejoin, []byte(hex.EncodeToString(token[:])+"\n"), 0o600); err != nil {
		return fmt.Sprintf(" (not kept: %v)", err)
	}
	return " kept in " + m.o.rejoin + " (started again with -rejoin " + m.o.rejoin + ", this client takes its paddle back)"
}
