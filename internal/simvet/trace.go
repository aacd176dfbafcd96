package simvet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"

	"golang.org/x/tools/go/analysis"
)

// The fix for a fused line: the compiler names the add (an FMADD has the
// position of the add it replaced), so the product that feeds it is found
// in the source, following the inlining back: an operand that is a
// parameter of the inlined helper is the argument at the call in the
// compiled function, a field of a call's result is that field in the
// called function's returned composite literal, a local is what it was
// assigned. Where the product is in this package the finding carries the
// conversion as its suggested fix; elsewhere it names the place.

// srcFunc is a function body being traced: in this package (info set)
// or parsed from another package's file (info nil).
type srcFunc struct {
	node ast.Node // *ast.FuncDecl or *ast.FuncLit
	fset *token.FileSet
	info *types.Info
}

// traced is where the product was found.
type traced struct {
	hint  string
	edits []analysis.TextEdit
}

const maxTrace = 6

// traceFused finds the product that feeds the add of site s, compiled in g.
// With pin set, the helper's parameters are followed to that call only.
// ok is false if the product was not found.
func (c *checker) traceFused(g ast.Node, s *compiledSite, pin *ast.CallExpr) (hint string, edits []analysis.TextEdit, ok bool) {
	c.pin = pin
	defer func() { c.pin = nil }()
	gs := srcFunc{node: g, fset: c.pass.Fset, info: c.pass.TypesInfo}
	var h srcFunc
	var adds [][]ast.Expr
	if tf := c.passFile(s.File); tf != nil {
		f := c.fileAST(tf)
		h = srcFunc{node: innermostFunc(f, c.pass.Fset, s.Line), fset: c.pass.Fset, info: c.pass.TypesInfo}
		adds = addsAtLine(f, c.pass.Fset, c.pass.TypesInfo, s.Line)
	} else if pf := parseOther(s.File); pf != nil {
		h = srcFunc{node: innermostFunc(pf.file, pf.fset, s.Line), fset: pf.fset}
		adds = addsAtLine(pf.file, pf.fset, nil, s.Line)
	}
	if h.node == nil {
		return "convert the float product that feeds this add to its type where it is computed", nil, false
	}
	for _, operands := range adds {
		for _, e := range operands {
			if t := c.trace(e, h, gs, nil, 0); t != nil {
				return t.hint, t.edits, true
			}
		}
	}
	return "convert the float product that feeds this add to its type where it is computed (the analyzer did not find it in the source)", nil, false
}

// innermostFunc returns the innermost function (declaration or literal)
// of f around line.
func innermostFunc(f *ast.File, fset *token.FileSet, line int) ast.Node {
	var best ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			if fset.Position(n.Pos()).Line <= line && line <= fset.Position(n.End()).Line {
				best = n
				return true
			}
			return false
		}
		return true
	})
	return best
}

// addsAtLine returns the operands of every add or subtract whose operator
// is on line (float ones when info is known).
func addsAtLine(f *ast.File, fset *token.FileSet, info *types.Info, line int) [][]ast.Expr {
	var out [][]ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.ADD || n.Op == token.SUB) && fset.Position(n.OpPos).Line == line && (info == nil || isFloat(info.TypeOf(n))) {
				out = append(out, []ast.Expr{n.X, n.Y})
			}
		case *ast.AssignStmt:
			if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && fset.Position(n.TokPos).Line == line && len(n.Rhs) == 1 {
				out = append(out, []ast.Expr{n.Rhs[0]})
			}
		}
		return true
	})
	return out
}

