package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// -rejoin FILE: a P2P player whose process dies comes back into its match.
//
// While playing, as soon as the session has its rejoin token
// (session.P2P.RejoinToken, shortly after the match starts), the player
// writes FILE: the token, its side, the room, the opponent's signaling id,
// the names and the settings a restart must repeat. A process started
// with the same flags that finds FILE joins the same room, sets
// P2PConfig.Rejoin from it, replays the match without drawing ("rejoining:
// frame X of ~Y") and plays on with the same paddle from the frame the
// players agree on (R). A refusal (*session.RejoinError: the wrong match,
// the window is over) prints its reason in one line, removes FILE and
// exits with exitRejoinRefused. FILE is removed when the match ends (its
// frame budget, q, the opponent gone for good); it stays when the process
// dies, which is its point.
//
// The survivor, when it has -rejoin too, keeps playing when its opponent
// vanishes (the opponent's input frozen), counts down the rejoin window on
// its screen and in its report, and only when the window passes ends the
// match as vanished (exit 4). An opponent that quit (its session said
// goodbye) is not waited for.

// never is a frame no match reaches.
const never = rollnet.Frame(math.MaxInt32)

// rejoinWindow is how long after the opponent vanished it may come back
// (NetConfig.RejoinWindow), counted from its disconnection.
const rejoinWindow = 60 * time.Second

// holdNewPeer is how long the left player with -rejoin, while its
// opponent may rejoin (silent or dropped), holds a peer that connects
// before taking it for a spectator: a restarted opponent connects the
// same way, and proves who it is within a round trip or two of the
// session admitting strangers. probation is how long it holds one while
// the opponent plays on: a process restarted at once may connect before
// the old one is even silent (the session lets strangers in after
// DisconnectNotify, 750 ms of silence); a spectator it held starts that
// much later.
const (
	holdNewPeer = 10 * time.Second
	probation   = 2 * time.Second
)

// rejoinFormat and rejoinVersion name FILE's format.
const (
	rejoinFormat  = "rollnet-pong-rejoin"
	rejoinVersion = 1
)

// rejoinFile is FILE's content (JSON).
type rejoinFile struct {
	Format   string    `json:"format"`   // rejoinFormat
	Version  int       `json:"version"`  // rejoinVersion
	Room     string    `json:"room"`     // the signaling room
	Side     int       `json:"side"`     // 0 left, 1 right
	Opponent string    `json:"opponent"` // the opponent's signaling id
	Names    [2]string `json:"names"`    // the players' names by side
	Delay    int       `json:"delay"`    // -delay
	FPS      int       `json:"fps"`      // -fps
	Seed     uint32    `json:"seed"`     // the serve seed
	Match    string    `json:"match"`    // the match id, 16 hex digits
	Secret   string    `json:"secret"`   // this player's rejoin secret, hex
}

// token is the session's token f carries (checked by readRejoin).
func (f *rejoinFile) token() session.RejoinToken {
	var t session.RejoinToken
	b, _ := hex.DecodeString(f.Match)
	for _, c := range b {
		t.Match = t.Match<<8 | uint64(c)
	}
	s, _ := hex.DecodeString(f.Secret)
	copy(t.Secret[:], s)
	return t
}

// newRejoinFile is what m writes for tok.
func newRejoinFile(m *netMatch, tok session.RejoinToken) rejoinFile {
	return rejoinFile{
		Format: rejoinFormat, Version: rejoinVersion,
		Room: m.o.room, Side: m.side, Opponent: string(m.peer), Names: m.names,
		Delay: m.o.delay, FPS: m.o.fps, Seed: m.o.seed,
		Match:  fmt.Sprintf("%016x", tok.Match),
		Secret: hex.EncodeToString(tok.Secret[:]),
	}
}

