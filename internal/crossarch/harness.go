package crossarch

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/replay"
)

// Match is a scripted match: a simulation, its initial state and players
// whose inputs depend only on the state and the frame (bots), so the
// recording is the same on every run.
type Match[S any, I comparable] struct {
	Name     string // the recording's file name, without extension
	Settings uint64 // the game's settings hash, recorded and checked
	Players  int
	Frames   int
	Initial  S
	Simulate func(s *S, inputs []I, frame rollnet.Frame)
	// Inputs fills every player's input for frame, from the state before it.
	Inputs func(s *S, frame rollnet.Frame, inputs []I)
}

// Record plays m and writes its recording to w, with states, so that a
// replay that differs names the fields.
func Record[S any, I comparable](w io.Writer, m Match[S, I]) error {
	s := m.Initial
	r, err := replay.NewRecorder[S, I](replay.RecorderConfig{Players: m.Players, Settings: m.Settings, States: true}, w, &s)
	if err != nil {
		return err
	}
	in := make([]I, m.Players)
	for f := range rollnet.Frame(m.Frames) {
		m.Inputs(&s, f, in)
		m.Simulate(&s, in, f)
		if err := r.Record(in, &s); err != nil {
			return err
		}
	}
	return r.Close()
}

// Replay replays a recording of m with simulate (m.Simulate if nil) and
// returns the frames replayed and the checksums that matched, and the
// replay's error (a *replay.MismatchError when it differs).
func Replay[S any, I comparable](r io.Reader, m Match[S, I], simulate func(*S, []I, rollnet.Frame)) (frames, checked int, err error) {
	if simulate == nil {
		simulate = m.Simulate
	}
	p, err := replay.NewReplayer[S, I](replay.ReplayerConfig{Settings: m.Settings, Players: m.Players}, r, simulate)
	if err != nil {
		return 0, 0, err
	}
	err = p.Run()
	return int(p.Frame()), p.Checked(), err
}

// Mode is what the environment asks of a cross-architecture test.
type Mode struct {
	Record string // ROLLNET_CROSSARCH_RECORD: the directory to record into
	Replay string // ROLLNET_CROSSARCH_REPLAY: the directory to replay from
}

// ModeFromEnv reads the mode from the environment.
func ModeFromEnv() Mode {
	return Mode{Record: os.Getenv("ROLLNET_CROSSARCH_RECORD"), Replay: os.Getenv("ROLLNET_CROSSARCH_REPLAY")}
}

// Recording returns the recording of m the mode asks to replay: recorded
// now and written to the record directory (record mode), read from the
// replay directory (replay mode), or recorded now in memory.
func Recording[S any, I comparable](mode Mode, m Match[S, I]) ([]byte, error) {
	if mode.Replay != "" {
		return os.ReadFile(filepath.Join(mode.Replay, m.Name+".rnr"))
	}
	var buf bytes.Buffer
	if err := Record(&buf, m); err != nil {
		return nil, fmt.Errorf("record %s: %w", m.Name, err)
	}
	if mode.Record != "" {
		if err := os.WriteFile(filepath.Join(mode.Record, m.Name+".rnr"), buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
