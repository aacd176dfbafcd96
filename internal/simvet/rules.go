package simvet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// scanner walks one body, collecting its findings and the functions it
// references.
type scanner struct {
	stack    []ast.Node // the nodes around the one visited
	c        *checker
	u        *unit
	writes   map[*ast.Ident]bool     // identifiers on the written side of an assignment
	products map[*types.Var]ast.Expr // locals assigned an unconverted float product
}

// scan returns what n (a *ast.FuncDecl or *ast.FuncLit) holds, scanning
// it once: the source rules' findings, then the fused lines the compiler
// emitted in it that the source rule did not report anywhere in the
// package.
func (c *checker) scan(n ast.Node) *unit {
	u := c.scanSource(n)
	if u.fusedDone {
		return u
	}
	u.fusedDone = true
	if len(c.compiled) == 0 {
		return u
	}
	covered := map[string]bool{}
	for k := range c.fmaCovered() {
		covered[k] = true
	}
	// And the lines the source rule reported in other packages' helpers
	// this body calls (carried by their facts).
	for _, r := range u.refs {
		if r.fn.Pkg() == c.pass.Pkg || !c.inModule(r.fn.Pkg()) {
			continue
		}
		var h hazardsFact
		if !c.pass.ImportObjectFact(r.fn, &h) {
			continue
		}
		for _, f := range h.Findings {
			if isFMAMessage(f.Message) {
				if i := strings.LastIndexByte(f.Where, ':'); i > 0 {
					covered[f.Where[:i]] = true
				}
			}
		}
	}
	u.findings = append(u.findings, c.fusedFindings(n, covered)...)
	return u
}

// fmaCovered returns the file:line of every product and add the source
// rule reports anywhere in the package.
func (c *checker) fmaCovered() map[string]bool {
	if c.covered != nil {
		return c.covered
	}
	c.covered = map[string]bool{}
	for _, d := range c.decls {
		for _, f := range c.scanSource(d).findings {
			if f.category != "fma" {
				continue
			}
			for _, p := range []token.Pos{f.pos, f.also} {
				if p.IsValid() {
					q := c.pass.Fset.Position(p)
					c.covered[fmt.Sprintf("%s:%d", q.Filename, q.Line)] = true
				}
			}
		}
	}
	return c.covered
}

// scanSource returns what the source rules find in n, scanning it once.
func (c *checker) scanSource(n ast.Node) *unit {
	if u, ok := c.units[n]; ok {
		return u
	}
	u := &unit{}
	c.units[n] = u
	var body *ast.BlockStmt
	switch n := n.(type) {
	case *ast.FuncDecl:
		body = n.Body
	case *ast.FuncLit:
		body = n.Body
	}
	if body == nil {
		return u
	}
	s := &scanner{c: c, u: u, writes: map[*ast.Ident]bool{}, products: map[*types.Var]ast.Expr{}}
	s.prepare(body)
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			s.stack = s.stack[:len(s.stack)-1]
			return true
		}
		s.stack = append(s.stack, n)
		if !s.visit(n) {
			s.stack = s.stack[:len(s.stack)-1]
			return false
		}
		return true
	})
	u.cleared = c.clearedFirst(body)
	return u
}

// lazyWrite reports whether the write being visited to v is a once-only
// lazy setup: inside if v == nil (or any condition naming v, or a
// package-level flag), or inside a function given to a sync.Once's Do.
func (s *scanner) lazyWrite(v *types.Var) bool {
	info := s.c.pass.TypesInfo
	for i := len(s.stack) - 1; i >= 0; i-- {
		switch n := s.stack[i].(type) {
		case *ast.IfStmt:
			guarded := false
			ast.Inspect(n.Cond, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					if pv := packageVar(info, id); pv != nil && (pv == v || isBool(pv.Type())) {
						guarded = true
					}
				}
				return !guarded
			})
			if guarded && i+1 < len(s.stack) && s.stack[i+1] == n.Body {
				return true
			}
		case *ast.FuncLit:
			if i > 0 {
				if call, ok := s.stack[i-1].(*ast.CallExpr); ok {
					if fn := calleeFunc(info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "sync" && fn.Name() == "Do" {
						return true
					}
				}
			}
		}
	}
	return false
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