// readRejoin reads FILE for o: nil if there is none. A file that is not
// one, or one of another room or other settings, is a *usageErr.
func readRejoin(o options) (*rejoinFile, error) {
	b, err := os.ReadFile(o.rejoin)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, usageError("-rejoin: %v", err)
	}
	bad := func(why string, args ...any) error {
		return usageError("-rejoin %s: %s", o.rejoin, fmt.Sprintf(why, args...))
	}
	var f rejoinFile
	if err := json.Unmarshal(b, &f); err != nil || f.Format != rejoinFormat {
		return nil, bad("not a pong rejoin file")
	}
	switch m, s := decodeHex(f.Match), decodeHex(f.Secret); {
	case f.Version != rejoinVersion:
		return nil, bad("format version %d, this pong reads %d", f.Version, rejoinVersion)
	case f.Side != 0 && f.Side != 1, len(m) != 8, len(s) != codec.SecretLen, f.Opponent == "":
		return nil, bad("damaged (side, match, secret or opponent)")
	case f.Room != o.room:
		return nil, bad("written for room %q, not %q", f.Room, o.room)
	case f.Delay != o.delay || f.FPS != o.fps || (o.seed != 0 && f.Seed != o.seed):
		return nil, bad("written with -delay %d -fps %d -seed %d: start with the same flags", f.Delay, f.FPS, f.Seed)
	}
	for _, n := range f.Names {
		if n != "" && !validName(n) {
			return nil, bad("damaged (names)")
		}
	}
	return &f, nil
}

