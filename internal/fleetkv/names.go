package fleetkv

import "strings"

// Limits of a host record's and a request's fields.
const (
	MaxID      = 64
	MaxName    = 32 // a game's name, a version
	MaxRoom    = 32 // as tokenwire.MaxRoom: the room rides in the token
	MaxGames   = 16
	MaxAddress = 64 // as tokenwire.MaxAddress
)

// ValidName reports whether s is 1 to max letters, digits, '-' or '_'
// (a key token of the bucket is one such name).
func ValidName(s string, max int) bool {
	return validChars(s, max, false)
}

// ValidVersion is ValidName with '.' allowed inside.
func ValidVersion(s string) bool {
	return validChars(s, MaxName, true) && !strings.HasPrefix(s, ".") && !strings.HasSuffix(s, ".")
}

func validChars(s string, max int, dot bool) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || dot && r == '.') {
			return false
		}
	}
	return true
}

// RoomValue is a room key's value: the host its match is on.
type RoomValue struct {
	Host string `json:"host"`
}

// HostKey and RoomKey are the bucket's keys: "host.<id>" and
// "room.<game>.<room>", each name one key token.
func HostKey(id string) string { return "host." + id }

// RoomKey is a room's key: "room.<game>.<room>".
//
// DrainKey is a host's drain order: "drain.<id>", written by an operator
// (the value is not read; a write newer than the host's joining drains it).
func RoomKey(game, room string) string { return "room." + game + "." + room }

// DrainKey is host id's drain order key: "drain.<id>".
func DrainKey(id string) string { return "drain." + id }

// Drain is a drain order's value.
type Drain struct {
	// Ordered is when the operator wrote it (Unix ms, the operator's
	// clock; for people, the host reads only the key's revision).
	Ordered int64 `json:"ordered"`
}
