package simvet

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// Every rule, positive and negative, in testdata/src/example.com: each
// line that must be reported says so with a // want comment, and every
// other line must not be.
// (One Run for all: each loads its packages' imports from source.)
func TestAnalyzer(t *testing.T) {
	compilerEnv(t)
	analysistest.Run(t, analysistest.TestData(), Analyzer,
		"example.com/bad", "example.com/good", "example.com/marked", "example.com/app", "example.com/state", "example.com/fma")
}

// The suggested fix for a fusable product is its conversion:
// testdata/src/example.com/fma/fma.go.golden is the file with every fix
// applied.
func TestFMAFixes(t *testing.T) {
	compilerEnv(t)
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), Analyzer, "example.com/fma")
}