// clearedFirst returns the package-level variables the body's first
// statement naming them clears: v = v[:0], v = nil, v = T{}, clear(v).
func (c *checker) clearedFirst(body *ast.BlockStmt) map[*types.Var]bool {
	info := c.pass.TypesInfo
	out := map[*types.Var]bool{}
	seen := map[*types.Var]bool{}
	for _, st := range body.List {
		var cleared *types.Var
		switch st := st.(type) {
		case *ast.AssignStmt:
			if len(st.Lhs) == 1 && len(st.Rhs) == 1 && st.Tok == token.ASSIGN {
				lhs, _ := st.Lhs[0].(*ast.Ident)
				if v := packageVar(info, lhs); v != nil {
					switch r := ast.Unparen(st.Rhs[0]).(type) {
					case *ast.SliceExpr:
						if r.Low == nil && r.High != nil {
							if tv, ok := info.Types[r.High]; ok && tv.Value != nil && tv.Value.String() == "0" {
								cleared = v
							}
						}
					case *ast.CompositeLit:
						if len(r.Elts) == 0 {
							cleared = v
						}
					case *ast.Ident:
						if _, ok := info.Uses[r].(*types.Nil); ok {
							cleared = v
						}
					}
				}
			}
		case *ast.ExprStmt:
			if call, ok := st.X.(*ast.CallExpr); ok && len(call.Args) == 1 {
				if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
					if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "clear" {
						cleared = packageVar(info, rootIdent(info, call.Args[0]))
					}
				}
			}
		}
		ast.Inspect(st, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok {
				if v := packageVar(info, id); v != nil && !seen[v] {
					seen[v] = true
					out[v] = v == cleared
				}
			}
			return true
		})
	}
	return out
}

// scanExpr scans one expression outside any simulation body (the one
// that builds an initial state), with the source rules only.
func (c *checker) scanExpr(e ast.Expr) *unit {
	u := &unit{}
	s := &scanner{c: c, u: u, writes: map[*ast.Ident]bool{}, products: map[*types.Var]ast.Expr{}}
	ast.Inspect(e, s.visit)
	return u
}

func (s *scanner) add(pos token.Pos, category, format string, args ...any) {
	s.u.findings = append(s.u.findings, finding{pos: pos, category: category, message: fmt.Sprintf(format, args...)})
}

// prepare finds the written identifiers and the locals holding a product.
func (s *scanner) prepare(body *ast.BlockStmt) {
	info := s.c.pass.TypesInfo
	write := func(e ast.Expr) {
		if id := rootIdent(info, e); id != nil {
			s.writes[id] = true
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if n.Tok != token.DEFINE {
					write(lhs)
				}
				if n.Tok != token.DEFINE && n.Tok != token.ASSIGN || len(n.Lhs) != len(n.Rhs) {
					continue
				}
				if v := localVar(info, lhs); v != nil {
					if m, _ := s.c.directProduct(n.Rhs[i]); m != nil {
						s.products[v] = n.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if len(n.Values) == len(n.Names) {
					if v := localVar(info, id); v != nil {
						if m, _ := s.c.directProduct(n.Values[i]); m != nil {
							s.products[v] = n.Values[i]
						}
					}
				}
			}
		case *ast.IncDecStmt:
			write(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				if n.Key != nil {
					write(n.Key)
				}
				if n.Value != nil {
					write(n.Value)
				}
			}
		}
		return true
	})
}

