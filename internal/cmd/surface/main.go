// Command surface counts the exported identifiers of the module's public
// packages, per package and in all, to measure the size of rollnet's API.
//
// Usage:
//
//	go run ./internal/cmd/surface [module root]
//
// The root defaults to the current directory. Its test (TestModule) fails
// when the total passes a ceiling that only comes down, to the goal of 700
// (issue 37). Counted, in non-test files:
// exported funcs, types, consts and vars, and exported methods of exported
// types. Not counted: struct fields and interface methods, and the packages
// a user cannot import or does not build against: internal/, cmd/, demo/,
// bench/, torture/, testdata/, main packages, and nested modules (ebiten/,
// which has its own go.mod). A name declared in two files of a package under
// different build constraints (a native and a js/wasm form) counts once.
package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	pkgs, err := count(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "surface:", err)
		os.Exit(1)
	}
	fmt.Print(table(pkgs))
}

// skipped are the directory names whose packages are not public API.
var skipped = map[string]bool{
	"internal": true, "cmd": true, "demo": true, "bench": true, "torture": true, "testdata": true,
}

// pkgCount is one package's count: its directory relative to the root ("."
// for the root package) and its number of exported identifiers.
type pkgCount struct {
	dir string
	n   int
}

// count walks the module at root and returns the count of every public
// package that exports something, most first (ties by directory).
func count(root string) ([]pkgCount, error) {
	names := map[string]map[string]bool{} // package directory -> exported names
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			if skipped[d.Name()] || strings.HasPrefix(d.Name(), ".") || exists(filepath.Join(p, "go.mod")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		dir, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		dir = filepath.ToSlash(dir)
		if names[dir] == nil {
			names[dir] = map[string]bool{}
		}
		for _, name := range exported(f) {
			names[dir][name] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []pkgCount
	for dir, set := range names {
		if len(set) > 0 {
			out = append(out, pkgCount{dir, len(set)})
		}
	}
	slices.SortFunc(out, func(a, b pkgCount) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.dir, b.dir))
	})
	return out, nil
}

// exported returns the exported identifiers f declares at top level; a
// method is named Type.Method, and counted only when Type is exported.
func exported(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				out = append(out, d.Name.Name)
				continue
			}
			if recv := receiver(d.Recv.List[0].Type); recv != nil && recv.IsExported() {
				out = append(out, recv.Name+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// receiver is the type name of a method's receiver: T in T, *T, T[P] and
// *T[P, Q].
func receiver(t ast.Expr) *ast.Ident {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x
		default:
			return nil
		}
	}
}

// table prints the counts one package a line, then the total.
func table(pkgs []pkgCount) string {
	var b strings.Builder
	total := 0
	for _, p := range pkgs {
		fmt.Fprintf(&b, "%5d  %s\n", p.n, p.dir)
		total += p.n
	}
	fmt.Fprintf(&b, "%5d  total (%d packages)\n", total, len(pkgs))
	return b.String()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
