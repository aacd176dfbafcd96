package main

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
)

// hud is the live numbers the view shows under the court.
type hud struct {
	Title      string        // who plays whom
	Frame      int32         // frames simulated (an authoritative client's: played since it joined, as -frames counts them)
	MatchFrame int32         // an authoritative client's: the match's frame on screen, the host's numbering (0 otherwise)
	Confirmed  int32         // newest frame with every input known
	LoopRTT    time.Duration // round trip through both game loops (whole ticks); 0 when unknown
	NetRTT     time.Duration // the network's own round trip (the transport's: ICE's, QUIC's, transport/udp's pings); 0 when unknown
	Path       string        // the candidate pair ICE selected (direct, STUN or relay; UDP or TCP), "" when unknown
	Advantage  int           // local frame advantage over the peer
	RollbacksS float64       // rollbacks in the last second
	Rollbacks  int64         // rollbacks in total
	Deepest    int           // deepest rollback, in frames
	Compared   uint64        // confirmed frames whose checksums were compared with the peer's
	Agreed     uint64        // of those, how many agreed
	Desync     string        // non-empty once a desync was detected
	Checks     string        // the checksum line when the mode's own (an authoritative host's: its clients check)
	Note       string        // a status line (waiting, disconnected, ...)
	Impair     string        // what -impair does to the link, "" without it
	ImpairRTT  time.Duration // the round trip -impair adds on this side (its latency, both ways)
	Progress   string        // a spectator's: how far behind the host, in place of advantage and rollbacks
	Auth       string        // the authority mode's second line: buffers, playout, hitches
	Rejoining  string        // -rejoin's catch-up progress: drawn instead of the court, which is not shown yet
}

// view draws the game on a terminal and turns keys into the paddle's input.
type view struct {
	screen tcell.Screen
	side   int // the local player's side, 0 left or 1 right; -1 a spectator (or not known yet)
	keys   keys
	bot    bool // -bot: a bot plays the local paddle, the keys only quit
	quit   bool
	closed bool

	waitMsg atomic.Pointer[string] // what the waiting screen says
	said    func(string)           // tests: called with each message for the waiting screen
}

// newView draws on sc: the terminal when nil.
func newView(sc tcell.Screen, side int) (*view, error) {
	var err error
	if sc == nil {
		sc, err = tcell.NewScreen()
	}
	if err == nil {
		err = sc.Init()
	}
	if err != nil {
		return nil, fmt.Errorf("pong: terminal: %w", err)
	}
	sc.HideCursor()
	v := &view{screen: sc, side: side}
	v.waitMsg.Store(new(string))
	return v, nil
}

// close restores the terminal; it is safe to call more than once.
func (v *view) close() {
	if !v.closed {
		v.closed = true
		v.screen.Fini()
	}
}

// run calls f, giving the terminal back before a panic goes on up.
func (v *view) run(f func()) {
	defer func() {
		if r := recover(); r != nil {
			v.close()
			panic(r)
		}
	}()
	f()
}

func (v *view) setWaiting(msg string) {
	v.waitMsg.Store(&msg)
	if v.said != nil {
		v.said(msg)
	}
}

// waiting shows the waiting screen (q, Esc, Ctrl-C: cancel); nothing
// else may draw on v until the returned stop returns.
func (v *view) waiting(cancel func()) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go v.run(func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			v.message(styleHUD, "pong: "+strings.TrimPrefix(*v.waitMsg.Load(), "pong: "),
				fmt.Sprintf("waiting %v", time.Since(start).Truncate(time.Second)), "q, Esc or Ctrl-C cancels")
			if v.poll(nil); v.quit {
				cancel()
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() {
		close(done)
		<-finished
	}
}

// message draws lines in place of the court, wrapped, a blank line apart.
func (v *view) message(st tcell.Style, lines ...string) {
	v.screen.Clear()
	w, _ := v.screen.Size()
	y := 1
	for _, line := range lines {
		for _, l := range wrap(line, w-2) {
			put(v.screen, 1, y, l, st)
			y++
		}
		y++
	}
	v.screen.Show()
}

// poll handles the pending terminal events without blocking: arrows, W/S
// or k/j move the paddle's target; q, Esc and Ctrl-C quit.
func (v *view) poll(s *State) {
	for v.screen.HasPendingEvent() {
		switch ev := v.screen.PollEvent().(type) {
		case *tcell.EventKey:
			k, r := ev.Key(), ev.Rune()
			if k != tcell.KeyRune {
				r = 0
			}
			dir := int32(0)
			switch {
			case k == tcell.KeyUp || strings.ContainsRune("wWk", r):
				dir = -1
			case k == tcell.KeyDown || strings.ContainsRune("sSj", r):
				dir = +1
			case k == tcell.KeyEscape || k == tcell.KeyCtrlC || r == 'q' || r == 'Q':
				v.quit = true
			}
			if dir != 0 && (v.side == 0 || v.side == 1) { // a spectator has no paddle
				v.keys.press(dir, s, v.side)
			}
		case *tcell.EventResize:
			v.screen.Sync()
		case nil:
			v.quit = true
			return
		}
	}
}

const holdEnd = 5 * time.Second // the screen saying why a match ended stays up this long

// hold shows s and h (Note: why the match ended) for d or until a key.
func (v *view) hold(s *State, h hud, d time.Duration) {
	show := func() {
		v.draw(s, h)
		// Wrapped across the court's middle: the note line is often cut.
		w, ht := v.screen.Size()
		if w >= 22 && ht >= 14 {
			lines := append(wrap(h.Note, w-6), "press a key")
			for i, line := range lines { // a banner across the court
				st := styleAlarm
				if i == len(lines)-1 {
					st = styleHUD
				}
				put(v.screen, 1, max(2, ht/2-len(lines))+i, fmt.Sprintf("  %-*s", w-4, line), st)
			}
			v.screen.Show()
		}
	}
	show()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for v.screen.HasPendingEvent() {
			switch v.screen.PollEvent().(type) {
			case *tcell.EventKey, nil:
				return
			case *tcell.EventResize:
				v.screen.Sync()
				show()
			}
		}
	}
}