// localVar returns e's variable if e names a local one.
func localVar(info *types.Info, e ast.Expr) *types.Var {
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := info.ObjectOf(id).(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	return v
}

func (s *scanner) visit(n ast.Node) bool {
	info := s.c.pass.TypesInfo
	switch n := n.(type) {
	case *ast.RangeStmt:
		switch coreType(info.TypeOf(n.X)).(type) {
		case *types.Map:
			if m := coreType(info.TypeOf(n.X)).(*types.Map); isPointerKey(m.Key()) {
				s.add(n.X.Pos(), "address", "range over map %s, keyed by pointers: its order is random on every range, and sorting its keys would order them by address, which differs between peers; key it by an ID kept in the state", short(n.X))
				break
			}
			s.add(n.X.Pos(), "maprange", "range over map %s: its order is random on every range, so peers and re-simulations differ; range over a sorted slice of its keys", short(n.X))
		case *types.Chan:
			s.add(n.X.Pos(), "concurrency", "range over channel %s: what arrives, and when, is not part of the state", short(n.X))
		}
		if call, ok := n.X.(*ast.CallExpr); ok {
			if fn := calleeFunc(info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "maps" {
				s.add(n.X.Pos(), "maprange", "range over %s: a map's order is random on every range; range over slices.Sorted(%s)", short(n.X), short(n.X))
			}
		}
	case *ast.GoStmt:
		s.add(n.Go, "concurrency", "go statement: a goroutine's scheduling is not part of the state, and a rollback cannot undo it")
	case *ast.SelectStmt:
		s.add(n.Select, "concurrency", "select: which ready case runs is random")
	case *ast.SendStmt:
		s.add(n.Arrow, "concurrency", "send on channel %s: a channel's contents are not part of the state, and a rollback cannot undo a send", short(n.Chan))
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			s.add(n.OpPos, "concurrency", "receive from channel %s: what arrives, and when, is not part of the state", short(n.X))
		}
	case *ast.CallExpr:
		if s.addressOf(n) {
			return false
		}
		s.call(n)
	case *ast.SelectorExpr:
		if id, ok := n.X.(*ast.Ident); ok {
			if pn, ok := info.Uses[id].(*types.PkgName); ok {
				switch pn.Imported().Path() {
				case "unsafe":
					switch n.Sel.Name {
					case "Sizeof", "Alignof", "Offsetof":
					default:
						s.add(n.Pos(), "unsafe", "warning: unsafe.%s: memory the analyzer cannot follow; keep unsafe out of the simulation or justify it with //rollnet:ok", n.Sel.Name)
					}
				case "reflect":
					s.add(n.Pos(), "reflect", "warning: reflect.%s: reflection reaches values the analyzer cannot follow (and map order through MapRange); keep it out of the simulation or justify it with //rollnet:ok", n.Sel.Name)
				}
			}
		}
	case *ast.Ident:
		s.ident(n)
	case *ast.BinaryExpr:
		if (n.Op == token.ADD || n.Op == token.SUB) && isFloat(info.TypeOf(n)) && info.Types[n].Value == nil {
			s.fma(n, n.X, n.Y)
		}
	case *ast.AssignStmt:
		if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && len(n.Lhs) == 1 && isFloat(info.TypeOf(n.Lhs[0])) {
			s.fma(n, n.Rhs[0])
		}
	}
	return true
}

// call checks builtin close and calls through an interface.
func (s *scanner) call(call *ast.CallExpr) {
	info := s.c.pass.TypesInfo
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "close" {
			s.add(call.Pos(), "concurrency", "close of channel %s: channels are not part of the state", short(call.Args[0]))
		}
	}
	if !staticCallee(info, call) {
		if fns, lits, what, ok := s.c.dynamicCall(call); ok {
			for _, fn := range fns {
				if fn.Pkg() == nil {
					continue
				}
				if cat, msg := denied(fn); cat != "" {
					s.add(call.Pos(), cat, "%s (called through %s)", msg, what)
				} else if s.c.inModule(fn.Pkg()) {
					s.u.refs = append(s.u.refs, ref{fn: fn, pos: call.Pos()})
				}
			}
			s.u.lits = append(s.u.lits, lits...)
		} else {
			s.add(call.Pos(), "dynamic", "warning: call through function value %s: it is assigned something other than functions the analyzer can name (a parameter, a call's result, another package's variable), so its target cannot be checked; assign it only named functions, or mark its targets //rollnet:simulate", what)
			return
		}
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	selection, ok := info.Selections[sel]
	if !ok || selection.Kind() != types.MethodVal {
		return
	}
	recv := selection.Recv()
	if _, ok := recv.(*types.TypeParam); ok {
		return // instantiated statically
	}
	if types.IsInterface(recv) {
		if impls := s.c.implementations(recv, sel.Sel.Name); len(impls) > 0 {
			// Every implementation the module declares (that this package
			// can see) is followed: the call is one of them.
			for _, fn := range impls {
				s.u.refs = append(s.u.refs, ref{fn: fn, pos: sel.Sel.Pos()})
			}
			return
		}
		s.add(sel.Sel.Pos(), "dynamic", "warning: call of %s through interface %s: its dynamic target cannot be checked; call a concrete type or mark the implementations //rollnet:simulate",
			sel.Sel.Name, types.TypeString(recv, types.RelativeTo(s.c.pass.Pkg)))
	}
}

// ident checks a use of a function or a package-level variable.
func (s *scanner) ident(id *ast.Ident) {
	info := s.c.pass.TypesInfo
	switch obj := info.Uses[id].(type) {
	case *types.Func:
		fn := obj.Origin()
		if fn.Pkg() == nil {
			return
		}
		if cat, msg := denied(fn); cat != "" {
			s.add(id.Pos(), cat, "%s", msg)
			return
		}
		if s.c.inModule(fn.Pkg()) {
			s.u.refs = append(s.u.refs, ref{fn: fn, pos: id.Pos()})
		}
	case *types.Var:
		if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
			return
		}
		name := obj.Name()
		if obj.Pkg() != s.c.pass.Pkg {
			name = obj.Pkg().Name() + "." + name
			if ioPackage(obj.Pkg().Path()) {
				s.add(id.Pos(), "io", "%s: the process's environment, files and network differ between peers", name)
				return
			}
		}
		if s.writes[id] {
			s.add(id.Pos(), "global", "write to package-level variable %s: it is not rolled back with the state; keep it in the state", name)
			f := &s.u.findings[len(s.u.findings)-1]
			f.v, f.write, f.lazy = obj, true, s.lazyWrite(obj)
			return
		}
		if s.c.isWritten(obj) {
			s.add(id.Pos(), "global", "read of package-level variable %s, which is written outside init: it is not rolled back with the state; keep it in the state", name)
			s.u.findings[len(s.u.findings)-1].v = obj
		}
	}
}

