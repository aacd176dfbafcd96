package simvet

import (
	"fmt"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
)

// compilerEnv points the go command the analyzer runs at testdata, as
// analysistest's loader is (GOPATH mode).
func compilerEnv(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(analysistest.TestData())
	require.NoError(t, err)
	t.Setenv("GOPATH", dir)
	t.Setenv("GO111MODULE", "off")
	t.Setenv("GOFLAGS", "")
	return dir
}

// The engine-shaped fixtures: every fused line is reported with its fix,
// through the helpers the compiler inlined.
func TestFused(t *testing.T) {
	compilerEnv(t)
	analysistest.Run(t, analysistest.TestData(), Analyzer, "example.com/physics", "example.com/funcs", "example.com/initial", "example.com/pool", "example.com/noise")
}

// Every line the arm64 compiler fuses in a function the simulation
// reaches is reported, by the compiler rule or by the source rule at
// that line; nothing in the unreached function is. The compiler's output
// is read here on its own, not through the analyzer's parser.
func TestFusedMatchesCompiler(t *testing.T) {
	dir := compilerEnv(t)
	for _, pkg := range []string{"example.com/physics"} {
		out := runGo(t, dir, "GOARCH=arm64", "list", "-export", "-e", "-gcflags="+pkg+"=-S", pkg)
		want := map[string]bool{}
		var unreached []string
		fn := ""
		instr := regexp.MustCompile(`\((.*):(\d+)\)\t(FN?M(ADD|SUB)[SD])\t`)
		for _, line := range strings.Split(out, "\n") {
			if i := strings.Index(line, " STEXT"); i > 0 && !strings.HasPrefix(line, "\t") {
				fn = line[:i]
				continue
			}
			m := instr.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			key := filepath.Base(m[1]) + ":" + m[2]
			if strings.HasSuffix(fn, ".unreached") {
				unreached = append(unreached, key)
				continue
			}
			want[key] = true
		}
		require.NotEmpty(t, want)
		require.NotEmpty(t, unreached)
		covered := func(diags []posDiag) map[string]bool {
			got := map[string]bool{}
			lead := regexp.MustCompile(`^([^ :]+\.go):(\d+):`)
			for _, d := range diags {
				got[filepath.Base(d.pos.Filename)+":"+fmt.Sprint(d.pos.Line)] = true
				if m := lead.FindStringSubmatch(d.Message); m != nil {
					got[filepath.Base(m[1])+":"+m[2]] = true
				}
			}
			return got
		}
		missing := func(got map[string]bool) []string {
			var missed []string
			for k := range want {
				if !got[k] {
					missed = append(missed, k)
				}
			}
			sort.Strings(missed)
			return missed
		}
		// The source rule alone (-no-compiler) misses some: what this
		// test is for.
		compilerOff = true
		before := runAnalyzer(t, dir, pkg)
		compilerOff = false
		require.NotEmpty(t, missing(covered(before)), "the source rule alone finds every fused line: the fixture no longer tests the compiler rule")
		diags := runAnalyzer(t, dir, pkg)
		got := covered(diags)
		t.Logf("%s: %d fused lines in reachable code (arm64); source rule alone: %d findings %v, missing %d lines; with the compiler: %d findings %v, missing %d",
			pkg, len(want), len(before), byCategory(before), len(missing(covered(before))), len(diags), byCategory(diags), len(missing(got)))
		require.Empty(t, missing(got), "fused by the arm64 compiler in reachable code, not reported (got %v)", got)
		for _, k := range unreached {
			if strings.HasPrefix(k, "physics.go:") {
				require.False(t, got[k], "%s is in a function the simulation does not reach", k)
			}
		}
	}
}

// byCategory counts findings by category.
func byCategory(diags []posDiag) map[string]int {
	n := map[string]int{}
	for _, d := range diags {
		n[d.Category]++
	}
	return n
}

type posDiag struct {
	analysis.Diagnostic
	pos token.Position
}

// runAnalyzer runs the analyzer over pkg in testdata and returns its
// findings in pkg.
func runAnalyzer(t *testing.T, dir, pkg string) []posDiag {
	t.Helper()
	var out []posDiag
	rt := &recordingT{T: t}
	for _, r := range analysistest.Run(rt, dir, Analyzer, pkg) {
		for _, d := range r.Diagnostics {
			out = append(out, posDiag{d, r.Pass.Fset.Position(d.Pos)})
		}
	}
	return out
}

// recordingT swallows analysistest's complaints about // want comments:
// runAnalyzer only wants the findings.
type recordingT struct{ *testing.T }

func (r *recordingT) Errorf(format string, args ...any) {}

func runGo(t *testing.T, dir string, env string, args ...string) string {
	t.Helper()
	cmd := execGo(dir, env, args...)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return string(b)
}

var _ = os.Getenv

func execGo(dir, env string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env)
	return cmd
}

// The noise classes are set apart: -info shows them, as informational,
// and without it only the state that carries between frames is reported.
func TestInfo(t *testing.T) {
	dir := compilerEnv(t)
	quiet := byCategory(runAnalyzer(t, dir, "example.com/noise"))
	showInfo = true
	defer func() { showInfo = false }()
	diags := runAnalyzer(t, dir, "example.com/noise")
	loud := byCategory(diags)
	t.Logf("example.com/noise: without -info %v, with -info %v", quiet, loud)
	require.Equal(t, 2, quiet["global"], "carry's write and read")
	require.Zero(t, quiet["info"])
	require.Equal(t, 2, loud["global"])
	var classes []string
	for _, d := range diags {
		if d.Category == "info" {
			classes = append(classes, d.Message)
		}
	}
	all := strings.Join(classes, "\n")
	for _, want := range []string{"steps is a counter", "contacts is scratch", "table is set up once", "lut is set up once"} {
		require.Contains(t, all, want)
	}
}
