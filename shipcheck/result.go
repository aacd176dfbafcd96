package shipcheck

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/rollnet/rollnet/internal/shipenv"
)

// stepFile is a step's name in a file name.
func stepFile(step string) string { return strings.ReplaceAll(step, " ", "") }

// writeResult writes r for cmd/rollnet-check (JSON).
func writeResult(r shipenv.Result, path string) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