// isWritten reports whether v is written outside init, here or (by its
// fact) in its own package.
func (c *checker) isWritten(v *types.Var) bool {
	if c.written[v] {
		return true
	}
	return v.Pkg() != c.pass.Pkg && c.pass.ImportObjectFact(v, new(writtenFact))
}

// fma reports an operand of an add or subtract (op) that is a float
// product Go may fuse with it.
func (s *scanner) fma(op ast.Node, operands ...ast.Expr) {
	info := s.c.pass.TypesInfo
	for _, e := range operands {
		if m, fix := s.c.directProduct(e); m != nil {
			t := typeName(s.c.pass, info.TypeOf(m))
			s.u.findings = append(s.u.findings, finding{
				pos: m.Pos(), category: "fma", also: opPos(op),
				message: fmt.Sprintf("float multiply %s feeds an add or subtract: Go may fuse them into one FMA on arm64, ppc64le, s390x and riscv64 (one rounding instead of two); write %s(%s)",
					short(m), t, short(m)),
				fixes: []analysis.SuggestedFix{{Message: "convert the product to " + t + " (rounds it, so it is not fused)", TextEdits: fix(t)}},
			})
			continue
		}
		inner := stripSigns(e)
		if v := localVar(info, inner); v != nil {
			if rhs, ok := s.products[v]; ok {
				m, fix := s.c.directProduct(rhs)
				t := typeName(s.c.pass, info.TypeOf(m))
				s.u.findings = append(s.u.findings, finding{
					pos: inner.Pos(), category: "fma", also: opPos(op),
					message: fmt.Sprintf("%s holds the float product %s and feeds an add or subtract: Go may fuse them into one FMA on arm64, ppc64le, s390x and riscv64, across statements; assign %s(%s)",
						v.Name(), short(m), t, short(m)),
					fixes: []analysis.SuggestedFix{{Message: "convert the product to " + t + " where it is assigned", TextEdits: fix(t)}},
				})
				continue
			}
		}
		if call, ok := inner.(*ast.CallExpr); ok {
			if fn := calleeFunc(info, call); fn != nil && s.c.returnsProduct(fn) {
				s.add(call.Pos(), "fma", "%s returns an unconverted float product and its result feeds an add or subtract: once inlined Go may fuse them into one FMA on arm64, ppc64le, s390x and riscv64; return %s(...) in %s",
					fn.Name(), typeName(s.c.pass, info.TypeOf(call)), fn.Name())
			}
		}
	}
}

// addressOf reports (and reports true for) a conversion of a pointer to
// an integer, uintptr(unsafe.Pointer(p)): an address, which differs
// between peers and runs, so any hash or order built on it does.
func (s *scanner) addressOf(call *ast.CallExpr) bool {
	info := s.c.pass.TypesInfo
	tv, ok := info.Types[call.Fun]
	if !ok || !tv.IsType() || len(call.Args) != 1 {
		return false
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 {
		return false
	}
	inner, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr)
	if !ok {
		return false
	}
	if t, ok := info.Types[inner.Fun]; !ok || !t.IsType() || !isUnsafePointer(t.Type) {
		return false
	}
	s.add(call.Pos(), "address", "%s is an address: it differs between peers and between runs, so a hash or an order built on it does too; order by an ID kept in the state", short(call))
	// The pointer's own expression is still scanned.
	ast.Inspect(inner.Args[0], s.visit)
	return true
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}