// trace follows e, an expression in h (which the compiler inlined into g,
// or g itself), to a float product; fields is the path of struct fields
// selected from e's value.
func (c *checker) trace(e ast.Expr, h, g srcFunc, fields []string, depth int) *traced {
	if depth > maxTrace || e == nil {
		return nil
	}
	e = stripSigns(e)
	switch x := e.(type) {
	case *ast.BinaryExpr:
		if x.Op == token.MUL && len(fields) == 0 && (h.info == nil || (isFloat(h.info.TypeOf(x)) && h.info.Types[x].Value == nil)) {
			return c.productAt(x, h)
		}
	case *ast.CompositeLit:
		if len(fields) == 0 {
			return nil
		}
		if el := compositeField(x, fields[0], h.info); el != nil {
			return c.trace(el, h, g, fields[1:], depth+1)
		}
	case *ast.SelectorExpr:
		if h.info != nil {
			if sel, ok := h.info.Selections[x]; !ok || sel.Kind() != types.FieldVal {
				return nil
			}
		}
		return c.trace(x.X, h, g, append([]string{x.Sel.Name}, fields...), depth+1)
	case *ast.CallExpr:
		return c.traceCall(x, h, g, fields, depth)
	case *ast.Ident:
		// A parameter or receiver of the inlined h: the argument at the
		// call in g.
		if i, recv, ok := paramIndex(h.node, x.Name); ok && h.node != g.node {
			pin := c.pin
			c.pin = nil
			defer func() { c.pin = pin }()
			for _, ci := range c.callsOf(h, g) {
				call := ci.call
				if pin != nil && call != pin {
					continue
				}
				var arg ast.Expr
				if recv {
					if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
						arg = sel.X
					}
				} else if i < len(call.Args) {
					arg = call.Args[i]
				}
				in := srcFunc{node: ci.in, fset: c.pass.Fset, info: c.pass.TypesInfo}
				if t := c.trace(arg, in, g, fields, depth+1); t != nil {
					return t
				}
			}
			return nil
		}
		// A local: what it is assigned in h.
		for _, v := range localAssigns(h, x) {
			if t := c.trace(v, h, g, fields, depth+1); t != nil {
				return t
			}
		}
	}
	return nil
}

// traceCall follows the result of a call: the returned expressions of
// the called function, in this package or parsed from its file.
func (c *checker) traceCall(call *ast.CallExpr, h, g srcFunc, fields []string, depth int) *traced {
	var fd *ast.FuncDecl
	var k srcFunc
	if h.info != nil {
		fn := calleeFunc(h.info, call)
		if fn == nil {
			return nil
		}
		if d, ok := c.decls[fn]; ok {
			fd, k = d, srcFunc{node: d, fset: c.pass.Fset, info: c.pass.TypesInfo}
		} else if p := c.pass.Fset.Position(fn.Pos()); p.Filename != "" && filepath.IsAbs(p.Filename) {
			if pf := parseOther(p.Filename); pf != nil {
				fd = declAtLine(pf, p.Line)
				k = srcFunc{node: fd, fset: pf.fset}
			}
		}
	} else if id := calleeIdent(call.Fun); id != nil {
		// Untyped: a function of the same file by name.
		if f := fileOf(h); f != nil {
			for _, d := range f.Decls {
				if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == id.Name {
					fd, k = d, srcFunc{node: d, fset: h.fset}
					break
				}
			}
		}
	}
	if fd == nil || fd.Body == nil {
		return nil
	}
	var found *traced
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 1 {
				found = c.trace(n.Results[0], k, g, fields, depth+1)
			}
		}
		return true
	})
	return found
}

// fileOf returns the parsed file holding h (only for other packages'
// files, whose node is a declaration of a file parseOther read).
func fileOf(h srcFunc) *ast.File {
	if h.fset == nil || h.node == nil {
		return nil
	}
	name := h.fset.Position(h.node.Pos()).Filename
	if pf := parseOther(name); pf != nil {
		return pf.file
	}
	return nil
}

// productAt is the hint (and in this package, the edit) for the product m.
func (c *checker) productAt(m *ast.BinaryExpr, h srcFunc) *traced {
	t := "float64"
	if h.info != nil {
		t = typeName(c.pass, h.info.TypeOf(m))
	}
	p := h.fset.Position(m.Pos())
	if h.info != nil {
		return &traced{
			hint: fmt.Sprintf("the product is %s at line %d: write %s(%s)", short(m), p.Line, t, short(m)),
			edits: []analysis.TextEdit{
				{Pos: m.Pos(), End: m.Pos(), NewText: []byte(t + "(")},
				{Pos: m.End(), End: m.End(), NewText: []byte(")")},
			},
		}
	}
	return &traced{hint: fmt.Sprintf("the product is %s at %s:%d: write %s(%s) there (or the float type it has)",
		short(m), c.relFile(p.Filename), p.Line, t, short(m))}
}

