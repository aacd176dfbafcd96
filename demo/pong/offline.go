package main

// offlineMatch is -offline: the local player against a bot, no network.
type offlineMatch struct {
	s     State
	side  int
	frame int32
}

func newOfflineMatch(seed uint32, side int) *offlineMatch {
	return &offlineMatch{s: NewState(seed), side: side}
}

func (m *offlineMatch) Side() int     { return m.side }
func (m *offlineMatch) State() *State { return &m.s }
func (m *offlineMatch) Close() error  { return nil }

func (m *offlineMatch) Tick(in Input) error {
	var ins [2]Input
	ins[m.side] = in
	ins[1-m.side] = Bot(&m.s, 1-m.side)
	Step(&m.s, ins)
	m.frame++
	return nil
}

func (m *offlineMatch) HUD() hud {
	return hud{Title: "offline vs bot", Frame: m.frame, Confirmed: m.frame - 1}
}

func (m *offlineMatch) Report() report {
	return report{Role: sideName(m.side) + ", offline", Frames: m.frame, Score: m.s.Score, Wins: m.s.Wins}
}