// isPointerKey reports whether a map's key is (or holds) a pointer.
func isPointerKey(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Chan:
		return true
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Struct:
		for i := range u.NumFields() {
			if isPointerKey(u.Field(i).Type()) {
				return true
			}
		}
	case *types.Array:
		return isPointerKey(u.Elem())
	}
	return false
}

// implementations returns the method name of every named type of the
// module, in this package or a package of the module it imports
// (directly or not), that implements the interface iface.
func (c *checker) implementations(iface types.Type, name string) []*types.Func {
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	if c.modTypes == nil {
		seen := map[*types.Package]bool{}
		var walk func(p *types.Package)
		walk = func(p *types.Package) {
			if seen[p] || !c.inModule(p) {
				return
			}
			seen[p] = true
			scope := p.Scope()
			for _, n := range scope.Names() {
				if tn, ok := scope.Lookup(n).(*types.TypeName); ok && !tn.IsAlias() {
					if named, ok := tn.Type().(*types.Named); ok && !types.IsInterface(named) && named.TypeParams().Len() == 0 {
						c.modTypes = append(c.modTypes, named)
					}
				}
			}
			for _, imp := range p.Imports() {
				walk(imp)
			}
		}
		walk(c.pass.Pkg)
		if c.modTypes == nil {
			c.modTypes = []*types.Named{}
		}
	}
	var out []*types.Func
	for _, named := range c.modTypes {
		var t types.Type = named
		if !types.Implements(t, it) {
			t = types.NewPointer(named)
			if !types.Implements(t, it) {
				continue
			}
		}
		obj, _, _ := types.LookupFieldOrMethod(t, true, named.Obj().Pkg(), name)
		if fn, ok := obj.(*types.Func); ok && c.inModule(fn.Pkg()) {
			out = append(out, fn.Origin())
		}
	}
	return out
}

// isFMAMessage reports whether a carried message is the source rule's.
func isFMAMessage(m string) bool {
	return strings.HasPrefix(m, "float multiply ") || strings.Contains(m, " holds the float product ") || strings.Contains(m, " returns an unconverted float product ")
}

// opPos is the position of an add or subtract's operator.
func opPos(op ast.Node) token.Pos {
	switch op := op.(type) {
	case *ast.BinaryExpr:
		return op.OpPos
	case *ast.AssignStmt:
		return op.TokPos
	}
	return token.NoPos
}

// returnsProduct reports whether fn returns an unconverted float product.
func (c *checker) returnsProduct(fn *types.Func) bool {
	fn = fn.Origin()
	if c.products[fn] {
		return true
	}
	return fn.Pkg() != c.pass.Pkg && c.pass.ImportObjectFact(fn, new(productFact))
}

// stripSigns removes parentheses and unary + and - around e.
func stripSigns(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.ADD && x.Op != token.SUB {
				return e
			}
			e = x.X
		default:
			return e
		}
	}
}

// directProduct returns the float multiply e is (under parentheses and
// signs), if it is one and not a constant, and the edits that convert it
// to a named type.
func (c *checker) directProduct(e ast.Expr) (ast.Expr, func(t string) []analysis.TextEdit) {
	info := c.pass.TypesInfo
	inner := stripSigns(e)
	m, ok := inner.(*ast.BinaryExpr)
	if !ok || m.Op != token.MUL || !isFloat(info.TypeOf(m)) || info.Types[m].Value != nil {
		return nil, nil
	}
	// (x*y) becomes float64(x*y); x*y becomes float64(x*y).
	wrapped := ast.Expr(m)
	if p, ok := e.(*ast.ParenExpr); ok && p.X == m {
		return m, func(t string) []analysis.TextEdit {
			return []analysis.TextEdit{{Pos: p.Pos(), End: p.Pos(), NewText: []byte(t)}}
		}
	}
	return m, func(t string) []analysis.TextEdit {
		return []analysis.TextEdit{
			{Pos: wrapped.Pos(), End: wrapped.Pos(), NewText: []byte(t + "(")},
			{Pos: wrapped.End(), End: wrapped.End(), NewText: []byte(")")},
		}
	}
}

