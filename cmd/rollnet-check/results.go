package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/rollnet/rollnet/internal/shipenv"
)

// readResults reads the Results that shipcheck.Run wrote to dir (its
// shipenv.Dir), sorted
// by directory, game, then sync tests before replays.
func readResults(dir string) ([]shipenv.Result, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []shipenv.Result
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r shipenv.Result
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("shipcheck: %s: %w", filepath.Base(p), err)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Dir != b.Dir {
			return a.Dir < b.Dir
		}
		if a.Game != b.Game {
			return a.Game < b.Game
		}
		return a.Step == shipenv.StepSync && b.Step != shipenv.StepSync
	})
	return out, nil
}
