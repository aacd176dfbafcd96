package simvet

import (
	"go/types"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/analysis"
	driver "golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Every row of the constructor table names a function of the real API
// whose simulate argument is func(*S, []I, Frame) at the row's index,
// with S the type parameter at the row's State: the table cannot go stale
// when the API is renamed.
func TestConstructorsMatchAPI(t *testing.T) {
	paths := map[string]bool{}
	for _, c := range constructors {
		paths[c.Pkg] = true
	}
	var patterns []string
	for p := range paths {
		patterns = append(patterns, p)
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName}, patterns...)
	require.NoError(t, err)
	byPath := map[string]*types.Package{}
	for _, p := range pkgs {
		require.Empty(t, p.Errors, p.PkgPath)
		byPath[p.PkgPath] = p.Types
	}
	for _, c := range constructors {
		pkg := byPath[c.Pkg]
		require.NotNil(t, pkg, c.Pkg)
		fn, ok := pkg.Scope().Lookup(c.Func).(*types.Func)
		require.True(t, ok, "%s.%s is not a function of the API", c.Pkg, c.Func)
		sig := fn.Signature()
		require.Less(t, c.State, sig.TypeParams().Len(), "%s: no type parameter %d", c.Func, c.State)
		state := sig.TypeParams().At(c.State)
		if c.Simulate < 0 {
			continue
		}
		require.Less(t, c.Simulate, sig.Params().Len(), "%s: no argument %d", c.Func, c.Simulate)
		sim, ok := sig.Params().At(c.Simulate).Type().Underlying().(*types.Signature)
		require.True(t, ok, "%s: argument %d is not a function", c.Func, c.Simulate)
		require.Equal(t, 3, sim.Params().Len(), "%s: simulate takes (state, inputs, frame)", c.Func)
		ptr, ok := sim.Params().At(0).Type().(*types.Pointer)
		require.True(t, ok && ptr.Elem() == state, "%s: simulate's first argument is *%s", c.Func, state)
		_, ok = sim.Params().At(1).Type().(*types.Slice)
		require.True(t, ok, "%s: simulate's second argument is the inputs", c.Func)
	}
}

// internal/crossarch has nothing to report, and its float swarm and the
// fused multiply-add it keeps on purpose are reported once their
// //rollnet:ok is ignored. (CI's rollnet-vet step checks the whole
// module: demo/pong, the torture simulations, the examples.)
func TestFlagsCrossArch(t *testing.T) {
	// Its imports from export data: the findings asserted are all in
	// internal/crossarch itself (and type-checking them all from source
	// took a minute under -race).
	defer func() { wholeModule = true }()
	wholeModule = false // compile internal/crossarch alone
	mode := packages.LoadSyntax | packages.NeedModule
	pkgs, err := packages.Load(&packages.Config{Mode: mode, Tests: true}, "github.com/rollnet/rollnet/internal/crossarch")
	require.NoError(t, err)
	require.Empty(t, analyze(t, false, pkgs))
	diags := analyze(t, true, pkgs)
	var fma []string
	for _, d := range diags {
		if d.Category == "fma" {
			fma = append(fma, d.Message)
		}
	}
	require.GreaterOrEqual(t, len(fma), 8, "SimulateSwarmFloat's x*y + z and MulAddFused: %q", diags)
	var swarm, fused bool
	for _, d := range diags {
		swarm = swarm || strings.Contains(d.pos, "swarmfloat.go")
		fused = fused || strings.Contains(d.pos, "cloud.go")
	}
	require.True(t, swarm, "SimulateSwarmFloat is flagged")
	require.True(t, fused, "MulAddFused is flagged")
}

type diag struct {
	analysis.Diagnostic
	pos string
}

// analyze runs the analyzer over pkgs (loaded with their tests, as
// rollnet-vet loads them), with -ignore-ok set to ignore, and returns its
// findings.
func analyze(t *testing.T, ignore bool, pkgs []*packages.Package) []diag {
	t.Helper()
	defer func(old bool) { ignoreOK = old }(ignoreOK)
	ignoreOK = ignore
	g, err := driver.Analyze([]*analysis.Analyzer{Analyzer}, pkgs, nil)
	require.NoError(t, err)
	var out []diag
	for act := range g.All() {
		if !act.IsRoot {
			continue
		}
		require.NoError(t, act.Err)
		for _, d := range act.Diagnostics {
			out = append(out, diag{d, act.Package.Fset.Position(d.Pos).String()})
		}
	}
	return out
}
