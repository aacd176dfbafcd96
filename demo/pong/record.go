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
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/session"
)

// recordSettings is what a pong recording's settings hash says: this
// game's rules, version 1. The serve seed is in the recorded initial state.
const recordSettings = 0x706f6e67_00000001 // "pong", 1

// debugging is what a player side keeps for after the match: the
// -record file, and the states of the last checksummed frames (the
// session's KeepStates, 64 states of 56 bytes) so that a desync's report
// names the field where the two sides parted.
type debugging struct {
	f *os.File
	w *bufio.Writer
	r *replay.Recorder[State, Input] // nil without -record

	seed       uint32
	side       int
	desyncFile string        // this side's state at the first desync, written
	desyncAt   rollnet.Frame // its frame
	note       string        // why the forensics could not be done
}

// keptStates is how many checksummed frames' states a side keeps: at one
// every checksumInterval frames, about 6 s at 60 fps, more than a round
// trip and the report's wait.
const keptStates = 64

// debugTo sets up p's recording (o.record) and desync forensics. Call it
// once the initial state is in place, before the first frame.
func debugTo(p *session.P2P[State, Input], o options, side int) (*debugging, error) {
	d := &debugging{seed: o.seed, side: side}
	if err := p.KeepStates(keptStates); err != nil {
		return nil, err
	}
	if o.record == "" {
		return d, nil
	}
	f, err := os.Create(o.record)
	if err != nil {
		return nil, fmt.Errorf("pong: -record: %w", err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	r, err := replay.NewRecorder[State, Input](replay.RecorderConfig{Players: 2, Settings: recordSettings, States: true}, w, p.State())
	if err == nil {
		err = p.SetRecorder(r)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("pong: -record: %w", err)
	}
	d.f, d.w, d.r = f, w, r
	return d, nil
}

// close ends the recording, if any, and closes its file.
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

// desync writes this side's state of the first desync's frame to its
// state file.
func (d *debugging) desync(p *session.P2P[State, Input], e rollnet.Event) {
	if d == nil || d.desyncFile != "" || d.note != "" {
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
	d.desyncFile, d.desyncAt = name, e.Frame
}

// forensics is the report's line on the first desync: the field where
// the two sides parted, when the other side's state file is on this
// machine; else where this side's state is.
func (d *debugging) forensics() string {
	if d == nil || (d.desyncFile == "" && d.note == "") {
		return ""
	}
	if d.note != "" {
		return d.note
	}
	other := sideName(1 - d.side)
	ours, err1 := readState(d.desyncFile)
	theirs, err2 := readState(stateFile(d.seed, 1-d.side, d.desyncAt))
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Sprintf("frame %d: this side's state is in %s; compare it with the %s side's (%v)", d.desyncAt, d.desyncFile, other, err)
	}
	s, err := replay.DescribeDesync(ours, theirs, other)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("frame %d: %s", d.desyncAt, s)
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

// replayMatch is -replay on a terminal: the recorded match played back on
// screen at -fps, checked frame by frame. It is a match for play.
type replayMatch struct {
	p    *replay.Replayer[State, Input]
	name string
	err  error // the replay's end: io.EOF when every frame was checked
}

// errReplayEnd ends play at the recording's last frame.
var errReplayEnd = errors.New("end of the recording")

func (m *replayMatch) Side() int     { return -1 }
func (m *replayMatch) State() *State { return m.p.State() }
func (m *replayMatch) Close() error  { return nil }

func (m *replayMatch) Tick(Input) error {
	if m.err = m.p.AdvanceFrame(); m.err == io.EOF {
		return errReplayEnd
	}
	return m.err
}

func (m *replayMatch) HUD() hud {
	f := int32(m.p.Frame())
	return hud{Title: "replay of " + m.name, Frame: f, Confirmed: f - 1,
		Compared: uint64(m.p.Checked()), Agreed: uint64(m.p.Checked())}
}

func (m *replayMatch) Report() report { return report{Role: "replay", Frames: int32(m.p.Frame())} }

// runReplay is -replay: it plays the recording back, on screen or
// headless at full speed, and prints ok or the first frame that differs
// and, the recording holding states, the fields. Exit status 0 when every
// checksum agreed, 1 when the replay differs, 3 when the file cannot be
// replayed.
func runReplay(ctx context.Context, o options, stdout, stderr io.Writer) int {
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
	} else {
		o.frames = 0
		_ = play(ctx, m, o.view, o)
		if m.err == io.EOF {
			m.err = nil
		}
	}
	return replayResult(stdout, o.replay, p.Frame(), p.Checked(), time.Since(start), m.err)
}

// replayResult prints the replay's outcome and returns the exit status.
func replayResult(out io.Writer, name string, frames rollnet.Frame, checked int, took time.Duration, err error) int {
	fmt.Fprintf(out, "pong replay of %s\n", name)
	fmt.Fprintf(out, "  frames replayed     %d in %v\n", frames, took.Round(time.Microsecond))
	fmt.Fprintf(out, "  checksums agreed    %d\n", checked)
	var me *replay.MismatchError
	switch {
	case err == nil:
		fmt.Fprintf(out, "  result              ok\n")
		return exitOK
	case errors.As(err, &me):
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
	fmt.Fprintf(out, "  result              FAILED: %v\n", err)
	return exitFailure
}
