package greeting

import "github.com/rollnet/rollnet/internal/wire"

// kind 5 roster, host to clients: who holds which slot, so that every
// client shows every player's name and who is away:
//
//	[count u8] then count × ([state u8] [come back within, s, u8] [name len u8] [name])
//
// state 0: the slot is free, 1: played, 2: its player is away. Only the
// first slots that fit one datagram are listed.
const KindRoster = 5

// RosterEntry is one slot of a roster.
type RosterEntry struct {
	State uint8
	Back  uint8 // seconds an away player may still come back
	Name  string
}

// appendRoster appends the roster message of es to b: only the first
// entries that fit one datagram.
func AppendRoster(b []byte, es []RosterEntry) []byte {
	at := len(b) + 2 // the count's byte
	b = append(b, AppByte, KindRoster, 0)
	n := 0
	for _, e := range es {
		if len(b)+3+len(e.Name) > wire.MaxPacket {
			break
		}
		b = append(b, e.State, e.Back, byte(len(e.Name)))
		b = append(b, e.Name...)
		n++
	}
	b[at] = byte(n)
	return b
}