// keys turns presses into a paddle target: terminals report presses and
// repeats, never releases, so a tap nudges and a held key runs.
type keys struct {
	target int32 // centre the paddle runs to, fixed point
	set    bool
}

const step = 2 * Sub // how far one key press moves the target

func (k *keys) press(dir int32, s *State, side int) {
	centre := s.PaddleY[side] + PaddleH/2
	if !k.set {
		k.target, k.set = centre, true
	}
	base := k.target
	if (base-centre)*dir < 0 { // from the paddle, not an old target
		base = centre
	}
	t := max(centre-2*step, min(base+dir*step, centre+2*step))
	k.target = max(PaddleH/2, min(t, CourtH-PaddleH/2))
}

// input is this frame's input (the local paddle is never predicted).
func (k *keys) input(s *State, side int) Input {
	if !k.set {
		return 0
	}
	centre := s.PaddleY[side] + PaddleH/2
	switch {
	case centre < k.target-PaddleV/2:
		return InputDown
	case centre > k.target+PaddleV/2:
		return InputUp
	}
	return 0
}

var (
	styleBorder = tcell.StyleDefault.Foreground(tcell.ColorGray)
	styleYou    = tcell.StyleDefault.Foreground(tcell.ColorGreen).Bold(true)
	styleThem   = tcell.StyleDefault.Foreground(tcell.ColorAqua)
	styleBall   = tcell.StyleDefault.Foreground(tcell.ColorYellow).Bold(true)
	styleHUD    = tcell.StyleDefault.Foreground(tcell.ColorSilver)
	styleAlarm  = tcell.StyleDefault.Foreground(tcell.ColorWhite).Background(tcell.ColorRed).Bold(true)
	styleImpair = tcell.StyleDefault.Foreground(tcell.ColorOrange)
)

