// Package signalurl builds and redacts the URLs of a signaling server's
// rooms, for transport/webrtc's RoomDialer, netplay and the repository's
// binaries: the join URL of a room, and a URL or error with its room token
// hidden.
package signalurl

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/signaling/client"
)

// Room is the signaling join URL of room on the server at signal
// (ws://HOST:PORT or wss://HOST, with or without a path): signal's path
// with /room/ROOM after it, or /room?next=2 for an empty room (the next two
// joiners paired). A token (the server's room token) is sent as the token=
// query, from token or from signal's own query.
func Room(signal, room, token string) (string, error) {
	u, err := url.Parse(signal)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return "", fmt.Errorf("%w: Signal wants ws://HOST:PORT or wss://HOST, got %q", rollnet.ErrConfig, Redact(signal))
	}
	q := u.Query()
	if token != "" {
		q.Set("token", token)
	}
	if !strings.Contains(u.Path, "/room") {
		if room == "" {
			u.Path = strings.TrimRight(u.Path, "/") + "/room"
			q.Set("next", "2")
		} else {
			u.Path = strings.TrimRight(u.Path, "/") + "/room/" + room
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Redact is raw with its token= query value hidden, for errors and
// logs.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.Index(s, "token="); i >= 0 {
			return s[:i] + "token=REDACTED"
		}
		return s
	}
	q := u.Query()
	if q.Has("token") {
		q.Set("token", "REDACTED")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// RedactError is err with every copy of url in its text shown as
// Redact(url) (a signaling client's errors name the URL they dialed);
// it still unwraps to err.
func RedactError(err error, url string) error {
	if err == nil || !strings.Contains(err.Error(), "token=") {
		return err
	}
	return redacted{err, strings.ReplaceAll(err.Error(), url, Redact(url))}
}

type redacted struct {
	err error
	msg string
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }

// HandsOutTURN reports whether ice (a signaling server's ICE servers)
// names a TURN relay, which Config.Relay needs.
func HandsOutTURN(ice []client.ICEServer) bool {
	for _, s := range ice {
		for _, u := range s.URLs {
			if strings.HasPrefix(u, "turn:") || strings.HasPrefix(u, "turns:") {
				return true
			}
		}
	}
	return false
}
