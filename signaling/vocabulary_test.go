package signaling

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// exportedNames returns the exported package-level names declared in the
// non-test Go files of dir (of every build: server_js.go too), each with
// the file that declares it.
func exportedNames(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	names := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = f
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names[s.Name.Name] = f
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names[n.Name] = f
							}
						}
					}
				}
			}
		}
	}
	return names
}

// TestOneVocabulary: the server names nothing that signaling/client names
// (Client, Dial, Config, Event, Signal, ICEServer, the errors, the close
// codes): each thing has one name, the client's, and a program that runs
// both imports the client for it.
func TestOneVocabulary(t *testing.T) {
	ours, clients := exportedNames(t, "."), exportedNames(t, "client")
	require.Contains(t, ours, "NewServer", "the server's names were read")
	require.Contains(t, clients, "Dial", "the client's names were read")
	var both []string
	for n, f := range ours {
		if _, ok := clients[n]; ok {
			both = append(both, n+" ("+f+")")
		}
	}
	sort.Strings(both)
	require.Empty(t, both, "named by the server and by signaling/client: keep the client's name only")
}
