package netplay

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// Token is what a player needs to come back into its match after its
// process died: the match's room, the player's seat and its rejoin token
// (a P2P player's, or the one an authoritative client's host gave it).
// Keep it secret (it lets its holder take the seat). It implements
// encoding.TextMarshaler: "rn1." and base64url, one line.
type Token struct {
	Mode   Mode
	Room   string
	Seat   int // the P2P seat; the first slot of an authoritative client
	Rejoin rollnet.RejoinToken
}

const tokenPrefix = "rn1."

// tokenFixed: mode, seat, match id, secret, host token, room length. A
// P2P player's Rejoin fills the match id and the secret, an authoritative
// client's (Match 0) the host token; the other part is zero.
const tokenFixed = 1 + 1 + 8 + wire.SecretLen + wire.TokenLen + 1

// MarshalText encodes t on one line.
func (t Token) MarshalText() ([]byte, error) {
	if len(t.Room) > 255 || t.Seat < 0 || t.Seat > 255 {
		return nil, fmt.Errorf("%w: room or seat out of range", ErrToken)
	}
	b := make([]byte, 0, tokenFixed+len(t.Room))
	b = append(b, byte(t.Mode), byte(t.Seat))
	var p2pPart, hostPart rollnet.RejoinToken
	if t.Mode == ModeP2P {
		p2pPart = t.Rejoin
	} else {
		hostPart = t.Rejoin
	}
	b = binary.LittleEndian.AppendUint64(b, p2pPart.Match)
	b = append(b, p2pPart.Secret[:]...)
	b = append(b, hostPart.Secret[:]...)
	b = append(b, byte(len(t.Room)))
	b = append(b, t.Room...)
	out := make([]byte, len(tokenPrefix), len(tokenPrefix)+base64.RawURLEncoding.EncodedLen(len(b)))
	copy(out, tokenPrefix)
	return base64.RawURLEncoding.AppendEncode(out, b), nil
}

// UnmarshalText decodes what MarshalText wrote; anything else is ErrToken.
func (t *Token) UnmarshalText(text []byte) error {
	if len(text) < len(tokenPrefix) || string(text[:len(tokenPrefix)]) != tokenPrefix {
		return fmt.Errorf("%w: no %q prefix", ErrToken, tokenPrefix)
	}
	b, err := base64.RawURLEncoding.DecodeString(string(text[len(tokenPrefix):]))
	if err != nil || len(b) < tokenFixed || len(b) != tokenFixed+int(b[tokenFixed-1]) {
		return fmt.Errorf("%w: bad length or encoding", ErrToken)
	}
	var u Token
	u.Mode, u.Seat = Mode(b[0]), int(b[1])
	if u.Mode < ModeP2P || u.Mode > ModeClient {
		return fmt.Errorf("%w: mode %d", ErrToken, b[0])
	}
	n := 10
	if u.Mode == ModeP2P {
		u.Rejoin.Match = binary.LittleEndian.Uint64(b[2:])
		copy(u.Rejoin.Secret[:], b[n:])
	} else {
		copy(u.Rejoin.Secret[:], b[n+wire.SecretLen:])
	}
	n += wire.SecretLen + wire.TokenLen
	u.Room = string(b[n+1:])
	*t = u
	return nil
}

// TokenStore keeps a player's token between processes: a Match saves its
// token once it has one, deletes it when the match ends, and a new Match
// for the same room loads it and rejoins. Load reports ok false when it
// holds no token for room.
type TokenStore interface {
	Load(room string) (t Token, ok bool, err error)
	Save(t Token) error
	Delete(room string) error
}

// FileStore keeps one token in the file at path (mode 0600, written
// atomically: a temporary file in the same directory, synced, then
// renamed over it). Load finds no token in a missing file, or in one that
// holds another room's; Delete removes the file if it holds room's token.
func FileStore(path string) TokenStore { return fileStore{path} }

// fileStore is FileStore's.
type fileStore struct{ Path string }

// Load reads the token; a missing file, or a token of another room, is no
// token.
func (s fileStore) Load(room string) (Token, bool, error) {
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Token{}, false, nil
	}
	if err != nil {
		return Token{}, false, err
	}
	var t Token
	if err := t.UnmarshalText(trimSpace(b)); err != nil {
		return Token{}, false, fmt.Errorf("%s: %w", s.Path, err)
	}
	return t, t.Room == room, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// Save writes t.
func (s fileStore) Save(t Token) error {
	text, err := t.MarshalText()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(s.Path), "."+filepath.Base(s.Path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(append(text, '\n'))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.Path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// Delete removes the file if it holds room's token.
func (s fileStore) Delete(room string) error {
	if _, ok, err := s.Load(room); err != nil || !ok {
		return err
	}
	err := os.Remove(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
