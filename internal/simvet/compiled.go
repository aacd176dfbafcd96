package simvet

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The compiler's own fused multiply-adds.
//
// The source rule (rules.go) sees a product and an add in one function;
// once the compiler inlines a helper (v.Mult(k).Add(w), a product local
// passed to a small sum) the multiply and the add meet in the caller, and
// only the compiler knows. So for every package whose simulation could
// hold a float multiply, the analyzer compiles it for the targets that
// fuse, with
//
//	GOARCH=arm64 go list -export -test -e -gcflags=<path>=-S <path>
//
// and reads the assembly: go list -export compiles the package and its
// test variants without linking anything (go build -gcflags=-S of a main
// package, or go test -c, would link a binary first, and go tool objdump
// of that binary would then give the same innermost lines without the
// function boundaries -S prints). Each instruction line of -S names the
// innermost source position (for an inlined helper, the helper's line),
// and each function header names the compiled function it belongs to: the
// function that has to be reachable from the simulation. The compiler
// caches both the export data and its printed output, so a second run
// replays them.

// fusedInstr matches a fused multiply-add mnemonic of any of Go's
// targets: arm64 and riscv64 FMADDD, FMSUBS, FNMADDD, FNMSUBD; ppc64le and
// s390x FMADD, FMSUBS, FNMADD; amd64 (GOAMD64=v3) VFMADD231SD and the like.
var fusedInstr = regexp.MustCompile(`^V?FN?M(ADD|SUB)[0-9]*[SD]?[SD]?$`)

// fusedSite is one line of one compiled function where the compiler
// emitted a fused multiply-add.
type fusedSite struct {
	Arch  string // the first target it was found for
	Instr string // the instruction, as -S prints it
	File  string // absolute file name of the innermost position
	Line  int
}

// asmListing is what -S printed for one compiled package variant:
// compiled function symbol -> its fused sites, in order.
type asmListing map[string][]fusedSite

// compileKey identifies one go list run (an import path pattern means the
// same from every directory of its module).
type compileKey struct{ arch, path string }

// compileResult is one run's listings by section ("p", "p [p.test]",
// "p_test [p.test]") and the error, if the package did not compile.
type compileResult struct {
	sections map[string]asmListing
	err      error
}

var (
	compileMu    sync.Mutex
	compileCache = map[compileKey]*compileOnce{}
)

type compileOnce struct {
	once sync.Once
	res  compileResult
}

// compileFused compiles the packages path matches (and their test
// variants) for arch from dir, once per process, and returns their
// listings.
func compileFused(arch, dir, path string) compileResult {
	k := compileKey{arch, path}
	compileMu.Lock()
	c := compileCache[k]
	if c == nil {
		c = &compileOnce{}
		compileCache[k] = c
	}
	compileMu.Unlock()
	c.once.Do(func() {
		// One go command at a time: two at once would each compile the
		// dependencies they share, neither finding the other's in the cache.
		runMu.Lock()
		defer runMu.Unlock()
		c.res = runCompiler(arch, dir, path)
	})
	return c.res
}

var runMu sync.Mutex

// runCompiler runs go list -export with -S for path (a package or a
// pattern) and parses what the compiler printed.
func runCompiler(arch, dir, path string) compileResult {
	cmd := exec.Command("go", "list", "-export", "-test", "-e", "-f", "{{if .Error}}{{.Error}}{{end}}", "-gcflags="+path+"=-S", path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOARCH="+arch, "GOOS=linux", "CGO_ENABLED=0", "GOFLAGS=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if os.Getenv("ROLLNET_VET_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "rollnet-vet: GOARCH=%s go list -export %s: %v\n", arch, path, time.Since(start).Round(time.Millisecond))
	}
	sections := parseAsm(stderr.Bytes(), arch)
	if err == nil && strings.TrimSpace(stdout.String()) != "" {
		err = fmt.Errorf("%s", strings.TrimSpace(stdout.String()))
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 && len(sections) > 0 {
			msg = msg[:i]
		}
		err = fmt.Errorf("GOARCH=%s go list -export %s: %v: %s", arch, path, err, firstLines(msg, 3))
	}
	return compileResult{sections: sections, err: err}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "; ")
}

// parseAsm parses the compiler's -S output: "# section" lines, function
// headers ("sym STEXT size=..."), and instruction lines
// ("\t0x0008 00008 (file.go:5)\tFMADDD\tF1, F3, F0, F1").
func parseAsm(out []byte, arch string) map[string]asmListing {
	sections := map[string]asmListing{}
	var cur asmListing
	var sym string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# "):
			name := strings.TrimPrefix(line, "# ")
			cur = sections[name]
			if cur == nil {
				cur = asmListing{}
				sections[name] = cur
			}
			sym = ""
		case cur == nil:
		case !strings.HasPrefix(line, "\t"):
			if i := strings.Index(line, " STEXT"); i > 0 {
				sym = line[:i]
			} else {
				sym = "" // data symbols
			}
		case sym != "":
			site, ok := parseInstr(line)
			if !ok {
				continue
			}
			site.Arch = arch
			cur[sym] = append(cur[sym], site)
		}
	}
	return sections
}

// parseInstr parses one instruction line if it is a fused multiply-add.
func parseInstr(line string) (fusedSite, bool) {
	open := strings.IndexByte(line, '(')
	close := strings.Index(line, ")\t")
	if open < 0 || close < open {
		return fusedSite{}, false
	}
	rest := strings.TrimLeft(line[close+2:], "\t ")
	op, _, _ := strings.Cut(rest, "\t")
	op = strings.TrimSpace(op)
	if !fusedInstr.MatchString(op) {
		return fusedSite{}, false
	}
	pos := line[open+1 : close]
	colon := strings.LastIndexByte(pos, ':')
	if colon < 0 {
		return fusedSite{}, false
	}
	n, err := strconv.Atoi(pos[colon+1:])
	if err != nil {
		return fusedSite{}, false
	}
	return fusedSite{Instr: op, File: pos[:colon], Line: n}, true
}

// symbolPath splits a compiled function's symbol, given its package's
// symbol prefix, into the names that lead to it: "(*Body).Step.func1" is
// ["Body", "Step", "func1"] with method set; type arguments ([go.shape...])
// are dropped. It returns nil if the symbol is not of that package.
func symbolPath(sym, prefix string) (names []string, method bool) {
	rest, ok := strings.CutPrefix(sym, prefix+".")
	if !ok {
		return nil, false
	}
	// Drop type arguments: they may hold dots.
	var b strings.Builder
	depth := 0
	for _, r := range rest {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	rest = b.String()
	if strings.HasPrefix(rest, "(*") {
		if i := strings.Index(rest, ")."); i > 0 {
			rest = rest[2:i] + "." + rest[i+2:]
			method = true
		}
	}
	return strings.Split(rest, "."), method
}

// sortedSites orders sites by file and line.
func sortedSites(sites []fusedSite) []fusedSite {
	sort.SliceStable(sites, func(i, j int) bool {
		if sites[i].File != sites[j].File {
			return sites[i].File < sites[j].File
		}
		return sites[i].Line < sites[j].Line
	})
	return sites
}

// sameFile reports whether two file names name the same file.
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	ca, err1 := filepath.EvalSymlinks(a)
	cb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ca == cb
}
