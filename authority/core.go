package authority

import (
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

// maxCorePlayers is the most players the core session holds (its
// confirmation marks are one 64-bit word a frame). A host of more runs
// on direct, which needs no marks: with LateApply every frame's inputs
// are all decided before it is simulated, and nothing is rolled back.
const maxCorePlayers = session.MaxPlayers

// maxHostPlayers bounds HostConfig.Players.
const maxHostPlayers = 256

// core is what the host needs of its simulation: the core session (up to
// 64 players, any LateInput, recordable), or direct past that.
type core[S any, I comparable] interface {
	State() *S
	Frame() rollnet.Frame
	Stats() session.Stats
	AdvanceFrame() error
	AddRemoteInput(player int, frame rollnet.Frame, in I) error
}

// direct simulates frame after frame with every player's input given for
// it: no prediction, no rollback, no ring (LateApply past 64 players).
type direct[S any, I comparable] struct {
	simulate func(s *S, inputs []I, frame rollnet.Frame)
	state    S
	frame    rollnet.Frame
	inputs   []I
}

func newDirect[S any, I comparable](players int, simulate func(s *S, inputs []I, frame rollnet.Frame)) *direct[S, I] {
	return &direct[S, I]{simulate: simulate, inputs: make([]I, players)}
}

func (d *direct[S, I]) State() *S            { return &d.state }
func (d *direct[S, I]) Frame() rollnet.Frame { return d.frame }
func (d *direct[S, I]) Stats() session.Stats { return session.Stats{} }

func (d *direct[S, I]) AddRemoteInput(player int, frame rollnet.Frame, in I) error {
	if uint(player) >= uint(len(d.inputs)) || frame != d.frame {
		return fmt.Errorf("%w: input for player %d, frame %d (simulating %d)", errConfig, player, frame, d.frame)
	}
	d.inputs[player] = in
	return nil
}

func (d *direct[S, I]) AdvanceFrame() error {
	d.simulate(&d.state, d.inputs, d.frame)
	d.frame++
	return nil
}
