package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/replay"
)

// recordSettings is a pong recording's settings hash: these rules,
// version 1 (the serve seed is in the recorded initial state).
const recordSettings = 0x706f6e67_00000001 // "pong", 1

// debugging is what a P2P player keeps for after the match: the -record
// file, and its last keptStates checksummed states (about 6 s), so that a
// desync's report names the field where the sides parted.
type debugging struct {
	f          *os.File
	w          *bufio.Writer
	r          *replay.Recorder[State, Input] // nil without -record
	seed       uint32
	side       int
	file, note string        // this side's state at the first desync, written; or why it could not be
	at         rollnet.Frame // its frame
}

const keptStates = 64

// debugTo sets up p's recording and forensics before the first frame.
func debugTo(p *p2p.Session[State, Input], o options, side int) (*debugging, error) {
	d := &debugging{seed: o.seed, side: side}
	if err := p.KeepStates(keptStates); err != nil || o.record == "" {
		return d, err
	}
	f, err := os.Create(o.record)
	if err != nil {
		return nil, fmt.Errorf("pong: -record: %w", err)
	}
	d.f, d.w = f, bufio.NewWriterSize(f, 64<<10)
	d.r, err = replay.NewRecorder[State, Input](replay.RecorderConfig{Players: 2, Settings: recordSettings, States: true}, d.w, p.State())
	if err == nil {
		err = p.SetRecorder(d.r)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("pong: -record: %w", err)
	}
	return d, nil
}

func (d *debugging) close() error {
	if d == nil || d.r == nil {
		return nil
	}
	if err := errors.Join(d.r.Close(), d.w.Flush(), d.f.Close()); err != nil {
		return fmt.Errorf("pong: -record: %w", err)
	}
	return nil
}

// stateFile is where a side writes its state of a desync's frame: both
// sides of the default run are on this machine, so each finds the other's.
func stateFile(seed uint32, side int, f rollnet.Frame) string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("pong-%08x-%s-frame%d.state", seed, sideName(side), f))
}

// desync writes this side's state of the first desync's frame.
func (d *debugging) desync(p *p2p.Session[State, Input], e rollnet.Event) {
	if d == nil || d.file != "" || d.note != "" {
		return
	}
	st, ok := p.KeptState(e.Frame)
	if !ok {
		d.note = fmt.Sprintf("the state of frame %d is no longer kept", e.Frame)
		return
	}
	name := stateFile(d.seed, d.side, e.Frame)
	f, err := os.Create(name)
	if err == nil {
		err = errors.Join(replay.WriteState(f, e.Frame, st), f.Close())
	}
	if err != nil {
		d.note = err.Error()
		return
	}
	d.file, d.at = name, e.Frame
}

// forensics is the report's line on the first desync: the field where
// the sides parted when the other's state file is on this machine, else
// where this side's is.
func (d *debugging) forensics() string {
	if d == nil {
		return ""
	} else if d.file == "" {
		return d.note
	}
	other := sideName(1 - d.side)
	ours, err1 := readState(d.file)
	theirs, err2 := readState(stateFile(d.seed, 1-d.side, d.at))
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Sprintf("frame %d: this side's state is in %s; compare it with the %s side's (%v)", d.at, d.file, other, err)
	}
	s, err := replay.DescribeDesync(ours, theirs, other)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("frame %d: %s", d.at, s)
}

func readState(name string) (*State, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_, s, err := replay.ReadState[State](bufio.NewReader(f))
	return s, err
}

// replayMatch is -replay on a terminal, checked frame by frame.
type replayMatch struct {
	p    *replay.Replayer[State, Input]
	name string
	err  error // the replay's end: io.EOF when every frame was checked
}

func (m *replayMatch) Side() int      { return -1 }
func (m *replayMatch) State() *State  { return m.p.State() }
func (m *replayMatch) Close() error   { return nil }
func (m *replayMatch) Report() report { return report{Role: "replay", Frames: int32(m.p.Frame())} }

func (m *replayMatch) Tick(Input) error {
	if m.err = m.p.AdvanceFrame(); m.err == io.EOF {
		return errQuit // the recording's end
	}
	return m.err
}

func (m *replayMatch) HUD() hud {
	f := int32(m.p.Frame())
	return hud{Title: "replay of " + m.name, Frame: f, Confirmed: f - 1, Compared: uint64(m.p.Checked()), Agreed: uint64(m.p.Checked())}
}

// runReplay is -replay: on screen, or headless at full speed; it prints
// ok or the first frame (and fields) that differ: exit 0, 1, or 3 when
// the file cannot be replayed.
func runReplay(ctx context.Context, o options, out, stderr io.Writer) int {
	f, err := os.Open(o.replay)
	if err != nil {
		fmt.Fprintf(stderr, "pong: -replay: %v\n", err)
		return exitFailure
	}
	defer f.Close()
	p, err := replay.NewReplayer[State, Input](replay.ReplayerConfig{Players: 2, Settings: recordSettings}, bufio.NewReader(f), simulate)
	if err != nil {
		fmt.Fprintf(stderr, "pong: -replay %s: %v\n", o.replay, err)
		return exitFailure
	}
	m := &replayMatch{p: p, name: o.replay}
	start := time.Now()
	if o.view == nil { // headless: check it at full speed
		m.err = p.Run()
	} else if o.frames = 0; play(ctx, m, o.view, o) != nil && m.err == io.EOF {
		m.err = nil
	}
	fmt.Fprintf(out, "pong replay of %s\n  frames replayed     %d in %v\n  checksums agreed    %d\n", o.replay, p.Frame(), time.Since(start).Round(time.Microsecond), p.Checked())
	var me *replay.MismatchError
	switch {
	case m.err == nil:
		fmt.Fprintf(out, "  result              ok\n")
		return exitOK
	case errors.As(m.err, &me):
		fmt.Fprintf(out, "  first difference    frame %d (last agreed: frame %d)\n", me.Frame, me.LastAgreed)
		for _, d := range me.Fields {
			fmt.Fprintf(out, "                      %s: %s recorded, %s replayed\n", d.Path, d.A, d.B)
		}
		if me.Differ > len(me.Fields) {
			fmt.Fprintf(out, "                      %d other fields differ\n", me.Differ-len(me.Fields))
		}
		fmt.Fprintf(out, "  result              FAILED: the replay differs from the recording\n")
		return exitDesync
	}
	fmt.Fprintf(out, "  result              FAILED: %v\n", m.err)
	return exitFailure
}
