package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/rollnet/rollnet/internal/shipenv"
)

// Which analyzer categories explain a difference: a sync test catches
// what differs from one run of a frame to the next in one process; a
// replay elsewhere, what one architecture computes differently.
var (
	syncCategories   = []string{"global", "maprange", "random", "wallclock", "concurrency", "pool", "address", "io", "unsafe", "reflect", "dynamic"}
	fusedCategories  = []string{"fma", "fused", "math"}
	nativeCategories = []string{"math", "unsafe"}
)

// explain names the analyzer's finding that explains r's difference: the
// best of those whose category fits the step (and architecture) and whose
// line names the differing field, in the game's package first.
func (c *check) explain(r shipenv.Result) string {
	fits := syncCategories
	if r.Step == shipenv.StepReplay {
		fits = nativeCategories
		arch := r.Arch[strings.Index(r.Arch, "/")+1:]
		if arch != "386" && arch != "amd64" && arch != "arm" {
			fits = fusedCategories
		}
	}
	field := fieldName(r.Field)
	best, bestScore := -1, 0
	for i, f := range c.findings {
		score := 0
		for _, cat := range fits {
			if f.category == cat {
				score += 4
			}
		}
		if field != nil && field.MatchString(sourceLine(f.pos.Filename, f.pos.Line)) {
			score += 2
		}
		if score > 0 && r.Dir != "" && strings.HasPrefix(f.pos.Filename, r.Dir+string(os.PathSeparator)) {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		if len(c.findings) > 0 {
			return fmt.Sprintf("none of rollnet-vet's %d findings (above) fits it", len(c.findings))
		}
		return "rollnet-vet reports nothing that explains it"
	}
	return "rollnet-vet explains it: " + c.findings[best].String()
}

// fieldName matches the last name in a field path ("World.Tanks[1].X" gives
// X) as a word, or is nil.
func fieldName(path string) *regexp.Regexp {
	path = strings.TrimRight(path, "]0123456789[")
	name := path[strings.LastIndex(path, ".")+1:]
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	if name == "" {
		return nil
	}
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
}

// sourceLine returns line n of file, or "".
func sourceLine(file string, n int) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
