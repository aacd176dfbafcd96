package shipcheck

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/inputbytes"
	"github.com/rollnet/rollnet/internal/shipenv"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
)

// DefaultFrames is how many frames a Game with Frames 0 is checked for: ten
// seconds at 60 frames a second.
const DefaultFrames = 600

// Game is a simulation as the check drives it: the same simulate function
// and initial state the game hands its session.
type Game[S any, I comparable] struct {
	// Name names the game in the verdict and its recording; "" means the
	// test's name.
	Name string
	// Players is the number of players, 1..64.
	Players int
	// Initial is the state every peer starts from. A replay on another
	// architecture also compares the one it builds with the recorded one.
	Initial S
	// Simulate advances the state by one frame, as given to the session.
	Simulate func(s *S, inputs []I, frame rollnet.Frame)
	// Input returns player's input for frame, drawn from r. nil fills the
	// input's bytes from r (a bool 0 or 1), which suits a bit set of
	// buttons; a game whose inputs have invariants gives its own.
	Input func(r *rollnet.Rand, player int, frame rollnet.Frame) I
	// Frames is how many frames the sync test runs and the recording
	// holds; 0 means DefaultFrames. cmd/rollnet-check's -frames replaces it.
	Frames int
}

// Run checks g: the sync test with random inputs (every frame simulated
// again after a rollback of 2 frames must give the same state), recording
// the match, then the recording replayed. Run by cmd/rollnet-check (which
// sets ROLLNET_SHIPCHECK_DIR and the step in its environment), it does the
// step the command asks for and writes its result for the command; run by go test alone, it does both in this process and
// fails t with the one-line verdict when they disagree. A Game that cannot
// be checked (no Simulate, a state or input type the session refuses)
// fails t either way.
func Run[S any, I comparable](t testing.TB, g Game[S, I]) {
	t.Helper()
	if g.Name == "" {
		g.Name = t.Name()
	}
	frames, seed, err := settingsFromEnv(g.Frames)
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv(shipenv.Dir)
	if dir == "" {
		var rec bytes.Buffer
		res := syncTest(g, frames, seed, &rec)
		if res.Err == "" && res.Agreed {
			res = replayRecording(g, rec.Bytes())
		}
		if res.Err != "" || !res.Agreed {
			t.Fatal(res.Summary())
		}
		t.Logf("shipcheck: %s: %d frames with random inputs (seed %d): the sync test and the replay agreed", g.Name, frames, seed)
		return
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	key := fileKey(here, g.Name)
	var res shipenv.Result
	switch step := os.Getenv(shipenv.Step); step {
	case shipenv.StepSync:
		var rec bytes.Buffer
		res = syncTest(g, frames, seed, &rec)
		if res.Err == "" && res.Agreed {
			if err := os.WriteFile(filepath.Join(dir, key+".rnr"), rec.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	case shipenv.StepReplay:
		file, err := os.ReadFile(filepath.Join(dir, key+".rnr"))
		if err != nil {
			t.Fatalf("shipcheck: %s: no recording to replay (the sync test did not record one): %v", g.Name, err)
		}
		res = replayRecording(g, file)
	default:
		t.Fatalf("shipcheck: %s=%q: want %q or %q", shipenv.Step, step, shipenv.StepSync, shipenv.StepReplay)
	}
	res.Dir = here
	if err := writeResult(res, filepath.Join(dir, key+"."+runtime.GOARCH+"."+stepFile(res.Step)+".json")); err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary())
}

// settingsFromEnv returns the frames and the seed of a check: the
// environment's, else frames (DefaultFrames if 0) and seed 1.
func settingsFromEnv(frames int) (int, uint64, error) {
	if frames == 0 {
		frames = DefaultFrames
	}
	seed := uint64(1)
	if v := os.Getenv(shipenv.Frames); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, fmt.Errorf("shipcheck: %s=%q: want a number of frames above 0", shipenv.Frames, v)
		}
		frames = n
	}
	if v := os.Getenv(shipenv.Seed); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("shipcheck: %s=%q: want an unsigned number", shipenv.Seed, v)
		}
		seed = n
	}
	return frames, seed, nil
}

// fileKey names a game's files in the command's directory: its name and
// a hash of its package's directory, since two packages may hold games of
// the same name.
func fileKey(dir, name string) string {
	safe := []byte(name)
	for i, c := range safe {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			safe[i] = '_'
		}
	}
	return fmt.Sprintf("%s-%08x", safe, crc32.ChecksumIEEE([]byte(dir+"\x00"+name)))
}

// settingsHash is the recording's settings: the game's name, so that a
// recording is never replayed by another game.
func settingsHash(name string) uint64 { return uint64(crc32.ChecksumIEEE([]byte(name))) }