// returnsProduct reports whether fd returns an unconverted float product.
func returnsProduct(info *types.Info, fd *ast.FuncDecl) bool {
	res := fd.Type.Results
	if res == nil || res.NumFields() != 1 {
		return false
	}
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 1 {
				m, ok := stripSigns(n.Results[0]).(*ast.BinaryExpr)
				if ok && m.Op == token.MUL && isFloat(info.TypeOf(m)) && info.Types[m].Value == nil {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// calleeFunc returns the function a call calls statically, if any.
func calleeFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	id := calleeIdent(call.Fun)
	if id == nil {
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	if fn == nil {
		return nil
	}
	return fn.Origin()
}

// isFloat reports whether t is a (named or not) float32 or float64.
func isFloat(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsFloat != 0
}

// coreType returns t's underlying type, or the one underlying type all
// of a type parameter's terms share.
func coreType(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	tp, ok := t.(*types.TypeParam)
	if !ok {
		return t.Underlying()
	}
	var core types.Type
	iface, _ := tp.Constraint().Underlying().(*types.Interface)
	if iface == nil {
		return nil
	}
	for i := range iface.NumEmbeddeds() {
		u, ok := iface.EmbeddedType(i).(*types.Union)
		if !ok {
			continue
		}
		for j := range u.Len() {
			tu := u.Term(j).Type().Underlying()
			if core != nil && !types.Identical(core, tu) {
				return nil
			}
			core = tu
		}
	}
	return core
}

// typeName spells t as this package writes it.
func typeName(pass *analysis.Pass, t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == pass.Pkg {
			return ""
		}
		return p.Name()
	})
}

// short renders e, cut to a readable length.
func short(e ast.Expr) string {
	s := types.ExprString(e)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// ioPackage reports whether path is a package that reaches the process's
// environment, files, or the network.
func ioPackage(path string) bool {
	switch path {
	case "os", "os/exec", "os/signal", "os/user", "io/ioutil", "syscall", "net":
		return true
	}
	return strings.HasPrefix(path, "net/") || strings.HasPrefix(path, "golang.org/x/sys/")
}

// transcendental is math's functions whose results may differ in the
// last bit between architectures (a polynomial Go may fuse, or assembly).
var transcendental = map[string]bool{
	"Sin": true, "Cos": true, "Tan": true, "Sincos": true, "Asin": true, "Acos": true, "Atan": true, "Atan2": true,
	"Sinh": true, "Cosh": true, "Tanh": true, "Asinh": true, "Acosh": true, "Atanh": true,
	"Exp": true, "Exp2": true, "Expm1": true, "Log": true, "Log2": true, "Log10": true, "Log1p": true,
	"Pow": true, "Pow10": true, "Cbrt": true, "Hypot": true, "Erf": true, "Erfc": true, "Gamma": true, "Lgamma": true,
}

// denied returns the category and message of a use of fn that is never
// deterministic, or "" if fn is allowed.
func denied(fn *types.Func) (category, message string) {
	path, name := fn.Pkg().Path(), fn.Name()
	recv := fn.Signature().Recv()
	qual := fn.Pkg().Name() + "." + name
	if recv != nil {
		qual = fn.Pkg().Name() + "." + recvName(recv.Type()) + "." + name
	}
	switch {
	case path == "time":
		switch {
		case recv == nil && (name == "Now" || name == "Since" || name == "Until" || name == "After" || name == "AfterFunc" ||
			name == "Tick" || name == "NewTimer" || name == "NewTicker" || name == "Sleep"):
		case recv != nil && (recvName(recv.Type()) == "Timer" || recvName(recv.Type()) == "Ticker"):
		default:
			return "", ""
		}
		return "wallclock", qual + " reads the wall clock: peers, and a re-simulation after a rollback, read different times; use the frame number"
	case ioPackage(path):
		return "io", qual + ": the process's environment, files and network differ between peers and between re-simulations"
	case path == "math/rand" || path == "math/rand/v2":
		if recv != nil || strings.HasPrefix(name, "New") {
			return "", ""
		}
		return "random", qual + " draws from the global random source: peers draw different numbers; keep a rollnet.Rand in the state"
	case path == "sync" && recv != nil && recvName(recv.Type()) == "Pool" && (name == "Get" || name == "Put"):
		return "pool", qual + ": which object a sync.Pool hands back (a new one, or one Put earlier with its leftover contents) depends on the garbage collector and on other goroutines, so peers differ; keep the buffer in the state, or clear it completely after Get"
	case path == "hash/maphash":
		return "random", qual + ": maphash's seed is random per process, so its hashes, and any order built on them, differ between peers; hash with hash/crc32 or FNV"
	case path == "crypto/rand":
		return "random", qual + " reads the system's random source: peers draw different numbers; keep a rollnet.Rand in the state"
	case path == "math" && transcendental[name]:
		return "math", "warning: " + qual + " may round differently on another architecture (its polynomial may be fused, or it is assembly); use package fixed, or record the value in the state"
	}
	return "", ""
}
