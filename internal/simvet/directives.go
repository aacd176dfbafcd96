package simvet

import (
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// The directives, written as line comments with no space after //.
const (
	okDirective       = "//rollnet:ok"
	simulateDirective = "//rollnet:simulate"
)

// suppressions are a package's //rollnet:ok comments.
type suppressions struct {
	lines map[string]map[int]bool // file name, line: a //rollnet:ok with a reason
	funcs [][2]token.Pos          // functions whose doc comment holds one
	bad   []token.Pos             // //rollnet:ok comments without a reason
}

// parseSuppressions reads every //rollnet:ok comment of the package.
func parseSuppressions(pass *analysis.Pass) *suppressions {
	s := &suppressions{lines: map[string]map[int]bool{}}
	for _, f := range pass.Files {
		for _, g := range f.Comments {
			for _, cm := range g.List {
				reason, ok := directive(cm.Text, okDirective)
				if !ok {
					continue
				}
				if reason == "" {
					s.bad = append(s.bad, cm.Pos())
					continue
				}
				p := pass.Fset.Position(cm.Pos())
				if s.lines[p.Filename] == nil {
					s.lines[p.Filename] = map[int]bool{}
				}
				s.lines[p.Filename][p.Line] = true
			}
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
				for _, cm := range fd.Doc.List {
					if reason, ok := directive(cm.Text, okDirective); ok && reason != "" {
						s.funcs = append(s.funcs, [2]token.Pos{fd.Pos(), fd.End()})
					}
				}
			}
		}
	}
	return s
}

// directive reports whether text is the comment d, and returns what
// follows it.
func directive(text, d string) (rest string, ok bool) {
	rest, ok = strings.CutPrefix(text, d)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	// A comment inside the comment (// want in the analyzer's tests) is
	// not a reason.
	rest, _, _ = strings.Cut(rest, "//")
	return strings.TrimSpace(rest), true
}

// hasDirective reports whether doc holds the comment d.
func hasDirective(doc *ast.CommentGroup, d string) bool {
	if doc == nil {
		return false
	}
	for _, cm := range doc.List {
		if _, ok := directive(cm.Text, d); ok {
			return true
		}
	}
	return false
}

// covers reports whether a //rollnet:ok on pos's line, on the line above
// it, or in the doc comment of the function around it, silences a finding
// at pos.
func (s *suppressions) covers(fset *token.FileSet, pos token.Pos) bool {
	if ignoreOK {
		return false
	}
	p := fset.Position(pos)
	if l := s.lines[p.Filename]; l[p.Line] || l[p.Line-1] {
		return true
	}
	for _, f := range s.funcs {
		if f[0] <= pos && pos < f[1] {
			return true
		}
	}
	return false
}
