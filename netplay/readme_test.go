package netplay_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippetSource is in the paragraph before each Go snippet in the README:
// it says where the snippet runs: "... the body of `NAME` in [PATH](PATH) ...".
var snippetSource = regexp.MustCompile("body of `(\\w+)` in \\[([^\\]]+_test\\.go)\\]")

// TestREADMESnippets checks that every Go snippet of the README is, byte
// for byte (less one level of indentation), the body of the function the
// README names, in a test file whose examples run it: a snippet that does
// not compile or cannot work fails CI with its example.
func TestREADMESnippets(t *testing.T) {
	root := filepath.Join("..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	lines := strings.Split(string(readme), "\n")
	checked := 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		snippet := strings.Join(lines[i+1:j], "\n")
		if strings.HasPrefix(snippet, "package ") {
			i = j // a whole file shown (rollnet-vet's input), not code a game runs
			continue
		}
		k := i - 1
		for k >= 0 && strings.TrimSpace(lines[k]) == "" {
			k--
		}
		require.True(t, k >= 0, "README line %d: a Go snippet with nothing before it", i+1)
		para := []string{}
		for ; k >= 0 && strings.TrimSpace(lines[k]) != ""; k-- {
			para = append([]string{strings.TrimSpace(lines[k])}, para...)
		}
		m := snippetSource.FindStringSubmatch(strings.Join(para, " "))
		require.NotNil(t, m, "README line %d: the paragraph before a Go snippet must say \"the body of `NAME` in [PATH](PATH)\", got %q", i+1, para)
		body := funcBody(t, filepath.Join(root, m[2]), m[1])
		require.Equal(t, body, snippet, "README line %d: the snippet differs from the body of %s in %s", i+1, m[1], m[2])
		checked++
		i = j
	}
	require.GreaterOrEqual(t, checked, 4, "Go snippets checked")
}

// funcBody is the source of the body of func name in path, one tab of
// indentation removed.
func funcBody(t *testing.T, path, name string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	require.NoError(t, err)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || fd.Body == nil {
			continue
		}
		inner := string(src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset])
		inner = strings.Trim(inner, "\n")
		out := strings.Split(inner, "\n")
		for i, l := range out {
			out[i] = strings.TrimPrefix(l, "\t")
		}
		return strings.Join(out, "\n")
	}
	t.Fatalf("%s: no func %s", path, name)
	return ""
}
