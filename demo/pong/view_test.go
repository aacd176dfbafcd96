package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

func simView(t *testing.T, side int) (*view, tcell.SimulationScreen) {
	t.Helper()
	sc := tcell.NewSimulationScreen("UTF-8")
	v, err := newView(sc, side)
	require.NoError(t, err)
	sc.SetSize(100, 32)
	t.Cleanup(v.close)
	return v, sc
}

// screenText is the simulation screen's contents, one string per row.
func screenText(sc tcell.SimulationScreen) []string {
	cells, w, h := sc.GetContents()
	rows := make([]string, h)
	for y := range h {
		var b strings.Builder
		for x := range w {
			r := cells[y*w+x].Runes
			if len(r) == 0 {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(string(r))
		}
		rows[y] = b.String()
	}
	return rows
}

// TestViewDrawsCourtAndNumbers: paddles, ball, score and the live numbers
// are on screen, and a desync gets its own line.
func TestViewDrawsCourtAndNumbers(t *testing.T) {
	v, sc := simView(t, 0)
	s := NewState(1)
	s.Wait = 0
	s.Score = [2]uint8{3, 7}
	v.draw(&s, hud{Frame: 1234, Confirmed: 1230, LoopRTT: 33 * time.Millisecond, NetRTT: 420 * time.Microsecond, Advantage: 2,
		RollbacksS: 5, Rollbacks: 99, Deepest: 6})
	all := strings.Join(screenText(sc), "\n")
	require.Contains(t, all, " 3   7")
	require.Contains(t, all, "frame 1234 (confirmed 1230)  advantage +2  rollbacks 5/s (99 total, deepest 6)")
	require.Contains(t, all, "round trip: game loop 33.0 ms, network 0.4 ms")
	require.Contains(t, all, "no checksums compared yet")
	require.Equal(t, 2*int(PaddleH*26/CourtH), strings.Count(all, "█"), "two paddles")
	require.Equal(t, 1, strings.Count(all, "●"), "one ball")

	require.Contains(t, all, "you are left (green)")

	v.draw(&s, hud{Impair: "100ms±15ms 2% loss each way (lost on purpose: 3 received, 4 sent)", LoopRTT: 233 * time.Millisecond, NetRTT: 400 * time.Microsecond, ImpairRTT: 200 * time.Millisecond})
	require.Contains(t, strings.Join(screenText(sc), "\n"), "-impair: 100ms±15ms 2% loss each way (lost on purpose: 3 received, 4 sent)")
	require.Contains(t, strings.Join(screenText(sc), "\n"), "round trip: game loop 233.0 ms, network 0.4 ms + 200.0 ms of -impair", "the network's share of the delay")

	v.draw(&s, hud{Compared: 40, Agreed: 40})
	require.Contains(t, strings.Join(screenText(sc), "\n"), "checksums agree (40 frames compared)")

	v.draw(&s, hud{Desync: "frame 60: local 1, remote 2"})
	all = strings.Join(screenText(sc), "\n")
	require.Contains(t, all, "DESYNC: frame 60: local 1, remote 2")

	w, sc2 := simView(t, -1)
	w.draw(&s, hud{})
	require.Contains(t, strings.Join(screenText(sc2), "\n"), "spectating: q quits")
}

// TestKeysMoveThePaddle: arrow keys and W/S become inputs that move the
// local paddle and stop it; q quits.
func TestKeysMoveThePaddle(t *testing.T) {
	for _, tc := range []struct {
		name     string
		up, down *tcell.EventKey
	}{
		{"arrows", tcell.NewEventKey(tcell.KeyUp, 0, 0), tcell.NewEventKey(tcell.KeyDown, 0, 0)},
		{"w/s", tcell.NewEventKey(tcell.KeyRune, 'w', 0), tcell.NewEventKey(tcell.KeyRune, 's', 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, sc := simView(t, 1)
			s := NewState(1)
			start := s.PaddleY[1]
			require.Zero(t, v.keys.input(&s, 1), "no key, no move")
			require.NoError(t, sc.PostEvent(tc.up))
			v.poll(&s)
			require.Equal(t, InputUp, v.keys.input(&s, 1))
			for range 30 {
				Step(&s, [2]Input{0, v.keys.input(&s, 1)})
			}
			require.Equal(t, start-step, s.PaddleY[1], "one press moves the paddle one step, then it stops")
			require.Zero(t, v.keys.input(&s, 1))
			require.NoError(t, sc.PostEvent(tc.down))
			v.poll(&s)
			require.Equal(t, InputDown, v.keys.input(&s, 1))
			require.False(t, v.quit)
			require.NoError(t, sc.PostEvent(tcell.NewEventKey(tcell.KeyRune, 'q', 0)))
			v.poll(&s)
			require.True(t, v.quit)
		})
	}
}

// TestHeldKeyRunsThenStops: auto-repeat keeps the paddle running at full
// speed, and it stops within a few frames of the last repeat.
func TestHeldKeyRunsThenStops(t *testing.T) {
	var k keys
	s := NewState(1)
	s.PaddleY[0] = 0
	for f := range 60 {
		if f%2 == 0 && f < 40 { // a repeat every other frame, for 40 frames
			k.press(+1, &s, 0)
		}
		Step(&s, [2]Input{k.input(&s, 0), 0})
		if f < 40 {
			require.Equal(t, int32(f+1)*PaddleV, s.PaddleY[0], "full speed while held, frame %d", f)
		}
	}
	stopped := s.PaddleY[0]
	require.LessOrEqual(t, stopped-40*PaddleV, int32(2*step), "stops soon after the key is let go")
	Step(&s, [2]Input{k.input(&s, 0), 0})
	require.Equal(t, stopped, s.PaddleY[0])
}

// TestSpectatorIgnoresMovementKeys: a spectator has no paddle, so arrow
// keys and W/S do nothing (they once indexed side -1 and panicked); q
// still quits.
func TestSpectatorIgnoresMovementKeys(t *testing.T) {
	v, sc := simView(t, -1)
	s := NewState(1)
	for _, ev := range []*tcell.EventKey{
		tcell.NewEventKey(tcell.KeyUp, 0, 0), tcell.NewEventKey(tcell.KeyDown, 0, 0),
		tcell.NewEventKey(tcell.KeyRune, 'w', 0), tcell.NewEventKey(tcell.KeyRune, 's', 0),
		tcell.NewEventKey(tcell.KeyRune, 'k', 0), tcell.NewEventKey(tcell.KeyRune, 'j', 0),
	} {
		require.NoError(t, sc.PostEvent(ev))
	}
	require.NotPanics(t, func() { v.poll(&s) })
	require.False(t, v.keys.set)
	require.False(t, v.quit)
	require.NoError(t, sc.PostEvent(tcell.NewEventKey(tcell.KeyRune, 'q', 0)))
	v.poll(&s)
	require.True(t, v.quit)
}

// finiScreen is a simulation screen that records Fini, the call that
// gives the terminal back.
type finiScreen struct {
	tcell.SimulationScreen
	finis int
}

func (f *finiScreen) Fini() { f.finis++; f.SimulationScreen.Fini() }

// TestPanicRestoresTerminal: a panic in the game loop gives the terminal
// back (Fini) before it goes on up, so the panic's message lands on a
// usable terminal, not one left in raw mode.
func TestPanicRestoresTerminal(t *testing.T) {
	sc := &finiScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	v, err := newView(sc, 0)
	require.NoError(t, err)
	require.PanicsWithValue(t, "boom", func() {
		v.run(func() { panic("boom") })
	})
	require.Equal(t, 1, sc.finis, "the terminal was restored once")
	v.close()
	require.Equal(t, 1, sc.finis, "and only once")
}

// TestHoldSaysWhyTheMatchEnded: the reason a match ended is drawn whole
// over the court, wrapped, however long (the note line cut it off).
func TestHoldSaysWhyTheMatchEnded(t *testing.T) {
	v, sc := simView(t, 0)
	sc.SetSize(40, 20)
	s := NewState(1)
	why := "the opponent vanished: nothing heard from it for 3.2s, declared disconnected at frame 588"
	v.hold(&s, hud{Note: why}, 0)
	var words []string
	for _, r := range screenText(sc) {
		words = append(words, strings.Fields(strings.Trim(r, "│ "))...)
	}
	require.Contains(t, strings.Join(words, " "), why+" press a key")
}

// TestTerminalTooSmall: a terminal too small for the court gets the whole
// message, wrapped, with its size and the size needed (it was cut off at
// the terminal's width).
func TestTerminalTooSmall(t *testing.T) {
	v, sc := simView(t, 0)
	sc.SetSize(16, 6)
	s := NewState(1)
	v.draw(&s, hud{})
	rows := screenText(sc)
	var words []string
	for _, r := range rows {
		words = append(words, strings.Fields(r)...)
	}
	require.Equal(t, "terminal too small for pong: 16x6, need at least 22x14", strings.Join(words, " "), "%q", rows)
}

// TestViewBotAndLongLines: a side a bot plays (-bot) says so instead of
// offering keys that do nothing; a status line wider than the terminal
// goes on on the next row instead of being cut.
func TestViewBotAndLongLines(t *testing.T) {
	v, sc := simView(t, 1)
	v.bot = true
	s := NewState(1)
	long := "alice dropped at frame 412 (nothing heard for 5s): may rejoin for 60 s; bob is rejoining at frame 420 and its end is here"
	v.draw(&s, hud{Note: long})
	rows := screenText(sc)
	all := strings.Join(rows, "\n")
	require.Contains(t, all, "you are right (green), played by a bot (-bot): q quits")
	require.NotContains(t, all, "W/S move")
	var joined []string
	for _, r := range rows {
		require.LessOrEqual(t, len([]rune(strings.TrimRight(r, " "))), 100)
		joined = append(joined, strings.TrimSpace(r))
	}
	require.Contains(t, strings.Join(joined, " "), "its end is here  |  you are right", "the whole line, wrapped")
}

// TestReportSaysWhatItCounted: the report's frames and checksums add up
// (the frames simulated past the budget are said, the comparisons are
// checksums, one every 6th frame), and the authority modes' rollbacks
// name what they count instead of a depth they do not have.
func TestReportSaysWhatItCounted(t *testing.T) {
	var b strings.Builder
	report{Role: "right", Frames: 60, Ran: 222, Compared: 36, Rollbacks: 3, Deepest: 2}.print(&b)
	out := b.String()
	require.Contains(t, out, "frames played       60 (222 simulated: the sides went on until both had confirmed the last one)")
	require.Contains(t, out, "36 checksums, one every 6th confirmed frame (checksums agree)")
	require.Contains(t, out, "rollbacks           3 (deepest 2, 0 frames re-simulated)")
	for role, want := range map[string]string{
		"right, client": "rollbacks           9 (host states that did not match the prediction, 40 frames re-simulated)",
		"left, host":    "rollbacks           9 (late inputs rolled back for, 40 frames re-simulated)",
	} {
		b.Reset()
		report{Role: role, Frames: 600, Rollbacks: 9, Resim: 40}.print(&b)
		require.Contains(t, b.String(), want)
		require.NotContains(t, b.String(), "deepest")
	}
	v, sc := simView(t, 1)
	s := NewState(1)
	v.draw(&s, hud{Frame: 100, Rollbacks: 9})
	require.Contains(t, strings.Join(screenText(sc), "\n"), "rollbacks 0/s (9 total)  ")
}
