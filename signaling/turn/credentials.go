package turn

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	pionturn "github.com/pion/turn/v5"

	"github.com/rollnet/rollnet/signaling/internal/turncred"
)

// maxUsernameLen bounds the username the relay parses: a 19-digit expiry,
// a colon and a signaling id fit well inside.
const maxUsernameLen = 128

// credential is a parsed TURN REST username: "EXPIRY:USER".
type credential struct {
	expiry time.Time
	user   string
}

// parseUsername parses a TURN REST username, refusing anything that is
// not exactly what the signaling server mints (so one credential has
// one spelling).
func parseUsername(username string) (credential, error) {
	if len(username) > maxUsernameLen {
		return credential{}, fmt.Errorf("%w: username of %d bytes", errCredentials, len(username))
	}
	exp, user, ok := strings.Cut(username, ":")
	if !ok || user == "" || exp == "" || exp[0] < '1' || exp[0] > '9' {
		return credential{}, fmt.Errorf("%w: username is not EXPIRY:ID", errCredentials)
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || strconv.FormatInt(unix, 10) != exp {
		return credential{}, fmt.Errorf("%w: username is not EXPIRY:ID", errCredentials)
	}
	return credential{expiry: time.Unix(unix, 0), user: user}, nil
}

// authKey returns the long-term credential key of username in realm if the
// username is well formed and unexpired at now. The password it derives is
// the REST scheme's HMAC, so a client holding a forged password fails
// pion's MESSAGE-INTEGRITY check with this key.
func authKey(secret []byte, username, realm string, now time.Time) ([]byte, credential, error) {
	c, err := parseUsername(username)
	if err != nil {
		return nil, c, err
	}
	if !now.Before(c.expiry) {
		return nil, c, fmt.Errorf("%w: %w at %v", errCredentials, errExpired, c.expiry.UTC())
	}
	_, password := turncred.Mint(secret, c.user, c.expiry)
	return pionturn.GenerateAuthKey(username, realm, password), c, nil
}
