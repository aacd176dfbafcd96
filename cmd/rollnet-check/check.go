package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/rollnet/rollnet/internal/shipenv"
	"github.com/rollnet/rollnet/internal/simvet"
	"github.com/rollnet/rollnet/shipcheck"
)

const shipcheckPath = "github.com/rollnet/rollnet/shipcheck"

// testPattern selects the tests that register games.
const testPattern = "^TestShipCheck"

// check is one run of the command.
type check struct {
	out      io.Writer
	frames   int
	seed     uint64
	arches   []string
	verbose  bool
	findings []finding
	games    []game // the packages whose tests call shipcheck.Run
	analyzed int    // packages analyzed
}

// game is a package whose tests call shipcheck.Run.
type game struct{ path, dir string }

// finding is one of the analyzer's reports.
type finding struct {
	pos      token.Position
	category string
	message  string
}

// String is file:line:col: message, the file relative to the current
// directory when under it.
func (f finding) String() string {
	name := f.pos.Filename
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
	}
	return fmt.Sprintf("%s:%d:%d: %s", name, f.pos.Line, f.pos.Column, f.message)
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rollnet-check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &check{out: stdout}
	fs.IntVar(&c.frames, "frames", shipcheck.DefaultFrames, "frames of every game's sync test and recording")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the random inputs")
	arches := fs.String("arch", "386,arm64,riscv64", "comma-separated GOARCH values to replay the recordings on (empty: none)")
	fusedArch := fs.String("fused-arch", "", "the analyzer's -fused-arch: GOARCH values whose compiled fused multiply-adds are read (empty: the analyzer's default, arm64,riscv64)")
	noCompiler := fs.Bool("no-compiler", false, "the analyzer's -no-compiler: keep its source rule for fused multiply-adds alone")
	fs.BoolVar(&c.verbose, "v", false, "print the tests' output")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rollnet-check [flags] [packages]\n\n"+
			"Runs rollnet-vet's analyzer over the packages, then every TestShipCheck in them\n"+
			"(see package shipcheck): a sync test with random inputs and its recording, replayed\n"+
			"on other architectures. The last line is the verdict.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.frames < 1 {
		fmt.Fprintln(stderr, "rollnet-check: -frames must be above 0")
		return 2
	}
	for a := range strings.SplitSeq(*arches, ",") {
		if a = strings.TrimSpace(a); a != "" && a != runtime.GOARCH {
			c.arches = append(c.arches, a)
		}
	}
	if *fusedArch != "" {
		_ = simvet.Analyzer.Flags.Set("fused-arch", *fusedArch)
	}
	if *noCompiler {
		_ = simvet.Analyzer.Flags.Set("no-compiler", "true")
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	verdict, ok := c.check(patterns)
	fmt.Fprintln(stdout, "rollnet-check: "+verdict)
	if !ok {
		return 1
	}
	return 0
}

