// Package turncred mints TURN credentials in the TURN REST API scheme
// (coturn's use-auth-secret with static-auth-secret = secret): the
// signaling server hands them out at join, and package turn checks them.
package turncred

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"strconv"
	"time"
)

// Mint returns a TURN username and credential for user that expire at
// expiry: username "EXPIRY:user", credential the standard base64
// HMAC-SHA1 of the username.
func Mint(secret []byte, user string, expiry time.Time) (username, credential string) {
	username = strconv.FormatInt(expiry.Unix(), 10) + ":" + user
	m := hmac.New(sha1.New, secret)
	m.Write([]byte(username))
	return username, base64.StdEncoding.EncodeToString(m.Sum(nil))
}