// syncTest runs g's sync test for frames frames with random inputs drawn
// from seed, through session.SyncTest, and records the match to rec (with
// states, so that a replay that differs names the field). On a desync the
// Result names the first frame whose state differed when simulated again
// and the first field that did. cmd/rollnet-check runs it through Run.
func syncTest[S any, I comparable](g Game[S, I], frames int, seed uint64, rec io.Writer) shipenv.Result {
	res := shipenv.Result{Game: g.Name, Step: shipenv.StepSync, Arch: runtime.GOOS + "/" + runtime.GOARCH, Seed: seed, Players: g.Players}
	if g.Simulate == nil {
		res.Err = "Game.Simulate is nil"
		return res
	}
	// Every simulation of a frame is kept beside the one before it, so that
	// a desync names the field (the session compares checksums only).
	const keep = 8 // above the sync test's check distance, 2
	var (
		prev, cur [keep]S
		tag       [keep]rollnet.Frame
	)
	for k := range tag {
		tag[k] = rollnet.NoFrame
	}
	simulate := func(s *S, in []I, f rollnet.Frame) {
		g.Simulate(s, in, f) //rollnet:ok the game's own simulation, which rollnet-vet checks in the game's package
		k := int(f) & (keep - 1)
		if tag[k] != f {
			tag[k] = f
			cur[k] = *s
		}
		prev[k], cur[k] = cur[k], *s
	}
	st, err := session.NewSyncTest[S](session.SyncTestConfig[I]{Config: session.Config[I]{Players: g.Players}}, simulate)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	*st.State() = g.Initial
	initial := g.Initial
	r, err := replay.NewRecorder[S, I](replay.RecorderConfig{Players: g.Players, Settings: settingsHash(g.Name), States: true}, rec, &initial)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	input := g.Input
	if input == nil {
		input = randomBytes[I]()
	}
	rng := rollnet.NewRand(seed)
	in := make([]I, g.Players)
	for f := range rollnet.Frame(frames) {
		for p := range in {
			in[p] = input(&rng, p, f)
			if err := st.AddLocalInput(p, in[p]); err != nil {
				res.Err = err.Error()
				return res
			}
		}
		err := st.AdvanceFrame()
		var d *session.DesyncError
		if errors.As(err, &d) {
			k := int(d.Frame) & (keep - 1)
			res.Frame = int64(d.Frame)
			res.Frames = int(f) + 1
			diffStates(&res, &prev[k], &cur[k])
			return res
		}
		if err != nil {
			res.Err = err.Error()
			return res
		}
		if err := r.Record(in, st.State()); err != nil {
			res.Err = err.Error()
			return res
		}
	}
	if err := r.Close(); err != nil {
		res.Err = err.Error()
		return res
	}
	res.Frames, res.Agreed = frames, true
	return res
}

// replayRecording replays the recording file made by syncTest with g.Simulate,
// after comparing the initial state this build makes (g.Initial) with the
// recorded one (a difference there is frame -1). cmd/rollnet-check runs it
// through Run, built for each architecture.
func replayRecording[S any, I comparable](g Game[S, I], file []byte) shipenv.Result {
	res := shipenv.Result{Game: g.Name, Step: shipenv.StepReplay, Arch: runtime.GOOS + "/" + runtime.GOARCH, Players: g.Players}
	if g.Simulate == nil {
		res.Err = "Game.Simulate is nil"
		return res
	}
	p, err := replay.NewReplayer[S, I](replay.ReplayerConfig{Settings: settingsHash(g.Name), Players: g.Players}, bytes.NewReader(file), g.Simulate)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	initial := g.Initial
	if diffStates(&res, p.State(), &initial); res.Differ > 0 {
		res.Frame = -1
		return res
	}
	err = p.Run()
	res.Frames = p.Checked()
	var me *replay.MismatchError
	switch {
	case errors.As(err, &me):
		res.Frame, res.Differ = int64(me.Frame), me.Differ
		if len(me.Fields) > 0 {
			res.Field, res.Want, res.Got = me.Fields[0].Path, me.Fields[0].A, me.Fields[0].B
		}
	case err != nil:
		res.Err = err.Error()
	default:
		res.Agreed = true
	}
	return res
}

// diffStates sets res's field, values and count of differing fields from
// the states a (first, or recorded) and b (again, or built here).
func diffStates[S any](res *shipenv.Result, a, b *S) {
	fields, total, err := rollback.DiffBytes(reflect.TypeFor[S](), rollback.BytesOf(a), rollback.BytesOf(b), 1)
	if err != nil {
		res.Err = err.Error()
		return
	}
	res.Differ = total
	if total > 0 {
		res.Field, res.Want, res.Got = fields[0].Path, fields[0].A, fields[0].B
	}
}

// randomBytes returns Game.Input's default: the input's bytes drawn from
// r, a bool byte 0 or 1.
func randomBytes[I comparable]() func(r *rollnet.Rand, player int, frame rollnet.Frame) I {
	bools := inputbytes.BoolOffsets(reflect.TypeFor[I](), 0, nil)
	return func(r *rollnet.Rand, _ int, _ rollnet.Frame) I {
		var in I
		b := rollback.BytesOf(&in)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		for _, o := range bools {
			b[o] &= 1
		}
		return in
	}
}