// check runs the three parts and returns the verdict and whether it is
// agreed.
func (c *check) check(patterns []string) (string, bool) {
	start := time.Now()
	if err := c.analyze(patterns); err != nil {
		return "failed: " + err.Error(), false
	}
	for _, f := range c.findings {
		fmt.Fprintln(c.out, f)
	}
	fmt.Fprintf(c.out, "rollnet-check: rollnet-vet: %s (%.0fs)\n", c.vetSummary(), time.Since(start).Seconds())
	if len(c.games) == 0 {
		return fmt.Sprintf("failed: no game to check: no test named TestShipCheck... calls shipcheck.Run in %s (rollnet-vet: %s)",
			strings.Join(patterns, " "), c.vetSummary()), false
	}
	dir, err := os.MkdirTemp("", "rollnet-check")
	if err != nil {
		return "failed: " + err.Error(), false
	}
	defer os.RemoveAll(dir)
	env := []string{
		shipenv.Dir + "=" + dir,
		shipenv.Frames + "=" + strconv.Itoa(c.frames),
		shipenv.Seed + "=" + strconv.FormatUint(c.seed, 10),
	}
	start = time.Now()
	if err := c.goTest(runtime.GOARCH, "", append(env, shipenv.Step+"="+shipenv.StepSync)); err != nil {
		return "failed: " + err.Error(), false
	}
	fmt.Fprintf(c.out, "rollnet-check: sync tests and recordings on %s (%.0fs)\n", runtime.GOARCH, time.Since(start).Seconds())
	results, err := readResults(dir)
	if err != nil {
		return "failed: " + err.Error(), false
	}
	for _, r := range results {
		fmt.Fprintln(c.out, "rollnet-check: "+r.Summary())
	}
	replayed, skipped := []string{}, []string{}
	if agreed(results) {
		var (
			mu   sync.Mutex
			errs = map[string]error{}
			wg   sync.WaitGroup
		)
		for _, arch := range c.arches {
			exe, why := emulator(arch)
			if why != "" {
				skipped = append(skipped, arch+" ("+why+")")
				fmt.Fprintf(c.out, "rollnet-check: %s skipped: %s\n", arch, why)
				continue
			}
			replayed = append(replayed, arch)
			wg.Go(func() {
				start := time.Now()
				err := c.goTest(arch, exe, append(env, shipenv.Step+"="+shipenv.StepReplay))
				mu.Lock()
				fmt.Fprintf(c.out, "rollnet-check: replays built for %s (%.0fs)\n", arch, time.Since(start).Seconds())
				errs[arch] = err
				mu.Unlock()
			})
		}
		wg.Wait()
		for _, arch := range replayed {
			if errs[arch] != nil {
				return "failed: " + errs[arch].Error(), false
			}
		}
		if results, err = readResults(dir); err != nil {
			return "failed: " + err.Error(), false
		}
		for _, r := range results {
			if r.Step == shipenv.StepReplay {
				fmt.Fprintln(c.out, "rollnet-check: "+r.Summary())
			}
		}
	}
	return c.verdict(results, replayed, skipped)
}

// agreed reports whether every result agreed.
func agreed(results []shipenv.Result) bool {
	for _, r := range results {
		if !r.Agreed {
			return false
		}
	}
	return true
}

// verdict is the last line, from the results and the findings.
func (c *check) verdict(results []shipenv.Result, replayed, skipped []string) (string, bool) {
	var names []string
	for _, r := range results {
		if r.Err != "" {
			return "failed: " + r.Summary(), false
		}
		if !r.Agreed {
			return "differs: " + r.Summary() + "; " + c.explain(r), false
		}
		if !slices.Contains(names, r.Game) {
			names = append(names, r.Game)
		}
	}
	for _, g := range c.games {
		if !slices.ContainsFunc(results, func(r shipenv.Result) bool { return r.Step == shipenv.StepSync && sameDir(r.Dir, g.dir) }) {
			return fmt.Sprintf("failed: %s: no check ran (is shipcheck.Run called from a test whose name starts with TestShipCheck?)", g.path), false
		}
	}
	what := fmt.Sprintf("%s: %d-frame sync tests with random inputs (seed %d) on %s/%s", strings.Join(names, ", "), c.frames, c.seed, runtime.GOOS, runtime.GOARCH)
	if len(replayed) > 0 {
		what += ", replays agreed on " + strings.Join(replayed, ", ")
	}
	if len(skipped) > 0 {
		what += "; not replayed on " + strings.Join(skipped, ", ")
	}
	if len(c.findings) > 0 {
		return fmt.Sprintf("findings: rollnet-vet reports %d (above; first: %s); %s agreed", len(c.findings), c.findings[0], what), false
	}
	return fmt.Sprintf("agreed: rollnet-vet found nothing in %s; %s", countPackages(c.analyzed), what), true
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// vetSummary says what the analyzer found.
func (c *check) vetSummary() string {
	if len(c.findings) == 0 {
		return "nothing in " + countPackages(c.analyzed)
	}
	return fmt.Sprintf("%d findings in %s (above)", len(c.findings), countPackages(c.analyzed))
}

// countPackages is "1 package" or "N packages".
func countPackages(n int) string {
	if n == 1 {
		return "1 package"
	}
	return strconv.Itoa(n) + " packages"
}

// analyze loads the packages with their tests, runs the analyzer over
// them, and finds the packages whose tests call shipcheck.Run.
func (c *check) analyze(patterns []string) error {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax | packages.NeedModule, Tests: true}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return err
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("%s matched no packages", strings.Join(patterns, " "))
	}
	var broken []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			broken = append(broken, e.Error())
		}
	})
	if len(broken) > 0 {
		return fmt.Errorf("the packages do not build: %s", strings.Join(broken, "; "))
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{simvet.Analyzer}, pkgs, nil)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	analyzed := map[string]bool{}
	for _, act := range graph.Roots {
		if act.Err != nil {
			return fmt.Errorf("rollnet-vet: %s: %w", act.Package.PkgPath, act.Err)
		}
		if !strings.HasSuffix(act.Package.PkgPath, ".test") {
			analyzed[act.Package.PkgPath] = true
		}
		for _, d := range act.Diagnostics {
			f := finding{pos: act.Package.Fset.Position(d.Pos), category: d.Category, message: d.Message}
			if key := f.pos.String() + f.message; !seen[key] {
				seen[key] = true
				c.findings = append(c.findings, f)
			}
		}
		if g, ok := registers(act.Package); ok && !slices.Contains(c.games, g) {
			c.games = append(c.games, g)
		}
	}
	c.analyzed = len(analyzed)
	sort.Slice(c.findings, func(i, j int) bool {
		a, b := c.findings[i].pos, c.findings[j].pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	sort.Slice(c.games, func(i, j int) bool { return c.games[i].path < c.games[j].path })
	return nil
}

// registers returns the package whose tests call shipcheck.Run in p's
// files, if they do.
func registers(p *packages.Package) (game, bool) {
	if p.TypesInfo == nil || len(p.GoFiles) == 0 {
		return game{}, false
	}
	for _, file := range p.Syntax {
		found := false
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || found {
				return !found
			}
			fun := ast.Unparen(call.Fun)
			if ix, ok := fun.(*ast.IndexListExpr); ok {
				fun = ix.X
			}
			if ix, ok := fun.(*ast.IndexExpr); ok {
				fun = ix.X
			}
			sel, ok := fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if fn, ok := p.TypesInfo.Uses[sel.Sel].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == shipcheckPath && fn.Name() == "Run" {
				found = true
			}
			return !found
		})
		if found {
			path := p.ForTest
			if path == "" {
				path = strings.TrimSuffix(p.PkgPath, "_test")
			}
			return game{path: path, dir: filepath.Dir(p.GoFiles[0])}, true
		}
	}
	return game{}, false
}

