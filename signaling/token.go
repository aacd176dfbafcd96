package signaling

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Token returns a join token for room that expires at expiry, signed with
// secret: "EXPIRY.MAC", where EXPIRY is the Unix time in seconds and MAC is
// the unpadded base64url HMAC-SHA256 of "rollnet-signal/v1\n" + room + "\n"
// + EXPIRY. For next=N grouping the room is the string "next=N". A client
// passes it as the token query parameter:
//
//	ws://host/room/NAME?token=TOKEN
//	ws://host/room?next=2&token=TOKEN
func Token(secret []byte, room string, expiry time.Time) string {
	exp := strconv.FormatInt(expiry.Unix(), 10)
	return exp + "." + base64.RawURLEncoding.EncodeToString(tokenMAC(secret, room, exp))
}

func tokenMAC(secret []byte, room, exp string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("rollnet-signal/v1\n"))
	m.Write([]byte(room))
	m.Write([]byte("\n"))
	m.Write([]byte(exp))
	return m.Sum(nil)
}

var (
	errTokenMalformed = errors.New("malformed token")
	errTokenMAC       = errors.New("token signature does not match this room")
	errTokenExpired   = errors.New("token expired")
)

// maxTokenLen bounds what checkToken reads: a 19-digit expiry, a dot and
// 43 base64 characters fit well inside.
const maxTokenLen = 128

// checkToken verifies tok for room at time now.
func checkToken(secret []byte, room, tok string, now time.Time) error {
	if len(tok) > maxTokenLen {
		return errTokenMalformed
	}
	exp, mac, ok := strings.Cut(tok, ".")
	if !ok || exp == "" || exp[0] == '+' || exp[0] == '-' {
		return errTokenMalformed
	}
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return errTokenMalformed
	}
	// Strict: a MAC has one spelling. Lax decoding ignores the last
	// character's unused low bits, so four tokens would pass for one.
	got, err := base64.RawURLEncoding.Strict().DecodeString(mac)
	if err != nil {
		return errTokenMalformed
	}
	if !hmac.Equal(got, tokenMAC(secret, room, exp)) {
		return errTokenMAC
	}
	if !now.Before(time.Unix(unix, 0)) {
		return errTokenExpired
	}
	return nil
}
