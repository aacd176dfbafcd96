package simvet

// A constructor is a rollnet function that is given a simulation or a
// state type: its simulate argument is where the analyzer starts, and its
// state type parameter is checked like the ring checks it at run time.
type constructor struct {
	Pkg      string // import path of the package that declares it
	Func     string // its name
	Simulate int    // index of the simulate argument, or -1 if it takes none
	State    int    // index of the state's type parameter
}

// constructors is every rollnet function that runs a simulation (both
// modes, the core session, the sync test, spectators and replays) or
// holds a state. Keep it in step with the public API:
// TestConstructorsMatchAPI type-checks every row against the real
// packages.
var constructors = []constructor{
	{Pkg: sessionPkg, Func: "New", Simulate: 1, State: 0},
	{Pkg: sessionPkg, Func: "NewSyncTest", Simulate: 1, State: 0},
	{Pkg: p2pPkg, Func: "New", Simulate: 2, State: 0},
	{Pkg: p2pPkg, Func: "NewSpectator", Simulate: 2, State: 0},
	{Pkg: replayPkg, Func: "NewReplayer", Simulate: 2, State: 0},
	{Pkg: replayPkg, Func: "NewRecorder", Simulate: -1, State: 0},
	{Pkg: authorityPkg, Func: "NewHost", Simulate: 2, State: 0},
	{Pkg: authorityPkg, Func: "NewClient", Simulate: 2, State: 0},
}

const (
	rollnetModule = "github.com/rollnet/rollnet"
	sessionPkg    = "github.com/rollnet/rollnet/session"
	p2pPkg        = "github.com/rollnet/rollnet/p2p"
	replayPkg     = "github.com/rollnet/rollnet/replay"
	authorityPkg  = "github.com/rollnet/rollnet/authority"
)

// constructorOf returns the row for the function pkg.name, if it is one.
func constructorOf(pkg, name string) (constructor, bool) {
	for _, c := range constructors {
		if c.Pkg == pkg && c.Func == name {
			return c, true
		}
	}
	return constructor{}, false
}