// emulator returns how to run a test built for arch here: "" natively or
// through binfmt_misc, else the qemu-user binary to name with go test
// -exec; or why it cannot.
func emulator(arch string) (exe, why string) {
	if runtime.GOOS != "linux" {
		return "", "replays on other architectures need linux"
	}
	if runtime.GOARCH == "amd64" && arch == "386" || runtime.GOARCH == "arm64" && arch == "arm" {
		return "", ""
	}
	q, ok := map[string]string{"386": "i386", "amd64": "x86_64", "arm": "arm", "arm64": "aarch64", "riscv64": "riscv64",
		"ppc64le": "ppc64le", "s390x": "s390x", "loong64": "loongarch64", "mips64le": "mips64el"}[arch]
	if !ok {
		return "", "no qemu-user emulator known for " + arch
	}
	if b, err := os.ReadFile("/proc/sys/fs/binfmt_misc/qemu-" + q); err == nil && bytes.HasPrefix(b, []byte("enabled")) {
		return "", ""
	}
	for _, name := range []string{"qemu-" + q + "-static", "qemu-" + q} {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", "no qemu-" + q + "-static on PATH nor binfmt_misc entry (Debian: apt install qemu-user-static)"
}

// goTest runs the games' tests built for arch (under exe, if not ""),
// with env added.
func (c *check) goTest(arch, exe string, env []string) error {
	args := []string{"test", "-count=1", "-run", testPattern}
	if c.verbose {
		args = append(args, "-v")
	}
	if exe != "" {
		args = append(args, "-exec", exe)
	}
	for _, g := range c.games {
		args = append(args, g.path)
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(append(os.Environ(), "GOARCH="+arch), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if c.verbose || err != nil {
		fmt.Fprintf(c.out, "== go %s (GOARCH=%s)\n%s", strings.Join(args, " "), arch, out.Bytes())
	}
	if err != nil {
		return fmt.Errorf("go test built for %s failed (its output is above): %w", arch, err)
	}
	return nil
}