// draw renders the court scaled to the terminal, then the numbers.
func (v *view) draw(s *State, h hud) {
	if h.Rejoining != "" {
		v.message(styleHUD, "pong: "+h.Rejoining, "q, Esc or Ctrl-C quits")
		return
	}
	type line struct {
		text string
		st   tcell.Style
	}
	frame := fmt.Sprintf("frame %d (confirmed %d)  advantage %+d  rollbacks %.0f/s (%d total, deepest %d)",
		h.Frame, h.Confirmed, h.Advantage, h.RollbacksS, h.Rollbacks, h.Deepest)
	if h.Deepest == 0 && h.Rollbacks > 0 { // the authority modes count rollbacks, not their depth
		frame = fmt.Sprintf("frame %d (confirmed %d)  advantage %+d  rollbacks %.0f/s (%d total)",
			h.Frame, h.Confirmed, h.Advantage, h.RollbacksS, h.Rollbacks)
	}
	switch {
	case h.MatchFrame > 0: // one numbering, the match's: what it shows and what it predicts
		frame = fmt.Sprintf("frame %d (%d played since joining)  %s", h.MatchFrame, h.Frame, h.Progress)
	case h.Progress != "":
		frame = fmt.Sprintf("frame %d  %s", h.Frame, h.Progress)
	}
	rtt := "round trip: game loop " + hudMS(h.LoopRTT) + ", network " + hudMS(h.NetRTT)
	if h.ImpairRTT > 0 {
		rtt += " + " + hudMS(h.ImpairRTT) + " of -impair"
	}
	if h.Path != "" {
		rtt += ", " + h.Path
	}
	impair := ""
	if h.Impair != "" {
		impair = "-impair: " + h.Impair
	}
	check, checkSt := fmt.Sprintf("checksums agree (%d frames compared)", h.Compared), styleHUD
	switch {
	case h.Desync != "":
		check, checkSt = "DESYNC: "+h.Desync, styleAlarm
	case h.Checks != "":
		check = h.Checks
	case h.Compared == 0:
		check = "no checksums compared yet"
	}
	help := "spectating: q quits"
	switch {
	case (v.side == 0 || v.side == 1) && v.bot:
		help = "you are " + sideName(v.side) + " (green), played by a bot (-bot): q quits"
	case v.side == 0 || v.side == 1:
		help = "you are " + sideName(v.side) + " (green): ↑/↓ or W/S move, q quits"
	}
	if h.Note != "" {
		help = h.Note + "  |  " + help
	}
	hl := []line{{frame, styleHUD}, {h.Auth, styleHUD}, {rtt, styleHUD}, {impair, styleImpair}, {check, checkSt}, {help, styleHUD}}
	if h.Auth == "" {
		hl = slices.Delete(hl, 1, 2) // the authority mode's line
	}

	sc := v.screen
	w, ht := sc.Size()
	need := 9 + len(hl)                       // rows at the least width
	for i := 0; w >= 22 && i < len(hl); i++ { // a line wider than the terminal goes on below, not cut
		if parts := wrap(hl[i].text, w-2); len(parts) > 1 {
			more := make([]line, len(parts))
			for j, p := range parts {
				more[j] = line{p, hl[i].st}
			}
			hl = slices.Replace(hl, i, i+1, more...)
			i += len(parts) - 1
		}
	}
	cw, ch := w-2, ht-3-len(hl) // the court's interior, in cells, under the score line
	if cw < 20 || ch < 6 {
		v.message(styleAlarm, fmt.Sprintf("terminal too small for pong: %dx%d, need at least 22x%d", w, ht, need))
		return
	}
	sc.Clear()
	score := fmt.Sprintf("%2d   %-2d", s.Score[0], s.Score[1])
	put(sc, (w-len(score))/2, 0, score, styleYou)
	put(sc, 1, 0, h.Title, styleHUD)
	if s.Matches > 0 || s.Winner != 0 {
		m := fmt.Sprintf("matches %d-%d", s.Wins[0], s.Wins[1])
		put(sc, w-len(m)-1, 0, m, styleHUD)
	}
	top, bottom := 1, ch+2
	for x := range w {
		sc.SetContent(x, top, '─', nil, styleBorder)
		sc.SetContent(x, bottom, '─', nil, styleBorder)
	}
	for y := top + 1; y < bottom; y++ {
		sc.SetContent(0, y, '│', nil, styleBorder)
		sc.SetContent(w-1, y, '│', nil, styleBorder)
		if y%2 == 0 {
			sc.SetContent(w/2, y, '┊', nil, styleBorder)
		}
	}
	col := func(x int32) int { return 1 + int(int64(x)*int64(cw)/CourtW) }
	row := func(y int32) int { return top + 1 + int(int64(y)*int64(ch)/CourtH) }
	for p, x := range [2]int{col(FaceL - Sub/2), col(FaceR + Sub/2)} {
		st := styleThem
		if p == v.side {
			st = styleYou
		}
		r0 := row(s.PaddleY[p])
		for y := r0; y < r0+max(1, int(int64(PaddleH)*int64(ch)/CourtH)); y++ {
			sc.SetContent(x, y, '█', nil, st)
		}
	}
	if s.Winner != 0 {
		msg := sideName(int(s.Winner-1)) + " wins the match"
		if int(s.Winner-1) == v.side {
			msg = "you win the match!"
		}
		put(sc, (w-len(msg))/2, top+1+ch/2, msg, styleYou)
	} else if s.Wait == 0 {
		sc.SetContent(col(s.BallX), row(s.BallY), '●', nil, styleBall)
	}
	for i, l := range hl {
		put(sc, 1, bottom+1+i, l.text, l.st)
	}
	sc.Show()
}

// hudMS is a round trip for the HUD: milliseconds, "-" when unknown.
func hudMS(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// wrap breaks s into lines of at most w cells, at spaces where it can.
func wrap(s string, w int) []string {
	w = max(w, 1)
	var lines []string
	for s != "" {
		line := []rune(s)
		if len(line) > w {
			cut := w
			if i := strings.LastIndexByte(string(line[:w+1]), ' '); i > 0 {
				cut = len([]rune(string(line[:w+1])[:i]))
			}
			line = line[:cut]
		}
		lines = append(lines, string(line))
		s = strings.TrimLeft(strings.TrimPrefix(s, string(line)), " ")
	}
	return lines
}

func put(sc tcell.Screen, x, y int, s string, st tcell.Style) {
	for _, r := range s {
		sc.SetContent(x, y, r, nil, st)
		x++
	}
}