// compositeField returns the element of a struct literal for field name.
func compositeField(lit *ast.CompositeLit, name string, info *types.Info) ast.Expr {
	for i, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return kv.Value
			}
			continue
		}
		// Positional: the i-th field of the struct type.
		if info != nil {
			if st, ok := coreType(info.TypeOf(lit)).(*types.Struct); ok && i < st.NumFields() && st.Field(i).Name() == name {
				return el
			}
			continue
		}
		if fieldIndexUntyped(lit, name) == i {
			return el
		}
	}
	return nil
}

// fieldIndexUntyped guesses a positional field's index from the struct
// declared in the same file (Vec{x, y} with type Vec struct{ X, Y float64 }).
func fieldIndexUntyped(lit *ast.CompositeLit, name string) int {
	id, ok := lit.Type.(*ast.Ident)
	if !ok || id.Obj == nil {
		return commonFieldIndex(name)
	}
	ts, ok := id.Obj.Decl.(*ast.TypeSpec)
	if !ok {
		return commonFieldIndex(name)
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return -1
	}
	i := 0
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			i++
			continue
		}
		for _, n := range f.Names {
			if n.Name == name {
				return i
			}
			i++
		}
	}
	return -1
}

// commonFieldIndex is the position of a vector's usual field names, for
// literals whose type the parse did not resolve.
func commonFieldIndex(name string) int {
	switch name {
	case "X", "x":
		return 0
	case "Y", "y":
		return 1
	case "Z", "z":
		return 2
	case "W", "w":
		return 3
	}
	return -1
}

// paramIndex returns the index of h's parameter name, or that it is h's
// receiver.
func paramIndex(h ast.Node, name string) (i int, recv, ok bool) {
	fd, isDecl := h.(*ast.FuncDecl)
	if !isDecl {
		return 0, false, false
	}
	if fd.Recv != nil {
		for _, f := range fd.Recv.List {
			for _, n := range f.Names {
				if n.Name == name {
					return 0, true, true
				}
			}
		}
	}
	for _, f := range fd.Type.Params.List {
		if len(f.Names) == 0 {
			i++
			continue
		}
		for _, n := range f.Names {
			if n.Name == name {
				return i, false, true
			}
			i++
		}
	}
	return 0, false, false
}

// callsOf returns the calls of h's function in g, or in this package's
// functions inlined into g.
func (c *checker) callsOf(h, g srcFunc) []callIn {
	fd, ok := h.node.(*ast.FuncDecl)
	if !ok {
		return nil
	}
	var want *types.Func
	if h.info != nil {
		want, _ = h.info.Defs[fd.Name].(*types.Func)
	}
	recv := ""
	if fd.Recv != nil && len(fd.Recv.List) == 1 {
		recv = recvTypeName(fd.Recv.List[0].Type)
	}
	return c.callsIn(g.node, func(fn *types.Func) bool {
		if want != nil {
			return fn == want.Origin()
		}
		return fn.Name() == fd.Name.Name && funcRecvName(fn) == recv
	})
}

// localAssigns returns what the local id names is assigned in h.
func localAssigns(h srcFunc, id *ast.Ident) []ast.Expr {
	var out []ast.Expr
	var obj types.Object
	if h.info != nil {
		obj = h.info.ObjectOf(id)
		if obj == nil {
			return nil
		}
	}
	same := func(x *ast.Ident) bool {
		if h.info != nil {
			return h.info.ObjectOf(x) == obj
		}
		return x.Name == id.Name
	}
	ast.Inspect(h.node, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) || (n.Tok != token.DEFINE && n.Tok != token.ASSIGN) {
				return true
			}
			for i, l := range n.Lhs {
				if x, ok := l.(*ast.Ident); ok && same(x) {
					out = append(out, n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i, x := range n.Names {
					if same(x) {
						out = append(out, n.Values[i])
					}
				}
			}
		}
		return true
	})
	return out
}
