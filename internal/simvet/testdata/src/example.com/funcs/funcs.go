// Package funcs calls through function values: a package-level table of
// collision routines, an integrator kept in a struct field, and values
// whose target the analyzer cannot know.
package funcs

import (
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

type Body struct {
	X, V int64
	Kind uint8
	_    [7]byte
}

type State struct {
	Bodies [2]Body
}

// collide is dispatched by shape kinds, as engines do.
var collide = [2]func(a, b *Body){circleCircle, circleBox}

func circleCircle(a, b *Body) {
	a.V, b.V = b.V, a.V
}

func circleBox(a, b *Body) { // want circleBox:"hazards 1"
	m := map[int64]bool{}
	for k := range m { // want `range over map m`
		a.X += k
	}
}

// Solver keeps its integrator in a field, assigned only known functions.
type Solver struct {
	integrate func(b *Body)
	damp      func(b *Body)
}

var solver = Solver{integrate: euler}

func init() { solver.damp = func(b *Body) { _ = time.Now() } } // want `time.Now reads the wall clock`

func euler(b *Body) { // want euler:"hazards 1"
	b.X += b.V
	_ = time.Since(time.Time{}) // want `time.Since reads the wall clock`
}

// hook is assigned what a function returns: its target is unknown.
var hook func(b *Body) // want hook:"written"

func makeHook() func(b *Body) { return func(b *Body) {} }

func Start() { // want Start:"hazards 7"
	hook = makeHook()
	session.NewSyncTest[State](session.Config[uint8]{}, step)
}

func step(s *State, in []uint8, f rollnet.Frame) { // want step:"hazards 6"
	a, b := &s.Bodies[0], &s.Bodies[1]
	collide[a.Kind&1](a, b)
	solver.integrate(a)
	solver.damp(b)
	hook(a) // want `read of package-level variable hook` `call through function value hook: it is assigned something other than functions`
	each(s, euler)
	Each(s, euler)
}

// each is only called with euler: its calls through fn are followed.
func each(s *State, fn func(*Body)) { // want each:"hazards 1"
	for i := range s.Bodies {
		fn(&s.Bodies[i])
	}
}

// Each is exported: its callers are not all seen here.
func Each(s *State, fn func(*Body)) { // want Each:"hazards 1"
	for i := range s.Bodies {
		fn(&s.Bodies[i]) // want `call through function value fn: it is assigned something other`
	}
}