// decodeHex is s's bytes, nil if s is not hex.
func decodeHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// writeRejoin writes f to path atomically (a temporary file renamed over
// it), readable by its owner only.
func writeRejoin(path string, f rejoinFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	err = errors.Join(err, tmp.Chmod(0o600), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// rejoining is a netMatch's part in -rejoin.
type rejoining struct {
	path   string      // FILE; "" without -rejoin
	back   *rejoinFile // the FILE this process came back with, nil if none
	saved  rejoinFile  // what FILE holds now, as written by this process
	wrote  bool
	failed string // why FILE could not be written, once

	// Our own return (back != nil).
	progressAt time.Time // the last progress line
	askedAt    time.Time // the first tick asking to come back
	asking     bool      // the last progress line was the request's
	rejoinedAt rollnet.Frame
	refused    *session.RejoinError

	// The opponent's.
	droppedAt    time.Time // when it was declared disconnected while rejoin was possible; zero otherwise
	droppedFrame rollnet.Frame
	news         []string // the report's lines: dropped, rejoined
	held         []heldPeer
}

// heldPeer is a peer that connected while the opponent could rejoin.
type heldPeer struct {
	peer transport.Peer
	at   time.Time
}

// on reports whether this player has -rejoin.
func (r *rejoining) on() bool { return r.path != "" }

// save writes FILE once the session has a token, and again when what it
// says changed (the opponent's address after a rejoin of its own).
func (m *netMatch) saveRejoin() {
	r := &m.rj
	if !r.on() || r.failed != "" || m.p.Frame() == 0 {
		return
	}
	if r.wrote && string(m.peer) == r.saved.Opponent {
		return // the same as written (no allocation per frame)
	}
	tok, ok := m.p.RejoinToken()
	if !ok {
		return
	}
	f := newRejoinFile(m, tok)
	if err := writeRejoin(r.path, f); err != nil {
		r.failed = fmt.Sprintf("-rejoin: %v", err)
		m.note = "pong: " + r.failed
		m.logf("pong: %s", r.failed)
		return
	}
	if !r.wrote && r.back == nil {
		m.logf("pong: rejoin token saved in %s", r.path)
	}
	r.saved, r.wrote = f, true
}

// refused ends the match on a refused rejoin (a *session.RejoinError in
// err; out of Tick's switch, where its pointer would be allocated every
// frame).
func (m *netMatch) refused(err error) {
	var re *session.RejoinError
	if errors.As(err, &re) {
		m.rj.refused = re
	}
	m.err = err
}

// removeRejoin removes FILE: the match is over for this player.
func (m *netMatch) removeRejoin() {
	if m.rj.on() {
		_ = os.Remove(m.rj.path)
	}
}

// rejoinEvent handles the session's rejoin events; it reports whether e
// was one.
func (m *netMatch) rejoinEvent(e rollnet.Event) bool {
	r := &m.rj
	switch e.Kind {
	case rollnet.EventPlayerRejoining:
		if e.Player == m.side {
			return true // our own: the catch-up's progress says it
		}
		if e.Peer != "" && e.Peer != m.peer {
			m.peer = e.Peer // it came back from a new address
			r.unhold(e.Peer)
		}
		r.droppedAt = time.Time{}
		m.silentSince, m.left = time.Time{}, ""
		m.note = fmt.Sprintf("%s is rejoining at frame %d", sideName(1-m.side), e.Frame)
		m.logf("pong: %s", m.note)
	case rollnet.EventPlayerRejoined:
		msg := fmt.Sprintf("%s rejoined at frame %d", sideName(e.Player), e.Frame)
		if e.Player == m.side {
			st := m.p.RejoinStats()
			r.rejoinedAt = e.Frame
			msg = fmt.Sprintf("rejoined at frame %d: replayed %d frames in %v", e.Frame, st.Replayed, st.CatchUp.Round(time.Millisecond))
			m.sumNext = nextSum(e.Frame)
		}
		m.note = msg
		r.news = append(r.news, msg)
		m.logf("pong: %s", msg)
	default:
		return false
	}
	return true
}

// opponentDropped handles the opponent's disconnection when this player
// has -rejoin: one that vanished may come back within rejoinWindow, and
// the match goes on meanwhile (its paddle's input frozen). It reports
// whether the match goes on.
func (m *netMatch) opponentDropped(f rollnet.Frame) bool {
	r := &m.rj
	if !r.on() || m.silentSince.IsZero() {
		return false // no -rejoin, or it quit: not coming back
	}
	r.droppedAt, r.droppedFrame = m.now(), f
	msg := fmt.Sprintf("%s dropped at frame %d (nothing heard from it for %v) — can rejoin for %d s", sideName(1-m.side), f,
		m.now().Sub(m.silentSince).Round(100*time.Millisecond), int(rejoinWindow/time.Second))
	r.news = append(r.news, msg)
	m.logf("pong: %s", msg)
	return true
}

// rejoinWait is the screen's note while the opponent may rejoin, ""
// otherwise.
func (m *netMatch) rejoinWait() string {
	r := &m.rj
	if r.droppedAt.IsZero() {
		return ""
	}
	left := max(rejoinWindow-m.now().Sub(r.droppedAt), 0)
	return fmt.Sprintf("%s dropped — can rejoin for %d s", sideName(1-m.side), int((left+time.Second-1)/time.Second))
}

// expireRejoin ends the match as vanished once the opponent's rejoin
// window passed.
func (m *netMatch) expireRejoin() {
	r := &m.rj
	if r.droppedAt.IsZero() || m.now().Sub(r.droppedAt) < rejoinWindow {
		return
	}
	r.droppedAt = time.Time{}
	m.left = fmt.Sprintf("the opponent vanished: declared disconnected at frame %d, and did not rejoin within %v", r.droppedFrame, rejoinWindow)
	r.news = append(r.news, fmt.Sprintf("%s did not rejoin within %v", sideName(1-m.side), rejoinWindow))
	m.note = m.left
	m.gone = true
}

// catchUpNote is the progress of our own return, "" when not coming back
// or back.
func (m *netMatch) catchUpNote() string {
	r := &m.rj
	if r.back == nil || r.rejoinedAt != 0 || r.refused != nil {
		return ""
	}
	st := m.p.RejoinStats()
	if st.Frame == rollnet.NoFrame {
		return fmt.Sprintf("rejoining: asking %s to take us back", m.nameOf(1-m.side, m.peer))
	}
	return fmt.Sprintf("rejoining: frame %d of ~%d", m.p.Frame(), st.Frame)
}

// rejoinProgress writes the catch-up's progress line (asking, once; the
// frame, at most once a second), and gives up when nobody answers our requests within
// syncTimeout (the opponent is gone too).
func (m *netMatch) rejoinProgress() {
	r := &m.rj
	if r.back != nil && r.askedAt.IsZero() {
		r.askedAt = m.now()
	}
	if r.back != nil && m.p.RejoinStats().Frame == rollnet.NoFrame && m.now().Sub(r.askedAt) > syncTimeout {
		m.err = fmt.Errorf("pong: -rejoin: the opponent did not answer within %v", syncTimeout)
		return
	}
	note := m.catchUpNote()
	asking := m.p.RejoinStats().Frame == rollnet.NoFrame
	if note == "" || asking == r.asking && (asking || m.now().Sub(r.progressAt) < time.Second) {
		return // the request once, the catch-up's frame once a second
	}
	r.progressAt, r.asking = m.now(), asking
	m.logf("pong: %s", note)
}

// hold keeps peer, connected at now, until it proves to be the opponent
// coming back or holdNewPeer passes.
func (r *rejoining) hold(peer transport.Peer, now time.Time) {
	r.held = append(r.held, heldPeer{peer: peer, at: now})
}

// unhold forgets peer: it was the opponent.
func (r *rejoining) unhold(peer transport.Peer) {
	for i, h := range r.held {
		if h.peer == peer {
			r.held = append(r.held[:i], r.held[i+1:]...)
			return
		}
	}
}

// mayRejoin reports whether the opponent may be about to come back: this
// player has -rejoin and the opponent is silent or dropped.
func (m *netMatch) mayRejoin() bool {
	return m.rj.on() && (!m.rj.droppedAt.IsZero() || !m.silentSince.IsZero())
}

// released appends the held peers that are spectators after all (held
// long enough) to dst.
func (m *netMatch) released(dst []transport.Peer) []transport.Peer {
	r, now := &m.rj, m.now()
	k := 0
	for _, h := range r.held {
		if h.peer == m.peer {
			continue // the opponent, back (its event said so first)
		}
		if held := now.Sub(h.at); held >= holdNewPeer || held >= probation && !m.mayRejoin() {
			dst = append(dst, h.peer)
			continue
		}
		r.held[k] = h
		k++
	}
	r.held = r.held[:k]
	return dst
}

// nextSum is the first frame at or after f whose checksum is printed.
func nextSum(f rollnet.Frame) rollnet.Frame {
	return (f + printEvery - 1) / printEvery * printEvery
}

// printSums prints the checksums of the confirmed frames due, printEvery
// frames apart like the authority mode's: the process test compares them
// across a rejoin.
func (m *netMatch) printSums() {
	if !m.rj.on() || m.out == nil {
		return
	}
	c := min(m.p.ConfirmedFrame(), m.p.Frame()-1)
	for ; m.sumNext <= c; m.sumNext += printEvery {
		crc, err := m.p.ChecksumAt(m.sumNext)
		if err != nil {
			continue
		}
		m.printSum(m.sumNext, crc)
	}
}

// rejoinReport adds -rejoin's lines to r.
func (m *netMatch) rejoinReport(r *report) {
	r.Rejoins = m.rj.news
	if w := m.rejoinWait(); w != "" {
		r.Rejoins = append(r.Rejoins, fmt.Sprintf("%s still away when the match ended (%s)", sideName(1-m.side), w))
	}
	if m.rj.refused != nil {
		r.Refused = fmt.Sprintf("pong: rejoin refused by the %s player: %s (%s removed)", sideName(1-m.side), m.rj.refused.Reason, m.rj.path)
	}
}

// rejoinRoom is connect's joined for a player coming back: its opponent
// is the one FILE names, which must still be in the room (the room may
// also list this player's dead process until the server notices).
func rejoinRoom(c *conn, o options, stdout io.Writer) error {
	if !slices.Contains(c.sig.Peers(), o.back.Opponent) {
		return fmt.Errorf("%w: the opponent (%s) is no longer in room %s, so its match is over (%s removed; start again to play a new one)",
			errMatchOver, short(transport.Peer(o.back.Opponent)), c.room, o.rejoin)
	}
	c.peer = transport.Peer(o.back.Opponent)
	o.say(stdout, "pong: in room %s on %s; rejoining the match as %s", c.room, netplay.RedactURL(o.signal), sideName(o.back.Side))
	return nil
}
